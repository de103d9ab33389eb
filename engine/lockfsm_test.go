package engine

import (
	"fmt"
	"maps"
	"math/rand/v2"
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
		// Beliefs of one instant cover no time, even two at once.
		{[][]span{{{5, 5}}, {{5, 5}}}, 0},
		{[][]span{{{5, 5}}, {{0, 10}}}, 0},
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

// lockModel is the lock state machine's contract written the plainest
// way (maps of values, a released lock deleted), for
// TestLockFSMMatchesAModel.
type lockModel struct {
	locks map[string]lockEntry
	seen  map[string]seenReq
	next  int64
	last  int64
}

func (m *lockModel) apply(c Command) Reply {
	if s, ok := m.seen[c.Client]; ok && c.ReqID != 0 && s.ID == c.ReqID {
		return s.Reply
	}
	now := max(c.Now, m.last)
	m.last = now
	e, held := m.locks[c.Lock]
	valid := held && now < e.LeaseUntil
	refused := func(matchTime bool) bool {
		return !held || e.Token != c.Token || e.Holder != c.Client || (matchTime && !valid)
	}
	var r Reply
	switch {
	case c.Op == OpAcquire && valid && e.Holder != c.Client:
		r = Reply{Holder: e.Holder, Token: e.Token, LeaseUntil: e.LeaseUntil, Now: now}
	case c.Op == OpAcquire && valid:
		r = Reply{OK: true, Token: e.Token, LeaseUntil: e.LeaseUntil, Holder: e.Holder, Now: now}
	case c.Op == OpAcquire:
		m.locks[c.Lock] = lockEntry{Holder: c.Client, Token: m.next, LeaseUntil: now + c.Lease, TTL: c.Lease}
		r = Reply{OK: true, Token: m.next, LeaseUntil: now + c.Lease, Holder: c.Client, Now: now}
		m.next++
	case (c.Op == OpRenew || c.Op == OpCheck) && refused(true), c.Op == OpRelease && refused(false):
		r = Reply{Holder: e.Holder, Token: e.Token, Now: now}
	case c.Op == OpRenew:
		e.LeaseUntil = now + c.Lease
		m.locks[c.Lock] = e
		r = Reply{OK: true, Token: e.Token, LeaseUntil: e.LeaseUntil, Holder: e.Holder, Now: now}
	case c.Op == OpCheck:
		r = Reply{OK: true, Token: e.Token, LeaseUntil: e.LeaseUntil, Holder: e.Holder, Now: now}
	case c.Op == OpRelease:
		delete(m.locks, c.Lock)
		r = Reply{OK: true, Token: c.Token, Now: now}
	}
	if c.ReqID != 0 {
		m.seen[c.Client] = seenReq{ID: c.ReqID, Reply: r}
	}
	return r
}

// TestLockFSMMatchesAModel runs random commands, retries, clock steps
// backwards, saves and restores through the state machine (by value and
// from its encoded form, as Raft nodes apply them) and through lockModel:
// every reply but the wording of its reason, every lock's record and the
// saved state agree. Lock names come mostly from a few, and sometimes from
// thousands, so that the machine must drop released locks' slots to keep
// within maxFreeLocks.
func TestLockFSMMatchesAModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 21))
	byValue, encoded := NewLockFSM(33), NewLockFSM(33)
	model := &lockModel{locks: map[string]lockEntry{}, seen: map[string]seenReq{}, next: 33}
	clients := []string{"a", "b", "c", "d"}
	reqs := map[string]uint64{}
	var saved fsmState
	now := int64(0)
	// run applies c to all three and checks that they agree.
	run := func(step int, c Command) Reply {
		t.Helper()
		want := model.apply(c)
		got := byValue.Apply(c)
		fromBytes, err := encoded.applyEncoded(EncodeCommand(c))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []*Reply{&got, &fromBytes} {
			if r.OK == (r.Reason != "") {
				t.Fatalf("step %d, %+v: a refusal must carry a reason and only a refusal one: %+v", step, c, *r)
			}
			r.Reason = ""
		}
		if got != want || fromBytes != want {
			t.Fatalf("step %d, %+v: Apply %+v, applyEncoded %+v, model %+v", step, c, got, fromBytes, want)
		}
		h, tok, until, ok := byValue.Entry(c.Lock)
		if e, held := model.locks[c.Lock]; ok != held || h != e.Holder || tok != e.Token || until != e.LeaseUntil {
			t.Fatalf("step %d: Entry(%s) = %s %d %d %v, model %+v %v", step, c.Lock, h, tok, until, ok, e, held)
		}
		return want
	}
	for step := range 30000 {
		if step%100 == 0 {
			free := 0
			for _, l := range byValue.locks {
				if !l.held {
					free++
				}
			}
			if free > maxFreeLocks {
				t.Fatalf("step %d: %d free lock slots kept, more than %d", step, free, maxFreeLocks)
			}
		}
		client := clients[rng.IntN(len(clients))]
		if rng.IntN(8) != 0 { // else a retry of the client's last request
			reqs[client]++
		}
		id := reqs[client]
		if rng.IntN(20) == 0 {
			id = 0 // a request without an id
		}
		now += int64(rng.IntN(4000)) - 1000
		if rng.IntN(10) == 0 {
			// One of thousands of locks, granted and given back: its
			// slot is one the machine must drop past maxFreeLocks.
			lock := fmt.Sprint("many-", rng.IntN(5000))
			r := run(step, Command{Op: OpAcquire, Lock: lock, Client: client, Lease: 5000, Now: now, ReqID: id})
			reqs[client]++
			run(step, Command{Op: OpRelease, Lock: lock, Client: client, Token: r.Token, Now: now, ReqID: reqs[client]})
			continue
		}
		lock := fmt.Sprint("lock-", rng.IntN(3))
		token := model.next - 1 - int64(rng.IntN(3))
		if e, ok := model.locks[lock]; ok && rng.IntN(2) == 0 {
			token = e.Token
		}
		run(step, Command{Op: Op(1 + rng.IntN(4)), Lock: lock, Client: client, Token: token,
			Lease: int64(1 + rng.IntN(9000)), Now: now, ReqID: id})
		if step >= 10000 {
			continue // from here the free slots pile up
		}
		switch rng.IntN(500) {
		case 0:
			saved = byValue.state()
		case 1:
			if saved.Locks != nil {
				byValue.restore(saved)
				encoded.restore(saved)
				model.locks, model.seen, model.next, model.last = maps.Clone(saved.Locks), maps.Clone(saved.Seen), saved.Next, saved.Last
			}
		}
	}
	// Replies remembered for retries are compared without their reasons'
	// wording, as above.
	plain := func(st fsmState) string {
		for k, s := range st.Seen {
			s.Reply.Reason = ""
			st.Seen[k] = s
		}
		return jsonString(t, st)
	}
	g, e := plain(byValue.state()), plain(encoded.state())
	if w := plain(fsmState{Locks: model.locks, Seen: model.seen, Next: model.next, Last: model.last}); g != w || e != w {
		t.Errorf("final states differ:\nApply        %.300s\napplyEncoded %.300s\nmodel        %.300s", g, e, w)
	}
}

