package lti_test

import (
	"context"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
)

// stalledFinishStore is a store whose first write of a send's end
// stalls past the claim: meanwhile the clock moves on by stall and
// another replica claims the score (taken).
type stalledFinishStore struct {
	classroomStore
	clk   *clock
	stall time.Duration
	taken *classroom.LTIScoreJob
}

func (s *stalledFinishStore) FinishLTIScore(ctx context.Context, job *classroom.LTIScoreJob, outcome, lastError string, retryAt time.Time) error {
	if s.taken == nil {
		s.clk.Advance(s.stall)
		j, err := s.classroomStore.ClaimLTIScore(ctx, s.clk.Now(), lti.ClaimLease)
		if err != nil {
			return err
		}
		s.taken = j
	}
	return s.classroomStore.FinishLTIScore(ctx, job, outcome, lastError, retryAt)
}

// TestAWorkerWhoseClaimWasTakenLeavesTheScore: a worker whose post the
// course refused, and whose claim ran out before it could write so,
// leaves the score to the replica that took it: its Deliver ends without
// an error, and no worker claims the score again while that replica
// still holds it, so the course is never sent it by two at once.
func TestAWorkerWhoseClaimWasTakenLeavesTheScore(t *testing.T) {
	e := newQueueEnv(t)
	ctx := context.Background()
	stalled := &stalledFinishStore{classroomStore: e.st, clk: e.clk, stall: lti.ClaimLease + time.Second}
	worker := lti.New(lti.Config{Store: stalled, Now: e.clk.Now, AfterFunc: e.clk.AfterFunc})
	t.Cleanup(worker.Close)
	if err := e.tool.EnqueueScore(ctx, e.classID, e.learner, "ex", 1, 1); err != nil {
		t.Fatal(err)
	}
	e.plat.FailScores(1)
	if n, err := worker.Deliver(ctx); n != 0 || err != nil {
		t.Fatalf("the stalled worker's Deliver: %d sent, %v; want none (the score is the other replica's to send) and no error for a claim it lost", n, err)
	}
	if stalled.taken == nil {
		t.Fatal("no other replica could claim the score once the stalled worker's claim ran out")
	}
	// Past the stalled worker's backoff, inside the other replica's claim.
	e.clk.Advance(lti.Backoff(1) + time.Second)
	if n, err := e.tool.Deliver(ctx); n != 0 || err != nil {
		t.Fatalf("a third worker sent %d scores (%v) while the other replica held the only one", n, err)
	}
	if got := len(e.plat.Scores()); got != 0 {
		t.Errorf("the course got %d posts of the score; want none yet, the replica holding it still sending", got)
	}
	if err := e.st.FinishLTIScore(ctx, stalled.taken, "sent", "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	jobs, err := e.st.LTIScoreJobs(ctx, 5)
	if err != nil || len(jobs) != 1 || jobs[0].Outcome != "sent" {
		t.Errorf("the score after the replica holding it sent it: %+v, %v", jobs, err)
	}
}
