package storetest

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
)

// revealWorkStore is the store as the queue's worker sees it, counting
// the reveals it claims and failing every learner's standing while fail
// is set.
type revealWorkStore struct {
	classroom.LTIStore
	mu     sync.Mutex
	fail   bool
	claims int
}

func (s *revealWorkStore) ClaimLTIReveal(ctx context.Context, now time.Time, lease time.Duration) (*classroom.LTIRevealJob, error) {
	j, err := s.LTIStore.ClaimLTIReveal(ctx, now, lease)
	if j != nil {
		s.mu.Lock()
		s.claims++
		s.mu.Unlock()
	}
	return j, err
}

func (s *revealWorkStore) EnqueueLTIItemScore(ctx context.Context, classID, learnerID int64, target string, item classroom.GradeItem) (int, error) {
	s.mu.Lock()
	fail := s.fail
	s.mu.Unlock()
	if fail {
		return 0, errors.New("the database refused the score")
	}
	return s.LTIStore.EnqueueLTIItemScore(ctx, classID, learnerID, target, item)
}

// syncBuffer is a log's output, written by the worker and read by the
// test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// testLTIRevealGivenUp: a reveal whose learners' standings cannot be
// queued is tried again with the scores' backoff and given up after as
// many tries as a score (12), said in the log at warning level, not
// tried every two minutes for ever. Once the teacher acts on the class
// again it is tried anew, and the course is queued the learner's 0.
func testLTIRevealGivenUp(t *testing.T, h Harness) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada")
	revealNum(t, s, cc.class.Code, cc.key)

	ws := &revealWorkStore{LTIStore: ls, fail: true}
	var log syncBuffer
	tool := lti.New(lti.Config{Store: ws, Now: clk.Now, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	defer tool.Close()
	// The first retry waits for the backoff, not the claim's end alone.
	passOn := func() int {
		t.Helper()
		n, err := tool.QueueReveals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	passOn()
	clk.Advance(10 * time.Second)
	passOn()
	if ws.claims != 1 {
		t.Errorf("the reveal was claimed %d times within 10 s of its failure; want 1 (the next try waits for the backoff)", ws.claims)
	}
	// A day of the worker's passes, an hour apart (the longest backoff).
	for range 24 {
		clk.Advance(time.Hour)
		passOn()
	}
	if ws.claims != 12 {
		t.Errorf("a reveal failing for a day was tried %d times; want 12, then given up", ws.claims)
	}
	if out := log.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "gave up queuing a reveal's scores") {
		t.Errorf("the log does not say the reveal was given up:\n%s", out)
	}
	if _, ok := queuedFor(t, ls, "sub-Ada"); ok {
		t.Fatal("Ada's score is queued though every queuing failed")
	}

	// The teacher acts on the class again (reveals the exercise once
	// more): the reveal is tried anew, and gets through.
	ws.mu.Lock()
	ws.fail = false
	ws.mu.Unlock()
	revealNum(t, s, cc.class.Code, cc.key)
	if n := passOn(); n != 1 {
		t.Errorf("after the teacher acted again the worker passed on %d reveals; want the one given up", n)
	}
	if j, ok := queuedFor(t, ls, "sub-Ada"); !ok || j.Given != 0 || j.Maximum != 1 {
		t.Errorf("Ada's score for the course after the retried reveal: %+v (queued %v); want 0 of 1", j, ok)
	}
}
