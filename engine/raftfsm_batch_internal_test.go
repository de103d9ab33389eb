package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/raft"
)

// TestApplyBatchMatchesApply: a batch of committed entries leaves the
// state machine where applying them one by one does, hands the answering
// node's replies back (the same replies), gives a follower's and a
// configuration entry's none, and answers a malformed command with an
// error.
func TestApplyBatchMatchesApply(t *testing.T) {
	newFSM := func(answers bool) (raftFSM, *atomic.Pointer[LockFSM]) {
		var m atomic.Pointer[LockFSM]
		m.Store(NewLockFSM(33))
		var a atomic.Bool
		a.Store(answers)
		return raftFSM{m: &m, answers: &a}, &m
	}
	cmds := []Command{
		{Op: OpAcquire, Lock: "account-42", Client: "client-1", Lease: 10000, Now: 0, ReqID: 1},
		{Op: OpAcquire, Lock: "account-42", Client: "client-2", Lease: 10000, Now: 1000, ReqID: 1},
		{Op: OpRenew, Lock: "account-42", Client: "client-1", Token: 33, Lease: 10000, Now: 3000, ReqID: 2},
		{Op: OpRelease, Lock: "account-42", Client: "client-1", Token: 33, Now: 5000, ReqID: 3},
		{Op: OpAcquire, Lock: "account-42", Client: "client-2", Lease: 10000, Now: 6000, ReqID: 2},
	}
	var logs []*raft.Log
	for i, c := range cmds {
		logs = append(logs, &raft.Log{Type: raft.LogCommand, Data: EncodeCommand(c)})
		if i == 1 {
			logs = append(logs, &raft.Log{Type: raft.LogConfiguration, Data: []byte("not a command")})
		}
	}
	logs = append(logs, &raft.Log{Type: raft.LogCommand, Data: []byte{byte(OpAcquire)}}) // cut short

	one, oneM := newFSM(true)
	var want []any
	for _, l := range logs {
		if l.Type != raft.LogCommand {
			want = append(want, nil)
			continue
		}
		want = append(want, one.Apply(l))
	}
	batch, batchM := newFSM(true)
	got := batch.ApplyBatch(logs)
	if len(got) != len(logs) {
		t.Fatalf("%d responses for %d entries", len(got), len(logs))
	}
	for i := range logs {
		switch w := want[i].(type) {
		case *Reply:
			if g, ok := got[i].(*Reply); !ok || *g != *w {
				t.Errorf("entry %d: batch answered %#v, one by one %#v", i, got[i], *w)
			}
		case error:
			if _, ok := got[i].(error); !ok {
				t.Errorf("entry %d: batch answered %#v, one by one the error %v", i, got[i], w)
			}
		case nil:
			if got[i] != nil {
				t.Errorf("entry %d (not a command): batch answered %#v", i, got[i])
			}
		}
	}
	if g, w := batchM.Load().state(), oneM.Load().state(); jsonString(t, g) != jsonString(t, w) {
		t.Errorf("state after the batch %+v, one by one %+v", g, w)
	}

	follower, followerM := newFSM(false)
	for i, r := range follower.ApplyBatch(logs) {
		if _, isErr := r.(error); r != nil && !isErr {
			t.Errorf("a follower's entry %d answered %#v", i, r)
		}
	}
	if g, w := followerM.Load().state(), oneM.Load().state(); jsonString(t, g) != jsonString(t, w) {
		t.Errorf("a follower's state %+v, the leader's %+v", g, w)
	}
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBatchesOfRandomCommandsMatchOneByOne: random commands on a few locks
// and on thousands (so that slots are made and dropped past maxFreeLocks
// inside a batch, under clients that point to them), in random batches,
// give the replies and the state that applying them one by one gives.
func TestBatchesOfRandomCommandsMatchOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var batchM, oneM atomic.Pointer[LockFSM]
	batchM.Store(NewLockFSM(1))
	oneM.Store(NewLockFSM(1))
	var yes atomic.Bool
	yes.Store(true)
	batch := raftFSM{m: &batchM, answers: &yes}
	one := raftFSM{m: &oneM, answers: &yes}
	tokens := map[string]int64{} // the last token granted on each lock
	reqs := map[string]uint64{}
	for round := range 3000 {
		logs := make([]*raft.Log, 1+rng.IntN(70))
		for i := range logs {
			client := fmt.Sprint("client-", rng.IntN(6+round/100))
			lock := fmt.Sprint("lock-", rng.IntN(3))
			if rng.IntN(4) == 0 {
				lock = fmt.Sprint("many-", rng.IntN(3000))
			}
			reqs[client]++
			c := Command{Op: Op(1 + rng.IntN(4)), Lock: lock, Client: client, Token: tokens[lock],
				Lease: int64(1 + rng.IntN(5000)), Now: int64(round * 1000), ReqID: reqs[client]}
			if rng.IntN(10) == 0 {
				c.ReqID-- // a retry, or a request without an id
			}
			logs[i] = &raft.Log{Type: raft.LogCommand, Data: EncodeCommand(c)}
		}
		got := batch.ApplyBatch(logs)
		for i, l := range logs {
			want := one.Apply(l).(*Reply)
			g, ok := got[i].(*Reply)
			if !ok || *g != *want {
				c, _ := DecodeCommand(l.Data)
				t.Fatalf("round %d entry %d, %+v: batch %#v, one by one %+v", round, i, c, got[i], *want)
			}
			if g.OK && g.Holder != "" {
				c, _ := DecodeCommand(l.Data)
				tokens[c.Lock] = g.Token
			}
		}
	}
	g, w := batchM.Load().state(), oneM.Load().state()
	if jsonString(t, g) != jsonString(t, w) {
		t.Errorf("after the batches the states differ:\nbatch      %.300s\none by one %.300s", jsonString(t, g), jsonString(t, w))
	}
	if n := len(batchM.Load().locks); n <= maxFreeLocks {
		t.Errorf("the table ends with %d slots: the test no longer drives it past maxFreeLocks (%d)", n, maxFreeLocks)
	}
}
