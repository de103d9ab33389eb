package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
)

// slowRevealStore is a store slow to queue a standing: each takes per on
// the clock, and meanwhile another replica's worker (the same store,
// with the claim's lease the tool uses) tries to take a reveal.
type slowRevealStore struct {
	classroom.LTIStore
	clk   *Clock
	per   time.Duration
	calls int
	// taken lists the reveals the other replica took while this one
	// worked.
	taken []string
}

func (s *slowRevealStore) EnqueueLTIItemScore(ctx context.Context, classID, learnerID int64, target string, item classroom.GradeItem) (int, error) {
	s.clk.Advance(s.per)
	s.calls++
	j, err := s.LTIStore.ClaimLTIReveal(ctx, s.clk.Now(), 2*time.Minute)
	if err != nil {
		return 0, err
	}
	if j != nil {
		s.taken = append(s.taken, fmt.Sprintf("reveal %d of %s after %d standings", j.ID, j.Exercise, s.calls))
	}
	return s.LTIStore.EnqueueLTIItemScore(ctx, classID, learnerID, target, item)
}

// testLTIRevealClaimRenewed: a course whose reveal takes longer to queue
// than the two-minute claim (12 learners, 30 s each on the clock) is
// never taken by another replica while it is worked on: the claim is
// renewed as the work goes, and each learner is queued once, by the
// one worker. The reveal is passed on once.
func testLTIRevealClaimRenewed(t *testing.T, h Harness) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	names := make([]string, 12)
	for i := range names {
		names[i] = fmt.Sprintf("L%02d", i)
	}
	cc := launchCourse(t, ls, p.ID, names...)
	revealNum(t, s, cc.class.Code, cc.key)

	slow := &slowRevealStore{LTIStore: ls, clk: clk, per: 30 * time.Second}
	tool := lti.New(lti.Config{Store: slow, Now: clk.Now})
	defer tool.Close()
	n, err := tool.QueueReveals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(slow.taken) != 0 {
		t.Errorf("another replica took the reveal while it was worked on: %q", slow.taken)
	}
	if n != 1 || slow.calls != len(names) {
		t.Errorf("the worker passed on %d reveals queuing %d standings; want 1, and %d", n, slow.calls, len(names))
	}
	for _, name := range names {
		if j, ok := queuedFor(t, ls, "sub-"+name); !ok || j.Given != 0 || j.Maximum != 1 {
			t.Errorf("%s's score for the course after the reveal: %+v (queued %v); want 0 of 1", name, j, ok)
		}
	}
	if n := passOnReveals(t, ls); n != 0 {
		t.Errorf("the reveal was passed on again: %d", n)
	}
}

// testLTIRevealClaimLost: a worker whose claim ran out all the same (one
// learner's standing took longer than the whole claim) and was taken by
// another replica stops at its next learner, and leaves the reveal to
// that replica: it neither queues the rest of the course a second time
// nor finishes the reveal under the other's feet.
func testLTIRevealClaimLost(t *testing.T, h Harness) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada", "Bo", "Cy")
	revealNum(t, s, cc.class.Code, cc.key)

	slow := &slowRevealStore{LTIStore: ls, clk: clk, per: 3 * time.Minute}
	tool := lti.New(lti.Config{Store: slow, Now: clk.Now})
	defer tool.Close()
	n, err := tool.QueueReveals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(slow.taken) != 1 || n != 0 || slow.calls != 1 {
		t.Errorf("with its claim taken during the first standing, the worker passed on %d reveals after %d standings, the other replica took %q; want 0 after 1, and the reveal taken once",
			n, slow.calls, slow.taken)
	}
	// The other replica's claim stands: the reveal is theirs to finish.
	if j, err := ls.ClaimLTIReveal(ctx, clk.Now(), time.Minute); err != nil || j != nil {
		t.Errorf("the reveal could be claimed again while the other replica held it: %+v (%v)", j, err)
	}
}

// testLTIRevealStaleClaimCannotEnd: a worker whose claim on a reveal ran
// out, and was taken by another replica, can neither finish the reveal
// nor count it failed: the replica holding it passes it on, and the
// reveal is not given up or forgotten under it.
func testLTIRevealStaleClaimCannotEnd(t *testing.T, h Harness) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada")
	revealNum(t, s, cc.class.Code, cc.key)

	stale, err := ls.ClaimLTIReveal(ctx, clk.Now(), time.Minute)
	if err != nil || stale == nil {
		t.Fatalf("claiming the reveal: %+v (%v)", stale, err)
	}
	clk.Advance(2 * time.Minute)
	holder, err := ls.ClaimLTIReveal(ctx, clk.Now(), time.Minute)
	if err != nil || holder == nil {
		t.Fatalf("another replica claiming the reveal after the first claim ran out: %+v (%v)", holder, err)
	}
	if err := ls.FailLTIReveal(ctx, stale, "slow", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := ls.FinishLTIReveal(ctx, stale); err != nil {
		t.Fatal(err)
	}
	// The holder's claim stands: nobody else can claim it, and the holder
	// can renew it and finish it.
	clk.Advance(30 * time.Second)
	if j, err := ls.ClaimLTIReveal(ctx, clk.Now(), time.Minute); err != nil || j != nil {
		t.Errorf("after the stale worker ended it, the reveal could be claimed again while the other replica held it: %+v (%v)", j, err)
	}
	if ok, err := ls.RenewLTIReveal(ctx, holder, clk.Now(), time.Minute); err != nil || !ok {
		t.Fatalf("the replica holding the reveal could not renew its claim after the stale worker ended it: %v (%v)", ok, err)
	}
	if err := ls.FinishLTIReveal(ctx, holder); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if j, err := ls.ClaimLTIReveal(ctx, clk.Now(), time.Minute); err != nil || j != nil {
		t.Errorf("the reveal its holder finished is still there: %+v (%v)", j, err)
	}
}
