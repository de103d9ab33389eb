package engine

import (
	"strings"
	"testing"
)

func TestLockFSM(t *testing.T) {
	f := NewLockFSM(33)
	do := func(op Op, client string, token, now int64, id uint64) Reply {
		return f.Apply(Command{Op: op, Lock: "account-42", Client: client, Token: token, Lease: 10000, Now: now, ReqID: id})
	}
	r := do(OpAcquire, "a", 0, 0, 1)
	if !r.OK || r.Token != 33 || r.LeaseUntil != 10000 {
		t.Fatalf("first grant: %+v", r)
	}
	if r := do(OpAcquire, "b", 0, 2000, 1); r.OK || r.Holder != "a" || !strings.Contains(r.Reason, "held by a") {
		t.Fatalf("b while a holds: %+v", r)
	}
	if r := do(OpRenew, "a", 33, 3000, 2); !r.OK || r.LeaseUntil != 13000 {
		t.Fatalf("renew: %+v", r)
	}
	// The same request again (its answer was lost): answered from memory,
	// not applied twice.
	if r := do(OpRenew, "a", 33, 9000, 2); !r.OK || r.LeaseUntil != 13000 {
		t.Fatalf("retried renew applied again: %+v", r)
	}
	if r := do(OpCheck, "a", 33, 12999, 3); !r.OK {
		t.Fatalf("check inside the lease: %+v", r)
	}
	if r := do(OpCheck, "a", 33, 13000, 4); r.OK || !strings.Contains(r.Reason, "ran out") {
		t.Fatalf("check at the lease end should fail: %+v", r)
	}
	r = do(OpAcquire, "b", 0, 14000, 2)
	if !r.OK || r.Token != 34 {
		t.Fatalf("b after the lease: %+v", r)
	}
	if r := do(OpRenew, "a", 33, 15000, 5); r.OK || !strings.Contains(r.Reason, "b holds token 34") {
		t.Fatalf("a renews a lost lock: %+v", r)
	}
	if r := do(OpRelease, "a", 33, 15000, 6); r.OK {
		t.Fatalf("a released b's lock: %+v", r)
	}
	// Time never runs backwards inside the machine.
	if r := do(OpCheck, "b", 34, 1000, 3); !r.OK || r.Now != 15000 {
		t.Fatalf("clamped time: %+v", r)
	}
	if r := do(OpRelease, "b", 34, 16000, 4); !r.OK {
		t.Fatalf("release: %+v", r)
	}
	if r := do(OpAcquire, "a", 0, 16000, 7); !r.OK || r.Token != 35 {
		t.Fatalf("tokens only grow: %+v", r)
	}
}

