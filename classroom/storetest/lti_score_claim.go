package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// staleScoreClaim queues Ada's score in a course's class and has two
// replicas claim it for a minute each, the second after the first's
// claim ran out: it returns the store, the class, the first (stale)
// claim and the second (holding) one.
func staleScoreClaim(t *testing.T, h Harness) (*Clock, classroom.LTIStore, courseClass, *classroom.LTIScoreJob, *classroom.LTIScoreJob) {
	t.Helper()
	ctx := context.Background()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada")
	if n, err := ls.EnqueueLTIScore(ctx, cc.class.ID, cc.learners["Ada"].Learner.ID, "exercise:num", 1, 1, false); err != nil || n != 1 {
		t.Fatalf("queue Ada's score: %d queued, %v", n, err)
	}
	stale, err := ls.ClaimLTIScore(ctx, clk.Now(), time.Minute)
	if err != nil || stale == nil {
		t.Fatalf("claiming the score: %+v (%v)", stale, err)
	}
	clk.Advance(2 * time.Minute)
	holder, err := ls.ClaimLTIScore(ctx, clk.Now(), time.Minute)
	if err != nil || holder == nil || holder.ID != stale.ID {
		t.Fatalf("another replica claiming the score after the first claim ran out: %+v (%v)", holder, err)
	}
	return clk, ls, cc, stale, holder
}

// testLTIScoreStaleClaimCannotEnd: a worker whose claim on a score ran
// out, and was taken by another replica, can neither schedule the score
// again nor give it up: the replica holding it sends it, no third one
// takes it meanwhile (two posts of one score at once), and the teacher
// is not told the course will never get it.
func testLTIScoreStaleClaimCannotEnd(t *testing.T, h Harness) {
	ctx := context.Background()
	clk, ls, cc, stale, holder := staleScoreClaim(t, h)

	if err := ls.FinishLTIScore(ctx, stale, "", "the course did not answer within 30s", clk.Now()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(30 * time.Second)
	if j, err := ls.ClaimLTIScore(ctx, clk.Now(), time.Minute); err != nil || j != nil {
		t.Errorf("after the stale worker scheduled its try again, a third replica claimed the score the second was sending: %+v (%v)", j, err)
	}
	if err := ls.FinishLTIScore(ctx, stale, "failed", "the course did not answer within 30s", time.Time{}); err != nil {
		t.Fatal(err)
	}
	g, err := ls.LTIGrades(ctx, cc.class.ID, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if g.GivenUp != 0 || g.Waiting != 1 || g.Sent != 0 {
		t.Errorf("while the second replica sends it: %d given up, %d waiting, %d sent; want it waiting, not given up", g.GivenUp, g.Waiting, g.Sent)
	}
	if err := ls.FinishLTIScore(ctx, holder, "sent", "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if g, err := ls.LTIGrades(ctx, cc.class.ID, clk.Now()); err != nil || g.Sent != 1 || g.Waiting != 0 || g.GivenUp != 0 {
		t.Errorf("after the replica holding it sent it: %+v (%v); want 1 sent", g, err)
	}
}

// testLTIScoreSentByStaleClaim: a worker whose claim ran out while its
// post reached the course records the score sent, as it is, while the
// replica that took the claim still holds it: nobody else claims it, and
// that replica's failing try neither gives up nor re-arms a score the
// course has.
func testLTIScoreSentByStaleClaim(t *testing.T, h Harness) {
	ctx := context.Background()
	clk, ls, cc, stale, holder := staleScoreClaim(t, h)

	if err := ls.FinishLTIScore(ctx, stale, "sent", "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if j, err := ls.ClaimLTIScore(ctx, clk.Now().Add(time.Hour), time.Minute); err != nil || j != nil {
		t.Errorf("a score the course has was claimed again: %+v (%v)", j, err)
	}
	if err := ls.FinishLTIScore(ctx, holder, "", "scores endpoint answered 503 Service Unavailable", clk.Now()); err != nil {
		t.Fatal(err)
	}
	if err := ls.FinishLTIScore(ctx, holder, "failed", "scores endpoint answered 503 Service Unavailable", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if j, err := ls.ClaimLTIScore(ctx, clk.Now().Add(time.Hour), time.Minute); err != nil || j != nil {
		t.Errorf("a score the course has was claimed again after the other replica's try failed: %+v (%v)", j, err)
	}
	g, err := ls.LTIGrades(ctx, cc.class.ID, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if g.Sent != 1 || g.GivenUp != 0 || g.Waiting != 0 {
		t.Errorf("a score the course got: %d sent, %d given up, %d waiting; want it sent", g.Sent, g.GivenUp, g.Waiting)
	}
}
