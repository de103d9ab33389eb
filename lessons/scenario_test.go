package lessons_test

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
)

// TestScenarioAnswersAreGradedByRealRuns runs learners' settings through
// the engine: settings that work pass every run; settings that fail are
// shown the shortest failing timeline.
func TestScenarioAnswersAreGradedByRealRuns(t *testing.T) {
	c := mustCatalog(t)

	good := check(t, c, "long-job-config", `{"lock.lease":"30s","clients[client-1].renew_every":"10s"}`)
	if !good.Correct || len(good.Runs) != 4 {
		t.Fatalf("lease 30 s renewed every 10 s should pass all 4 runs: %+v", good.Runs)
	}

	// A lease longer than the job needs no renewal but blocks too long
	// after a crash: both crash runs fail, the healthy one passes.
	long := check(t, c, "long-job-config", `{"lock.lease":"120s"}`)
	if long.Correct {
		t.Fatal("a 120 s lease passed although a crash then blocks the lock for 120 s")
	}
	passed := map[string]bool{}
	for _, r := range long.Runs {
		passed[r.Name] = r.Passed
	}
	if !passed["healthy"] || passed["crash at 46 s"] || passed["crash at 86 s"] {
		t.Errorf("runs of a 120 s lease: %v, want only healthy to pass", passed)
	}
	if !strings.Contains(long.Feedback, "crash then blocks the lock") || !strings.Contains(long.Feedback, "the lock was blocked for 74 s after the crash") || strings.Contains(long.Feedback, "_ms") {
		t.Errorf("feedback does not explain the failure with its measure: %q", long.Feedback)
	}
	tl := long.Timeline
	if tl == nil || !strings.HasPrefix(tl.Name, "crash at") {
		t.Fatalf("no failing timeline shown: %+v", tl)
	}
	for _, r := range long.Runs {
		if !r.Passed && r.Events < len(tl.Events) {
			t.Errorf("the timeline shown has %d events but the failing run %q has %d: not the shortest", len(tl.Events), r.Name, r.Events)
		}
	}
	if !hasEvent(tl.Events, engine.KindCrashed, "client-1") {
		t.Error("the failing timeline does not show client-1's crash")
	}

	// No renewal: the healthy job loses its lock at 30 s.
	none := check(t, c, "long-job-config", `{"lock.lease":"30s"}`)
	if none.Correct || none.Timeline == nil || none.Timeline.Name != "healthy" {
		t.Errorf("a 30 s lease without renewal should fail the healthy run: %+v", none.Runs)
	}
	if !hasEvent(none.Timeline.Events, engine.KindGranted, "client-2") {
		t.Error("the healthy run's timeline does not show client-2 becoming a second holder")
	}
}

func TestMakeStaleWriteLand(t *testing.T) {
	c := mustCatalog(t)
	land := check(t, c, "make-stale-write-land", `{"fencing":false,"faults[0].for":"15s"}`)
	if !land.Correct {
		t.Fatalf("fencing off and a 15 s pause should land a stale write: %s", land.Feedback)
	}
	if land.Runs[0].Summary.StaleWritesAccepted != 1 || land.Runs[1].Summary.WritesRefused != 1 {
		t.Errorf("want one stale write landed, then refused with fencing on: %+v", land.Runs)
	}
	// The longest pause the fields allow still ends inside the run, so its
	// late write is there to be graded.
	longest := check(t, c, "make-stale-write-land", `{"fencing":false,"faults[0].for":"60s"}`)
	if !longest.Correct || longest.Runs[0].Summary.StaleWritesAccepted != 1 {
		t.Errorf("a 60 s pause: %s", longest.Feedback)
	}
	// Beyond the range is asked back, not graded.
	if r := check(t, c, "make-stale-write-land", `{"fencing":false,"faults[0].for":"90s"}`); r.FormatError == "" || !strings.Contains(r.FormatError, "from 100ms to 60s") {
		t.Errorf("a pause beyond the range: %+v", r)
	}
	for answer, why := range map[string]string{
		`{"fencing":false}`:       "2 s pause",
		`{"faults[0].for":"15s"}`: "fencing is still on",
	} {
		r := check(t, c, "make-stale-write-land", answer)
		if r.Correct || !strings.Contains(r.Feedback, why) {
			t.Errorf("%s: correct=%v feedback %q, want a failure mentioning %q", answer, r.Correct, r.Feedback, why)
		}
	}
}