func TestCommandEncoding(t *testing.T) {
	c := Command{Op: OpRenew, Lock: "account-42", Client: "client-1", Token: 33, Lease: 10000, Now: -5, ReqID: 7}
	got, err := DecodeCommand(EncodeCommand(c))
	if err != nil || got != c {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	b := EncodeCommand(c)
	for i := range len(b) {
		if _, err := DecodeCommand(b[:i]); err == nil {
			t.Errorf("a command cut to %d bytes decoded", i)
		}
	}
}

func TestOverlap(t *testing.T) {
	cases := []struct {
		spans [][]span
		want  int64
	}{
		{nil, 0},
		{[][]span{{{0, 19000}}, {{14000, 15000}}}, 1000},
		{[][]span{{{0, 10}}, {{10, 20}}}, 0},
		{[][]span{{{0, 10}}, {{5, 20}}, {{8, 30}}}, 15},
		{[][]span{{{0, 10}, {20, 30}}, {{5, 25}}}, 10},
	}
	for _, tc := range cases {
		if got := overlap(tc.spans); got != tc.want {
			t.Errorf("overlap(%v) = %d, want %d", tc.spans, got, tc.want)
		}
	}
}

func TestPathAt(t *testing.T) {
	data := []byte(`{"a":[{"b":1},{"b":[2,3,{"c":"x"}]}],"d":true}`)
	for _, tc := range []struct {
		upTo string
		want string
	}{
		{`{"a":[{"b":1`, "a[0].b"},
		{`{"a":[{"b":1},{"b":[2,3`, "a[1].b[1]"},
		{`{"a":[{"b":1},{"b":[2,3,{"c":"x"`, "a[1].b[2].c"},
		{`{"a":[{"b":1},{"b":[2,3,{"c":"x"}]}],"d":true`, "d"},
	} {
		if got := pathAt(data, int64(len(tc.upTo))); got != tc.want {
			t.Errorf("pathAt(%q) = %q, want %q", tc.upTo, got, tc.want)
		}
	}
}

// TestHolderAndTokenBothChecked: after the state machine forgot a grant (a
// restart from an old save) and handed the same token to someone else, the
// old holder carries the new holder's token. It must not renew, check or
// give back the new holder's lease; and every refusal says why.
func TestHolderAndTokenBothChecked(t *testing.T) {
	f := NewLockFSM(33)
	do := func(op Op, client string, token, now int64, id uint64) Reply {
		return f.Apply(Command{Op: op, Lock: "account-42", Client: client, Token: token, Lease: 10000, Now: now, ReqID: id})
	}
	saved := f.state()
	if r := do(OpAcquire, "a", 0, 1500, 1); !r.OK || r.Token != 33 {
		t.Fatalf("a's grant: %+v", r)
	}
	f.restore(saved) // the restart forgets a's grant
	if r := do(OpAcquire, "b", 0, 2000, 1); !r.OK || r.Token != 33 {
		t.Fatalf("b gets token 33 again: %+v", r)
	}
	for i, op := range []Op{OpRenew, OpCheck, OpRelease} {
		r := do(op, "a", 33, 2500, uint64(10+i))
		if r.OK || !strings.Contains(r.Reason, "held by b, not a") {
			t.Errorf("%s by the old holder with the same token: %+v", op, r)
		}
	}
	if _, tok, until, ok := f.Entry("account-42"); !ok || tok != 33 || until != 12000 {
		t.Errorf("b's lease should be untouched (token 33 until 12 s): %d %d %v", tok, until, ok)
	}
	if r := do(OpRenew, "b", 33, 3000, 2); !r.OK || r.LeaseUntil != 13000 {
		t.Errorf("b renews its own lease: %+v", r)
	}

	// Every way to be refused carries a reason.
	g := NewLockFSM(33)
	cases := []Command{
		{Op: OpRenew, Client: "a", Token: 33, Now: 0},   // nothing held
		{Op: OpCheck, Client: "a", Token: 33, Now: 0},   // nothing held
		{Op: OpRelease, Client: "a", Token: 33, Now: 0}, // nothing held
		{Op: OpAcquire, Client: "b", Now: 1},            // after a's grant below: held by a
		{Op: OpRenew, Client: "a", Token: 34, Now: 2},   // wrong token
		{Op: OpCheck, Client: "b", Token: 33, Now: 3},   // wrong holder
		{Op: OpRelease, Client: "b", Token: 33, Now: 4}, // wrong holder
		{Op: OpRenew, Client: "a", Token: 33, Now: 20000},
		{Op: OpCheck, Client: "a", Token: 33, Now: 20001},
		{Op: Op(9), Client: "a", Now: 20002},
	}
	for i, c := range cases {
		if i == 3 {
			if r := g.Apply(Command{Op: OpAcquire, Lock: "l", Client: "a", Lease: 10000, Now: 1}); !r.OK {
				t.Fatalf("a's grant: %+v", r)
			}
		}
		c.Lock, c.Lease = "l", 10000
		if r := g.Apply(c); r.OK || r.Reason == "" {
			t.Errorf("case %d %s by %s: refused without a reason: %+v", i, c.Op, c.Client, r)
		}
	}
}
