package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// lastQueued is the score the platform is left with on a line item: the
// newest queued for it that no later one superseded and the queue did
// not give up on or withdraw.
func lastQueued(tb testing.TB, ls classroom.LTIStore, lineItem string) (classroom.LTIScoreJob, bool) {
	tb.Helper()
	jobs, err := ls.LTIScoreJobs(context.Background(), 1000)
	if err != nil {
		tb.Fatal(err)
	}
	for _, j := range jobs { // newest first
		if j.LineItemURL == lineItem && j.Outcome != "superseded" && j.Outcome != "failed" && j.Outcome != "withdrawn" {
			return j, true
		}
	}
	return classroom.LTIScoreJob{}, false
}

// testLTIStandingOvertaken: a learner's standing queued while another
// answer of theirs lands, and is queued, is the standing with that
// answer. The standing read before it, written after the answer's own,
// was the last score the course's gradebook got: 0 for an exercise the
// learner had right.
func testLTIStandingOvertaken(t *testing.T, h Harness) {
	ctx := context.Background()
	const lineItem = "https://lms.example.edu/li/ex"
	item := classroom.ItemOf("ex", []string{"ex"}, func(string) float64 { return 1 })
	var (
		s        classroom.Store
		ls       classroom.LTIStore
		r        *classroom.LTILaunchResult
		overtake atomic.Bool
	)
	s = h.MustNew(t, classroom.Options{Pause: func(point string) {
		if point != classroom.PauseQueueScore || !overtake.CompareAndSwap(true, false) {
			return
		}
		// The learner's right answer lands, and its standing is queued,
		// while the wrong answer's standing is on its way.
		mustRecord(t, s, r.Session.Token, classroom.Attempt{Exercise: "ex", Answer: "30", Correct: true, Graded: true})
		if _, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "exercise:ex", item); err != nil {
			t.Error(err)
		}
	}})
	ls = ltiStore(t, s)
	p := mustPlatform(t, ls)
	var err error
	r, err = ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: "u1", Name: "Ada",
		ResourceLinkID: "l", Target: "exercise:ex", LineItemURL: lineItem})
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, s, r.Session.Token, classroom.Attempt{Exercise: "ex", Answer: "20", Graded: true})
	overtake.Store(true)
	if _, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "exercise:ex", item); err != nil {
		t.Fatal(err)
	}
	if overtake.Load() {
		t.Fatal("the store never paused at PauseQueueScore")
	}
	if j, ok := lastQueued(t, ls, lineItem); !ok || j.Given != 1 {
		t.Errorf("the course's gradebook is left with %+v (queued: %v), want 1: the learner's right answer landed before the score was written", j, ok)
	}
}

// testLTIStandingAtOnce: a learner who answers a lesson's exercises at
// once (two tabs, a phone and a laptop) leaves the lesson's line item with
// their standing after all of them, however the answers and their queued
// standings interleave.
func testLTIStandingAtOnce(t *testing.T, h Harness) {
	ctx := context.Background()
	const lineItem = "https://lms.example.edu/li/lesson"
	const n = 8
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprint("ex-", i)
	}
	item := classroom.ItemOf("leases", ids, func(string) float64 { return 1 })
	s := h.MustNew(t, classroom.Options{})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	r, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: "u1", Name: "Ada",
		ResourceLinkID: "l", Target: "lesson:leases", LineItemURL: lineItem})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if _, err := s.Record(ctx, r.Session.Token, classroom.Attempt{Exercise: id, Answer: "1", Correct: true, Graded: true}); err != nil {
				t.Error(err)
				return
			}
			if _, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "lesson:leases", item); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if j, ok := lastQueued(t, ls, lineItem); !ok || j.Given != n || j.Maximum != n {
		t.Errorf("after %d right answers at once the lesson's line item is left with %+v (queued: %v), want %d of %d", n, j, ok, n, n)
	}
}

// testLTIStandingLocked: on a store shared by replicas, a queuing for a
// learner that starts while another has read their standing and not yet
// written it waits for that one, and then reads what it committed: the
// right answer that landed meanwhile is in the score queued last. The
// learner's launch row is what it waits on.
func testLTIStandingLocked(t *testing.T, h Harness) {
	if !h.Replicas {
		t.Skip("one writer at a time: SQLite's writes are serial")
	}
	ctx := context.Background()
	const lineItem = "https://lms.example.edu/li/ex"
	item := classroom.ItemOf("ex", []string{"ex"}, func(string) float64 { return 1 })
	var (
		s        classroom.Store
		ls       classroom.LTIStore
		r        *classroom.LTILaunchResult
		overtake atomic.Bool
		done     = make(chan error, 1)
	)
	s = h.MustNew(t, classroom.Options{Pause: func(point string) {
		if point != classroom.PauseQueueScoreRead || !overtake.CompareAndSwap(true, false) {
			return
		}
		// The right answer lands and its standing is queued while the
		// wrong answer's standing, read, waits to be written. This
		// returns once that queuing has finished or waits on a lock.
		go func() {
			if _, err := s.Record(ctx, r.Session.Token, classroom.Attempt{Exercise: "ex", Answer: "30", Correct: true, Graded: true}); err != nil {
				done <- err
				return
			}
			_, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "exercise:ex", item)
			done <- err
		}()
		db := s.(interface{ SQL() *sql.DB }).SQL()
		for {
			select {
			case err := <-done:
				done <- err
				return
			default:
			}
			var waiting int
			// Only this store's connections count: the server's other
			// databases, and other tests' schemas (each its own
			// application name, PostgresSchema), wait on locks of theirs.
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_stat_activity
				WHERE pid <> pg_backend_pid() AND datname = current_database()
				AND (current_setting('application_name') = '' OR application_name = current_setting('application_name'))
				AND wait_event_type = 'Lock' AND query LIKE '%lti_users%'`).Scan(&waiting); err != nil {
				t.Error(err)
				return
			}
			if waiting > 0 {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}})
	ls = ltiStore(t, s)
	p := mustPlatform(t, ls)
	var err error
	r, err = ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: "u1", Name: "Ada",
		ResourceLinkID: "l", Target: "exercise:ex", LineItemURL: lineItem})
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, s, r.Session.Token, classroom.Attempt{Exercise: "ex", Answer: "20", Graded: true})
	overtake.Store(true)
	if _, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "exercise:ex", item); err != nil {
		t.Fatal(err)
	}
	if overtake.Load() {
		t.Fatal("the store never paused at PauseQueueScoreRead")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if j, ok := lastQueued(t, ls, lineItem); !ok || j.Given != 1 {
		t.Errorf("the course's gradebook is left with %+v (queued: %v), want 1: the right answer's queuing ran beside the wrong one's", j, ok)
	}
}