// TestDuplicateTokenBackend: an asynchronous copy that lags behind the
// crash, or a single server that restarts from an older save, hands the
// same token to two clients, and then fencing, on the whole time, lets the
// stale write through. A server that saves before answering does not.
func TestDuplicateTokenBackend(t *testing.T) {
	c := mustCatalog(t)
	r := check(t, c, "duplicate-token-backend", `{"lock.backend":"async-replica","lock.replication_lag":"400ms"}`)
	if !r.Correct || r.Timeline == nil {
		t.Fatalf("an async replica with a 400 ms lag should hand out token 33 twice: %s", r.Feedback)
	}
	if !r.Timeline.Scenario.Fencing || r.Timeline.Summary.DuplicateTokens != 1 || r.Timeline.Summary.StaleWritesAccepted != 1 {
		t.Errorf("want fencing on, one duplicate token and one stale write: %+v", r.Timeline.Summary)
	}
	holders := map[string]bool{}
	for _, e := range r.Timeline.Events {
		if e.Kind == engine.KindGranted && e.Token == 33 {
			holders[e.Actor] = true
		}
	}
	if !holders["client-1"] || !holders["client-2"] {
		t.Errorf("token 33 was granted to %v, want both clients", holders)
	}
	if r := check(t, c, "duplicate-token-backend", `{"lock.backend":"single","lock.persist_every":"1s"}`); !r.Correct || r.Timeline.Summary.DuplicateTokens != 1 {
		t.Errorf("a single server restarting from a save before the grant: %s", r.Feedback)
	}
	if r := check(t, c, "duplicate-token-backend", `{"lock.backend":"single"}`); r.Correct || r.Mistake != "single-saves-everything" {
		t.Errorf("a single server that saves every change: %+v", r)
	}
	// The starting point, a Raft group, is safe: the answer must change it.
	if r := check(t, c, "duplicate-token-backend", `{}`); r.Correct || r.Timeline.Summary.DuplicateTokens != 0 {
		t.Errorf("the Raft group handed out a token twice: %+v", r.Runs)
	}
	if r := check(t, c, "duplicate-token-backend", `{"lock.backend":"async-replica","lock.replication_lag":"100ms"}`); r.Correct || !strings.Contains(r.Feedback, "before the crash") {
		t.Errorf("a copy that arrives before the crash passed, or got no feedback: %q", r.Feedback)
	}
}

func TestPredictionIsGradedAgainstTheRun(t *testing.T) {
	c := mustCatalog(t)
	r := check(t, c, "nightly-total-predict", "45000")
	if r.Correct || !r.Graded {
		t.Fatal("the true total (45,000) was accepted as the prediction; the run ends at 42,000")
	}
	right := check(t, c, "nightly-total-predict", "Rs 42,000")
	if !right.Correct || right.Expected != "Rs 42,000" || right.Timeline == nil || right.Timeline.Summary.FinalValue != 42000 {
		t.Fatalf("the real outcome is not shown after a right prediction: expected %q, timeline %v", right.Expected, right.Timeline != nil)
	}
	if !hasEvent(right.Timeline.Events, engine.KindWriteAccepted, "storage") {
		t.Error("the timeline does not show the writes")
	}
	// Another variant: the prediction follows that variant's numbers.
	ex, _ := c.Exercise("nightly-total-predict")
	p, _ := ex.Serve(3, lessons.Standing{})
	if p.PromptText == "" || strings.Contains(p.PromptText, "{") {
		t.Fatalf("variant 3 prompt: %q", p.PromptText)
	}
}

