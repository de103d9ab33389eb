package lessons_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

func mustCatalog(tb testing.TB) *lessons.Catalog {
	tb.Helper()
	c, err := lessons.Default()
	if err != nil {
		tb.Fatalf("the embedded lessons do not load: %v", err)
	}
	return c
}

func check(tb testing.TB, c *lessons.Catalog, id, answer string) lessons.Result {
	tb.Helper()
	r, err := c.Check(context.Background(), id, answer, 0)
	if err != nil {
		tb.Fatalf("Check(%s, %q): %v", id, answer, err)
	}
	return r
}

// TestNotesAnswersPass checks every required exercise's variant 0 with the
// answers the notes give, typed the way a learner might.
func TestNotesAnswersPass(t *testing.T) {
	c := mustCatalog(t)
	tests := []struct{ id, answer string }{
		{"outlive-lease", "50"},
		{"outlive-lease", "50 runs"},
		{"crash-wait", "45x"},
		{"crash-wait", "45 times"},
		{"crash-wait-long", "15 min"},
		{"crash-wait-long", "900 s"},
		{"failover-grants", "0.8"},
		{"lock-writes-per-second", "2,000"},
		{"lock-writes-per-second", "2000 writes/s"},
		{"nightly-total-predict", "Rs 42,000"},
		{"stale-token-write", "refused, 0 rows"},
		{"stale-token-write", "option-b"},
		{"renew-faster", "option-b"},
		{"four-failures", "option-a, option-b, option-c, option-d"},
		{"four-failures", "pause, late message, clocks, failover"},
		{"duplicate-token-backend", `{"lock.backend":"async-replica","lock.replication_lag":"400ms"}`},
		{"long-job-config", `{"lock.lease":"30s","clients[client-1].renew_every":"10s"}`},
		{"make-stale-write-land", `{"fencing":false,"faults[0].for":"15s"}`},
		{"save-work-or-protect-data", "option-b, option-d"},
		{"majority-size", "2"},
		{"redlock-pause", "option-b"},
		{"flash-sale-statement", "option-b"},
		{"raft-failover-predict", "option-c"},
		{"raft-failover-predict", "client-2 waits"},
		{"sms-once", `{"clients[client-1].steps[2].idempotency_key":"reminder-7","clients[client-2].steps[1].idempotency_key":"reminder-7"}`},
	}
	for _, tt := range tests {
		r := check(t, c, tt.id, tt.answer)
		if !r.Correct || r.FormatError != "" {
			t.Errorf("%s: %q graded wrong: %+v", tt.id, tt.answer, r)
			continue
		}
		if r.Solution == "" {
			t.Errorf("%s: a correct answer shows no worked solution", tt.id)
		}
	}
}

// TestCommonMistakesGetTheirFeedback checks the named wrong answers: each
// fails and says what went wrong.
func TestCommonMistakesGetTheirFeedback(t *testing.T) {
	c := mustCatalog(t)
	tests := []struct{ id, answer, feedback string }{
		{"outlive-lease", "4,950", "finish in time"},
		{"outlive-lease", "1", "not a number of runs"},
		{"crash-wait", "0.022", "upside down"},
		{"crash-wait", "0.75", "minutes by seconds"},
		{"crash-wait", "900", "long wait itself"},
		{"failover-grants", "5", "Dividing"},
		{"lock-writes-per-second", "1,000", "jobs a second"},
		{"lock-writes-per-second", "120000", "writes a minute"},
		{"nightly-total-predict", "Rs 45,000", "should be"},
		{"nightly-total-predict", "43000", "not the last write"},
		{"stale-token-write", "accepted", "put the row's fence into the WHERE clause"},
		{"stale-token-write", "option-d", "refused every time"},
		{"renew-faster", "option-a", "runs nothing, renewals included"},
		{"four-failures", "option-a, option-b, option-c, option-e", "fencing at work"},
		{"four-failures", "option-a, option-b", "2 of the 4"},
		{"duplicate-token-backend", `{"lock.nodes":5}`, "a majority has stored the grant"},
		{"duplicate-token-backend", `{"lock.backend":"async-replica"}`, "inside the lag"},
		{"majority-size", "3", "size of a majority"},
		{"raft-failover-predict", "option-a", "stored by a majority"},
		{"raft-failover-predict", "option-b", "refuses client-2"},
		{"sms-once", `{"fencing":false}`, "checks no token"},
		{"sms-once", `{"lock.lease":"30s"}`, "only changes the order"},
		{"sms-once", `{"clients[client-1].steps[2].idempotency_key":"attempt-1","clients[client-2].steps[1].idempotency_key":"attempt-2"}`, "not from the sender or the attempt"},
	}
	for _, tt := range tests {
		r := check(t, c, tt.id, tt.answer)
		if r.Correct || r.FormatError != "" {
			t.Errorf("%s: %q should be graded wrong: %+v", tt.id, tt.answer, r)
			continue
		}
		if !strings.Contains(r.Feedback, tt.feedback) {
			t.Errorf("%s: %q: feedback %q does not mention %q", tt.id, tt.answer, r.Feedback, tt.feedback)
		}
		if r.Solution != "" || r.Expected != "" && r.Timeline == nil {
			t.Errorf("%s: a wrong answer gives the solution away: %+v", tt.id, r)
		}
	}
}