// TestALockSlotDroppedUnderAClientIsNotReused: a client's slot points to
// the slot of the lock it last named. When another client gives that lock
// back past maxFreeLocks, the slot leaves the table; the first client
// taking the lock again must be granted it in the table, where every other
// client and Entry see it, not in the slot it still points to.
func TestALockSlotDroppedUnderAClientIsNotReused(t *testing.T) {
	f := NewLockFSM(1)
	do := func(c Command) Reply {
		t.Helper()
		r, err := f.applyEncoded(EncodeCommand(c))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for i := range maxFreeLocks + 1 { // held, so their slots stay
		if r := do(Command{Op: OpAcquire, Lock: fmt.Sprint("fill-", i), Client: "filler", Lease: 1 << 40, ReqID: uint64(i + 1)}); !r.OK {
			t.Fatalf("fill-%d: %+v", i, r)
		}
	}
	if r := do(Command{Op: OpAcquire, Lock: "x", Client: "a", Lease: 10, ReqID: 1}); !r.OK {
		t.Fatalf("a's first grant: %+v", r)
	}
	b := do(Command{Op: OpAcquire, Lock: "x", Client: "b", Lease: 10, Now: 100, ReqID: 1})
	if !b.OK {
		t.Fatalf("b after a's lease ran out: %+v", b)
	}
	if r := do(Command{Op: OpRelease, Lock: "x", Client: "b", Token: b.Token, Now: 101, ReqID: 2}); !r.OK {
		t.Fatalf("b's release: %+v", r)
	}
	if _, ok := f.locks["x"]; ok {
		t.Fatalf("x's slot stayed in a table of %d slots; the test needs it dropped", len(f.locks))
	}
	a := do(Command{Op: OpAcquire, Lock: "x", Client: "a", Lease: 1000, Now: 200, ReqID: 2})
	if !a.OK {
		t.Fatalf("a's second grant: %+v", a)
	}
	if h, tok, _, ok := f.Entry("x"); !ok || h != "a" || tok != a.Token {
		t.Errorf("Entry(x) = %q %d %v after a was granted token %d", h, tok, ok, a.Token)
	}
	if r := do(Command{Op: OpAcquire, Lock: "x", Client: "c", Lease: 10, Now: 201, ReqID: 1}); r.OK || r.Holder != "a" {
		t.Errorf("c took x while a holds it: %+v", r)
	}
}

// TestARefusalSaysHoldsOnlyWhileTheLeaseRuns: a renew, check or release
// refused because its token is not the record's says the record's holder
// holds its token while that lease runs by the machine's time, and only
// that it was granted it once the lease ran out (the record keeps the
// entry until another grant): "client-1 holds token 33" at 20 s of a lease
// that ended at 10 s was false. The same for a token handed out twice.
// (The machine's time never runs back: the cases go in time order.)
func TestARefusalSaysHoldsOnlyWhileTheLeaseRuns(t *testing.T) {
	f := NewLockFSM(33)
	do := func(op Op, client string, token, now int64, id uint64) Reply {
		return f.Apply(Command{Op: op, Lock: "account-42", Client: client, Token: token, Lease: 10000, Now: now, ReqID: id})
	}
	if r := do(OpAcquire, "client-1", 0, 0, 1); !r.OK || r.Token != 33 {
		t.Fatalf("grant: %+v", r)
	}
	id := uint64(1)
	for _, c := range []struct {
		op     Op
		client string
		token  int64
		now    int64
		want   string
	}{
		{OpRenew, "client-2", 34, 5000, "token 34 is not current: client-1 holds token 33"},
		{OpRenew, "client-2", 33, 5000, "token 33 is held by client-1, not client-2: the token was handed out twice"},
		{OpCheck, "client-2", 34, 20000, "token 34 is not current: client-1 was granted token 33"},
		{OpRelease, "client-2", 34, 20000, "token 34 is not current: client-1 was granted token 33"},
		{OpRenew, "client-2", 33, 20000, "token 33 was granted to client-1, not client-2: the token was handed out twice"},
		{OpRenew, "client-1", 33, 20000, "the lease of token 33 ran out at 10s"},
	} {
		id++ // each a request of its own, not one answered from memory
		if r := do(c.op, c.client, c.token, c.now, id); r.OK || r.Reason != c.want {
			t.Errorf("%s's %v of token %d at %s: %+v, want the reason %q", c.client, c.op, c.token, FormatMS(c.now), r, c.want)
		}
	}
}
