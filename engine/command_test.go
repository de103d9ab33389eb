package engine

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/raft"
)

// TestCommandDecoding: the decoded command is the one encoded; reading
// its fields leaves the names in the entry's bytes (nothing allocated),
// while DecodeCommand copies them out; a command cut short never decodes.
func TestCommandDecoding(t *testing.T) {
	c := Command{Op: OpRenew, Lock: "account-42", Client: "client-1", Token: 34, Lease: 10000, Now: 12345, ReqID: 7}
	b := EncodeCommand(c)
	got, err := DecodeCommand(b)
	if err != nil || got != c {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, c)
	}
	if allocs := testing.AllocsPerRun(100, func() { decodeFields(b, &got) }); allocs != 0 {
		t.Errorf("reading a command's fields allocates %v times", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() { DecodeCommand(b) }); allocs == 0 {
		t.Errorf("DecodeCommand must copy the names out of the log entry")
	}
	for i := range b {
		if _, err := DecodeCommand(b[:i]); err == nil {
			t.Errorf("a command cut to %d bytes decodes", i)
		}
	}
}

// TestCommandEncodingIsExact: the log keeps each command's buffer, so it is
// allocated at the exact size, whatever the numbers and names; and every
// such command decodes to itself.
func TestCommandEncodingIsExact(t *testing.T) {
	nums := []int64{0, 1, -1, 63, 64, -64, -65, 1 << 20, -(1 << 20), math.MaxInt64, math.MinInt64}
	for i, n := range nums {
		for _, name := range []string{"", "a", strings.Repeat("x", 127), strings.Repeat("y", 128), strings.Repeat("z", 20000)} {
			c := Command{Op: OpCheck, Lock: name, Client: "client-" + name, Token: n, Lease: -n,
				Now: nums[(i+3)%len(nums)], ReqID: uint64(n) * 3}
			b := EncodeCommand(c)
			if len(b) != cap(b) {
				t.Errorf("%+v: %d bytes in a buffer of %d", c, len(b), cap(b))
			}
			if got, err := DecodeCommand(b); err != nil || got != c {
				t.Errorf("%+v decodes to %+v, %v", c, got, err)
			}
		}
	}
}

// TestRaftFSMApplyAllocatesNothing: a renewal by the holder, applied by a
// follower's state machine, allocates nothing once the machine has seen
// the lock and the client; the node commands go through hands its reply back in the entry's
// response, and the machine keeps it too (LockFSM.Answer).
func TestRaftFSMApplyAllocatesNothing(t *testing.T) {
	var m atomic.Pointer[LockFSM]
	m.Store(NewLockFSM(33))
	var answers atomic.Bool
	f := raftFSM{m: &m, answers: &answers}
	acquire := EncodeCommand(Command{Op: OpAcquire, Lock: "account-42", Client: "client-1", Lease: 10000, ReqID: 1})
	if resp := f.Apply(&raft.Log{Data: acquire}); resp != nil {
		t.Fatalf("a follower's reply is not handed back, got %v", resp)
	}
	if r, ok := m.Load().Answer("client-1", 1); !ok || !r.OK || r.Token != 33 {
		t.Fatalf("answer %+v %v", r, ok)
	}
	renew := &raft.Log{Data: EncodeCommand(Command{Op: OpRenew, Lock: "account-42", Client: "client-1", Token: 33, Lease: 10000, ReqID: 2})}
	if allocs := testing.AllocsPerRun(100, func() { f.Apply(renew) }); allocs != 0 {
		t.Errorf("applying a renewal allocates %v times", allocs)
	}
	answers.Store(true)
	release := &raft.Log{Data: EncodeCommand(Command{Op: OpRelease, Lock: "account-42", Client: "client-1", Token: 33, ReqID: 3})}
	if r, ok := f.Apply(release).(*Reply); !ok || !r.OK || r.Token != 33 {
		t.Errorf("the answering node's reply: %+v", r)
	}
}

// TestDecodingAgreesWithEncodingBinary: decodeFields reads the fields in
// line (a one-byte varint without a loop); on commands of every size of
// number and on random and damaged bytes it accepts and reads exactly
// what encoding/binary's readers do.
func TestDecodingAgreesWithEncodingBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	nums := []int64{0, 1, -1, 63, 64, -64, -65, 127, 128, 1 << 20, -(1 << 20), math.MaxInt64, math.MinInt64}
	num := func() int64 {
		if rng.IntN(2) == 0 {
			return nums[rng.IntN(len(nums))]
		}
		return rng.Int64N(1<<40) - 1<<39
	}
	for i := range 20000 {
		var b []byte
		switch i % 3 {
		case 0: // a command
			b = EncodeCommand(Command{Op: Op(rng.IntN(6)), Lock: strings.Repeat("l", rng.IntN(200)),
				Client: strings.Repeat("c", rng.IntN(200)), Token: num(), Lease: num(), Now: num(), Delay: num(), ReqID: uint64(num())})
		case 1: // a command with a byte changed, dropped or added
			b = EncodeCommand(Command{Op: OpAcquire, Lock: "lock-1", Client: "client-1", Token: num(), Lease: num(), ReqID: uint64(num())})
			switch j := rng.IntN(len(b)); rng.IntN(3) {
			case 0:
				b[j] = byte(rng.IntN(256))
			case 1:
				b = append(b[:j], b[j+1:]...)
			default:
				b = append(b[:j], append([]byte{byte(rng.IntN(256))}, b[j:]...)...)
			}
		default: // random bytes
			b = make([]byte, rng.IntN(40))
			for j := range b {
				b[j] = byte(rng.IntN(256))
			}
		}
		var got, want Command
		gl, gc, gerr := decodeFields(b, &got)
		wl, wc, wok := decodeWithBinary(b, &want)
		if (gerr == nil) != wok || wok && (got != want || string(gl) != string(wl) || string(gc) != string(wc)) {
			t.Fatalf("% x: decodeFields %+v %q %q %v; encoding/binary %+v %q %q %v", b, got, gl, gc, gerr, want, wl, wc, wok)
		}
	}
}

// decodeWithBinary is decodeFields written with encoding/binary's readers.
func decodeWithBinary(b []byte, c *Command) (lock, client []byte, ok bool) {
	if len(b) < 1 {
		return nil, nil, false
	}
	c.Op, b = Op(b[0]), b[1:]
	for _, p := range [...]*int64{&c.Token, &c.Lease, &c.Now, &c.Delay} {
		v, n := binary.Varint(b)
		if n <= 0 {
			return nil, nil, false
		}
		*p, b = v, b[n:]
	}
	id, n := binary.Uvarint(b)
	if n <= 0 {
		return nil, nil, false
	}
	c.ReqID, b = id, b[n:]
	for _, p := range [...]*[]byte{&lock, &client} {
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			return nil, nil, false
		}
		*p, b = b[n:n+int(l)], b[n+int(l):]
	}
	if len(b) != 0 {
		return nil, nil, false
	}
	return lock, client, true
}