func TestUnreadableAnswersCostNoTry(t *testing.T) {
	c := mustCatalog(t)
	for _, tt := range []struct{ id, answer string }{
		{"outlive-lease", "forty"},
		{"outlive-lease", "50 s"},
		{"four-failures", "z"},
		{"duplicate-token-backend", `{"lock.backend":"redlock"}`},
		{"duplicate-token-backend", `{"fencing":false}`},
		{"long-job-config", "lease 30s please"},
		{"long-job-config", `{"lock.backend":"single"}`},
		{"long-job-config", `{"lock.lease":"-5s"}`},
		{"nightly-total-predict", "a lot"},
		{"sms-twice", "idk"},
	} {
		r := check(t, c, tt.id, tt.answer)
		if r.FormatError == "" || r.Correct {
			t.Errorf("%s: %q: want a format message, got %+v", tt.id, tt.answer, r)
		}
		if r.Graded {
			t.Errorf("%s: %q: an unreadable answer is reported as graded", tt.id, tt.answer)
		}
		if r.Timeline != nil {
			t.Errorf("%s: %q: an unreadable prediction ran the engine", tt.id, tt.answer)
		}
		if len(r.Hints) > 0 {
			t.Errorf("%s: %q: an unreadable answer unlocked hints", tt.id, tt.answer)
		}
	}
	r := check(t, c, "long-job-config", `{"lock.backend":"single"}`)
	if !strings.Contains(r.FormatError, "lock.lease") {
		t.Errorf("the format message does not say which fields may be set: %q", r.FormatError)
	}
	r = check(t, c, "long-job-config", `{"lock.lease":"-5s"}`)
	if !strings.Contains(r.FormatError, "lock.lease") {
		t.Errorf("an engine validation error does not name the field: %q", r.FormatError)
	}
}

func TestHintsUnlockAfterWrongTries(t *testing.T) {
	c := mustCatalog(t)
	first, err := c.CheckAttempt(context.Background(), lessons.Attempt{Exercise: "crash-wait", Answer: "7", Tries: 0})
	if err != nil {
		t.Fatal(err)
	}
	third, err := c.CheckAttempt(context.Background(), lessons.Attempt{Exercise: "crash-wait", Answer: "7", Tries: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Hints) != 1 || len(third.Hints) != 2 {
		t.Errorf("hints after 1 and 3 wrong tries: %d and %d, want 1 and 2", len(first.Hints), len(third.Hints))
	}
	if !strings.Contains(third.Hints[1], "15 minutes is 900 seconds") {
		t.Errorf("the second hint does not carry the variant's numbers: %q", third.Hints[1])
	}
}

// TestTextAnswersAreSubmittedNeverMarked: an open answer is taken as it
// is, keywords and all; it is never marked right, and the learner gets
// the model answer and the rubric to compare with.
func TestTextAnswersAreSubmittedNeverMarked(t *testing.T) {
	c := mustCatalog(t)
	for _, answer := range []string{
		"Give each reminder an idempotency key so the provider drops repeats.",
		"banana idempotency key fencing cannot check conditional claim accept rare double",
	} {
		r := check(t, c, "sms-twice", answer)
		if r.Graded || r.Correct || !r.Submitted || r.FormatError != "" {
			t.Errorf("%q: want submitted and ungraded, got %+v", answer, r)
		}
		if r.ModelAnswer == "" || len(r.Rubric) < 3 || !r.Revealed {
			t.Fatalf("no model answer or rubric after submitting: %+v", r)
		}
		if r.Read != answer {
			t.Errorf("the answer kept is %q, want it as typed", r.Read)
		}
	}
}

func TestVariantsGiveDifferentNumbersAndConsistentAnswers(t *testing.T) {
	c := mustCatalog(t)
	ex, err := c.Exercise("outlive-lease")
	if err != nil {
		t.Fatal(err)
	}
	p0, _ := ex.Serve(0, lessons.Standing{})
	if !strings.Contains(p0.PromptText, "5,000 runs") || !strings.Contains(p0.PromptText, "20 s") {
		t.Errorf("variant 0 does not use the notes' numbers: %s", p0.PromptText)
	}
	differs := false
	for v := 1; v <= 20; v++ {
		p, err := ex.Serve(v, lessons.Standing{})
		if err != nil {
			t.Fatal(err)
		}
		again, _ := ex.Serve(v, lessons.Standing{})
		if again.PromptText != p.PromptText {
			t.Fatalf("variant %d is not stable", v)
		}
		differs = differs || p.PromptText != p0.PromptText
	}
	if !differs {
		t.Error("20 variants all show the same numbers as variant 0")
	}
}

func TestBadRequestsAreInputErrors(t *testing.T) {
	c := mustCatalog(t)
	ctx := context.Background()
	var ie *lessons.InputError
	if _, err := c.Check(ctx, "outlive-lease", strings.Repeat("5", lessons.MaxAnswerLen+1), 0); !errors.As(err, &ie) || !strings.Contains(err.Error(), "at most") {
		t.Errorf("an over-long answer: %v, want an InputError naming the limit", err)
	}
	for _, v := range []int{-1, lessons.MaxVariant + 1} {
		if _, err := c.Check(ctx, "outlive-lease", "50", v); !errors.As(err, &ie) {
			t.Errorf("variant %d: %v, want an InputError", v, err)
		}
	}
	if _, err := c.Check(ctx, "no-such-exercise", "50", 0); !errors.Is(err, lessons.ErrUnknown) {
		t.Errorf("an unknown exercise: %v, want ErrUnknown", err)
	}
}

func TestVariantForIsStableAndNeverTheNotes(t *testing.T) {
	a, b := lessons.VariantFor("class-7/asha"), lessons.VariantFor("class-7/ravi")
	if a != lessons.VariantFor("class-7/asha") {
		t.Error("the same learner got two variants")
	}
	if a == b {
		t.Error("two learners got the same variant")
	}
	for _, v := range []int{a, b, lessons.VariantFor("")} {
		if v < 1 || v > lessons.MaxVariant {
			t.Errorf("variant %d is out of 1..%d", v, lessons.MaxVariant)
		}
	}
}
