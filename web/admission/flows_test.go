package admission

import "testing"

// TestSessionsPastTheAddressesFlowsShareOneFlow: an address may have
// FlowsPerIP flows at once; a request of one more session counts as the
// address's anonymous flow, with that flow's share, so made-up sessions
// by the hundred are one flow between them. Another address is not
// affected, and once flows end a new session has a flow of its own again.
func TestSessionsPastTheAddressesFlowsShareOneFlow(t *testing.T) {
	c := mustNew(t, Config{Slots: 10, FlowShare: 0.1, IPShare: 1, FlowsPerIP: 2})
	a := grab(t, c, Who{Session: "a", IP: "x"}, Slot)
	b := grab(t, c, Who{Session: "b", IP: "x"}, Slot)
	// Two flows: "c" is the address's anonymous flow, which holds one.
	third := grab(t, c, Who{Session: "c", IP: "x"}, Slot)
	if third.flow != "a:x" {
		t.Fatalf("the third session's flow is %q, want the anonymous a:x", third.flow)
	}
	// So are "d" and an anonymous request: they wait, the flow at its share.
	d := enqueue(t, c, "d", Who{Session: "d", IP: "x"}, Slot)
	anon := enqueue(t, c, "anon", Who{IP: "x"}, Slot)
	if d.w == nil || anon.w == nil || d.w.flow != "a:x" || anon.w.flow != "a:x" {
		t.Fatalf("d and the anonymous request should wait as a:x")
	}
	// Another address's session starts at once.
	grab(t, c, Who{Session: "e", IP: "y"}, Slot)
	// "a" and "b" end: x has one flow left, the anonymous one, so a new
	// session is a flow of its own again.
	a.Release()
	b.Release()
	if f := grab(t, c, Who{Session: "f", IP: "x"}, Slot); f.flow != "s:f" {
		t.Errorf("a new session after a flow ended: flow %q, want s:f", f.flow)
	}
	if st := c.Stats(); st.Waiting[Slot] != 2 {
		t.Errorf("%d waiting, want d and the anonymous request", st.Waiting[Slot])
	}
}

// TestYieldOnlyForAWaiterThatWouldStart: a ticket yields its place only
// to a waiter that could take it, and two tickets never yield for one
// waiter.
func TestYieldOnlyForAWaiterThatWouldStart(t *testing.T) {
	c := mustNew(t, Config{Slots: 1, Live: 4, FlowShare: 0.25, IPShare: 0.5})
	a := grab(t, c, Who{Session: "a", IP: "x"}, Live)
	b := grab(t, c, Who{Session: "b", IP: "x"}, Live)
	// x is at its address's share: its third request waits, and no
	// ticket of another address would let it start.
	enqueue(t, c, "x3", Who{Session: "c", IP: "x"}, Live)
	d := grab(t, c, Who{Session: "d", IP: "y"}, Live)
	e := grab(t, c, Who{Session: "e", IP: "z"}, Live)
	if d.Yield() || e.Yield() {
		t.Fatal("a ticket of another address yielded to a waiter held back by its own address's share")
	}
	// One of x's own would let it start, once.
	if !a.Yield() {
		t.Fatal("x's ticket did not yield to x's waiter")
	}
	if b.Yield() {
		t.Error("a second ticket yielded for the same waiter")
	}
	a.Release()
	if b.Yield() {
		t.Error("yielded with nobody waiting any more")
	}
}
