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

// standingRace is a learner launched into a graded link that opens the
// exercise "ex" (lineItem), whose wrong answer's standing is being queued
// when another answer of theirs lands (queueOvertaken).
type standingRace struct {
	s    classroom.Store
	ls   classroom.LTIStore
	r    *classroom.LTILaunchResult
	item classroom.GradeItem
}

// rightAnswer lands the learner's right answer and queues its standing.
func (race *standingRace) rightAnswer(ctx context.Context) error {
	if _, err := race.s.Record(ctx, race.r.Session.Token, classroom.Attempt{Exercise: "ex", Answer: "30", Correct: true, Graded: true}); err != nil {
		return err
	}
	_, err := race.ls.EnqueueLTIItemScore(ctx, race.r.Class.ID, race.r.Session.Learner.ID, "exercise:ex", race.item)
	return err
}

// queueOvertaken launches the learner, lands their wrong answer and
// queues its standing, running overtake once when that queuing reaches
// the store's pause point.
func queueOvertaken(t *testing.T, h Harness, lineItem, point string, overtake func(*standingRace)) *standingRace {
	t.Helper()
	ctx := context.Background()
	race := &standingRace{item: classroom.ItemOf("ex", []string{"ex"}, func(string) float64 { return 1 })}
	var armed atomic.Bool
	race.s = h.MustNew(t, classroom.Options{Pause: func(at string) {
		if at == point && armed.CompareAndSwap(true, false) {
			overtake(race)
		}
	}})
	race.ls = ltiStore(t, race.s)
	p := mustPlatform(t, race.ls)
	var err error
	race.r, err = race.ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: "u1", Name: "Ada",
		ResourceLinkID: "l", Target: "exercise:ex", LineItemURL: lineItem})
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, race.s, race.r.Session.Token, classroom.Attempt{Exercise: "ex", Answer: "20", Graded: true})
	armed.Store(true)
	if _, err := race.ls.EnqueueLTIItemScore(ctx, race.r.Class.ID, race.r.Session.Learner.ID, "exercise:ex", race.item); err != nil {
		t.Fatal(err)
	}
	if armed.Load() {
		t.Fatalf("the store never paused at %s", point)
	}
	return race
}

// testLTIStandingOvertaken: a learner's standing queued while another
// answer of theirs lands, and is queued, is the standing with that
// answer. The standing read before it, written after the answer's own,
// was the last score the course's gradebook got: 0 for an exercise the
// learner had right.
func testLTIStandingOvertaken(t *testing.T, h Harness) {
	ctx := context.Background()
	const lineItem = "https://lms.example.edu/li/ex"
	race := queueOvertaken(t, h, lineItem, classroom.PauseQueueScore, func(race *standingRace) {
		// The learner's right answer lands, and its standing is queued,
		// while the wrong answer's standing is on its way.
		if err := race.rightAnswer(ctx); err != nil {
			t.Error(err)
		}
	})
	if j, ok := lastQueued(t, race.ls, lineItem); !ok || j.Given != 1 {
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
	done := make(chan error, 1)
	race := queueOvertaken(t, h, lineItem, classroom.PauseQueueScoreRead, func(race *standingRace) {
		// The right answer lands and its standing is queued while the
		// wrong answer's standing, read, waits to be written. This
		// returns once that queuing has finished or waits on a lock.
		go func() { done <- race.rightAnswer(ctx) }()
		db := race.s.(interface{ SQL() *sql.DB }).SQL()
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
	})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if j, ok := lastQueued(t, race.ls, lineItem); !ok || j.Given != 1 {
		t.Errorf("the course's gradebook is left with %+v (queued: %v), want 1: the right answer's queuing ran beside the wrong one's", j, ok)
	}
}
