package engine

import (
	"fmt"
	"testing"
	"time"
)

// TestCheckTimeoutIsUnknown: a check that runs out of time says Unknown,
// never "not linearizable". The history is built to be slow to decide:
// thirty checks that overlap one another, any order of which is legal, and
// after them all a renewal no order can explain. Refuting it means trying
// every subset of the thirty (2^30 states: hours; eighteen already take
// seconds); given time enough, a smaller one of the same shape is Illegal.
func TestCheckTimeoutIsUnknown(t *testing.T) {
	build := func(n int) *History {
		h := &history{}
		for i := range n {
			c := fmt.Sprintf("client-%d", i+1)
			h.add(lockInput{Op: "check", Client: c, Token: 33}, lockOutput{Now: 1000}, int64(1+i), int64(100+i))
		}
		h.add(lockInput{Op: "renew", Client: "client-1", Token: 33, Lease: 10000}, lockOutput{OK: true, LeaseUntil: 12000, Now: 2000}, 200, 201)
		return h.export()
	}
	if got := build(30).Check(50 * time.Millisecond); got != LinearizableUnknown {
		t.Errorf("a check cut short by its timeout: got %q, want unknown", got)
	}
	if got := build(4).Check(10 * time.Second); got != LinearizableIllegal {
		t.Errorf("the same shape, small enough to decide: got %q, want illegal", got)
	}
	if got := (&History{}).Check(time.Second); got != LinearizableOK {
		t.Errorf("an empty history: %q", got)
	}
}