// TestWrongPredictionKeepsTheRunToItself: a wrong prediction is told it
// is wrong and why, never what the run gave, until the third wrong try
// or "show me"; then the value, the run and the solution come at once.
func TestWrongPredictionKeepsTheRunToItself(t *testing.T) {
	c := mustCatalog(t)
	ctx := context.Background()
	for _, tt := range []struct{ id, wrong, value string }{
		{"nightly-total-predict", "Rs 45,000", "42,000"},
		{"nightly-total-predict", "Rs 41,000", "42,000"},
		{"stale-token-write", "a", "0 rows"},
		{"raft-failover-predict", "a", "token 34"},
		{"renew-faster", "a", "stale"},
	} {
		for tries := 0; tries < lessons.RevealAfter; tries++ {
			r, err := c.CheckAttempt(ctx, lessons.Attempt{Exercise: tt.id, Answer: tt.wrong, Tries: tries})
			if err != nil {
				t.Fatal(err)
			}
			if r.Correct || r.Feedback == "" {
				t.Fatalf("%s %q: %+v", tt.id, tt.wrong, r)
			}
			earned := tries+1 >= lessons.RevealAfter
			if r.Revealed != earned {
				t.Errorf("%s %q after %d tries: revealed %v, want %v", tt.id, tt.wrong, tries, r.Revealed, earned)
			}
			if !earned && (r.Timeline != nil || r.Expected != "" || r.Solution != "" || strings.Contains(r.Feedback, "The run gave")) {
				t.Errorf("%s %q on try %d shows the run: expected %q, timeline %v, feedback %q", tt.id, tt.wrong, tries+1, r.Expected, r.Timeline != nil, r.Feedback)
			}
			if earned && (r.Timeline == nil || r.Expected == "" || r.Solution == "") {
				t.Errorf("%s: the third wrong try does not show the run and the solution: %+v", tt.id, r)
			}
		}
		ex, _ := c.Exercise(tt.id)
		shown, err := ex.Reveal(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !shown.Revealed || shown.Timeline == nil || shown.Expected == "" || shown.SolutionHTML == "" {
			t.Errorf("%s: show me gives %+v", tt.id, shown)
		}
	}
}

func hasEvent(events []engine.Event, kind, actor string) bool {
	for _, e := range events {
		if e.Kind == kind && e.Actor == actor {
			return true
		}
	}
	return false
}

// TestRenewalNeedsRoomForALateMessage: renewing every half lease keeps a
// healthy job's lock only while every renewal is on time.
func TestRenewalNeedsRoomForALateMessage(t *testing.T) {
	c := mustCatalog(t)
	r := check(t, c, "long-job-config", `{"lock.lease":"30s","clients[client-1].renew_every":"15s"}`)
	if r.Correct {
		t.Fatal("renewing every 15 s under a 30 s lease passed although a 17 s late renewal loses the lease")
	}
	if r.Timeline.Name != "a renewal 17 s late" || !strings.Contains(r.Feedback, "half lease") {
		t.Errorf("failing run %q, feedback %q", r.Timeline.Name, r.Feedback)
	}
	if !hasEvent(r.Timeline.Events, engine.KindDelayed, "client-1") {
		t.Error("the failing timeline does not show the late renewal")
	}
}

// TestPredictionRunsAreReused: the same variant's run is kept, and a
// different variant gets its own.
func TestPredictionRunsAreReused(t *testing.T) {
	c := mustCatalog(t)
	a := check(t, c, "nightly-total-predict", "Rs 42,000")
	b, err := c.CheckAttempt(context.Background(), lessons.Attempt{Exercise: "nightly-total-predict", Answer: "Rs 1", Tries: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.Timeline != b.Timeline {
		t.Error("the same variant ran the engine twice")
	}
	other, err := c.CheckAttempt(context.Background(), lessons.Attempt{Exercise: "nightly-total-predict", Answer: "Rs 1", Variant: 3, Tries: 2})
	if err != nil {
		t.Fatal(err)
	}
	if other.Timeline == a.Timeline || other.Timeline.Summary.FinalValue == a.Timeline.Summary.FinalValue {
		t.Errorf("variant 3 reused variant 0's run (final %d)", other.Timeline.Summary.FinalValue)
	}
}

// TestSMSOnceNeedsOneKeyOnBothSends: the same idempotency key on both sends
// passes both pauses, and the timeline shows the provider dropping the
// repeat; a key on one send only still sends twice.
func TestSMSOnceNeedsOneKeyOnBothSends(t *testing.T) {
	c := mustCatalog(t)
	r := check(t, c, "sms-once", `{"clients[client-1].steps[2].idempotency_key":"reminder-order-7","clients[client-2].steps[1].idempotency_key":"reminder-order-7"}`)
	if !r.Correct || len(r.Runs) != 2 {
		t.Fatalf("the same key on both sends should pass both pauses: %s", r.Feedback)
	}
	if !hasEvent(r.Timeline.Events, engine.KindSMSDropped, "sms") {
		t.Error("the timeline does not show the provider dropping the repeat")
	}
	one := check(t, c, "sms-once", `{"clients[client-1].steps[2].idempotency_key":"reminder-order-7"}`)
	if one.Correct || !strings.Contains(one.Feedback, "Only one send carries the key") || one.Timeline.Summary.SideEffects != 2 {
		t.Errorf("a key on one send passed, or got no feedback: %q", one.Feedback)
	}
}

// TestScenarioFormsTakeTheirOwnWords: the words a form's hints and ranges
// use are taken as they are typed: on/off, yes/no for a switch; "400 ms",
// "15 s", "0.4" (seconds), "2 minutes" for a duration; a backend name in
// any case, with a space for its dash; "5 nodes".
func TestScenarioFormsTakeTheirOwnWords(t *testing.T) {
	c := mustCatalog(t)
	for _, tc := range []struct{ id, answer string }{
		{"make-stale-write-land", `{"fencing":"off","faults[0].for":"15 s"}`},
		{"make-stale-write-land", `{"fencing":"no","faults[0].for":15}`},
		{"make-stale-write-land", `{"fencing":"OFF","faults[0].for":"15 seconds"}`},
		{"duplicate-token-backend", `{"lock.backend":"Async-Replica","lock.replication_lag":"400 ms"}`},
		{"duplicate-token-backend", `{"lock.backend":"async replica","lock.replication_lag":"0.4"}`},
		{"duplicate-token-backend", `{"lock.backend":"ASYNC-REPLICA","lock.replication_lag":0.4}`},
		{"long-job-config", `{"lock.lease":"30 s","clients[client-1].renew_every":"10 sec"}`},
		{"sms-once", `{"fencing":"on","clients[client-1].steps[2].idempotency_key":"reminder-7","clients[client-2].steps[1].idempotency_key":"reminder-7"}`},
	} {
		r := check(t, c, tc.id, tc.answer)
		if r.FormatError != "" || !r.Correct {
			t.Errorf("%s %s: %q %s", tc.id, tc.answer, r.FormatError, r.Feedback)
		}
	}
	// What is still not a value is refused, naming the field and the range.
	r := check(t, c, "make-stale-write-land", `{"fencing":"maybe"}`)
	if !strings.Contains(r.FormatError, "fencing") || !strings.Contains(r.FormatError, "on or off") {
		t.Errorf("fencing maybe: %q", r.FormatError)
	}
}
