package lti_test

import (
	"context"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
)

// meanwhileStore is a worker's store: right after the worker claims its
// first score, before it posts it, meanwhile runs (the learner does
// better, another replica delivers).
type meanwhileStore struct {
	classroomStore
	meanwhile func()
}

func (s *meanwhileStore) ClaimLTIScore(ctx context.Context, now time.Time, lease time.Duration) (*classroom.LTIScoreJob, error) {
	j, err := s.classroomStore.ClaimLTIScore(ctx, now, lease)
	if j != nil && s.meanwhile != nil {
		m := s.meanwhile
		s.meanwhile = nil
		m()
	}
	return j, err
}

// TestCourseKeepsTheNewerScoreWhenAnOlderIsOnItsWay: Ada's 5 of 10 is
// on its way to the course (a worker claimed it) when she earns 10, and
// another replica delivers at once. The course, which keeps the last
// score posted whatever its timestamp, receives the 5 and then the 10,
// and keeps the 10. Before, the other replica posted the 10 while the 5
// was still on its way, and the 5 arrived last: the course kept 5.
func TestCourseKeepsTheNewerScoreWhenAnOlderIsOnItsWay(t *testing.T) {
	e := newQueueEnv(t)
	ctx := context.Background()
	if err := e.tool.EnqueueScore(ctx, e.classID, e.learner, "ex", 5, 10); err != nil {
		t.Fatal(err)
	}
	other := -1
	st := &meanwhileStore{classroomStore: e.st, meanwhile: func() {
		e.clk.Advance(time.Second)
		if err := e.tool.EnqueueScore(ctx, e.classID, e.learner, "ex", 10, 10); err != nil {
			t.Error(err)
		}
		n, err := e.tool.Deliver(ctx)
		if err != nil {
			t.Error(err)
		}
		other = n
	}}
	worker := lti.New(lti.Config{Store: st, Now: e.clk.Now, AfterFunc: e.clk.AfterFunc})
	t.Cleanup(worker.Close)
	if _, err := worker.Deliver(ctx); err != nil {
		t.Fatal(err)
	}
	// Whoever sends the 10 (the worker, once its 5 is through), the queue
	// is empty after one more round.
	if _, err := e.tool.Deliver(ctx); err != nil {
		t.Fatal(err)
	}
	if other != 0 {
		t.Errorf("the other replica sent %d scores while the 5 was on its way; want it to wait its turn", other)
	}
	var got []float64
	for _, s := range e.plat.Scores() {
		got = append(got, s.ScoreGiven)
	}
	if len(got) != 2 || got[0] != 5 || got[1] != 10 {
		t.Errorf("the course received %v in that order, keeping %v; want 5 then 10", got, got[len(got)-1:])
	}
}
