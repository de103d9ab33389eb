package classroom_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

func TestCheckAttempt(t *testing.T) {
	a := classroom.Attempt{Exercise: "ex", Answer: "1", Feedback: strings.Repeat("é", classroom.MaxFeedbackLen)}
	if err := classroom.CheckAttempt(&a); err != nil {
		t.Fatal(err)
	}
	if len(a.Feedback) > classroom.MaxFeedbackLen || !strings.HasPrefix(strings.Repeat("é", classroom.MaxFeedbackLen), a.Feedback) {
		t.Fatalf("feedback cut to %d bytes, or cut inside a character", len(a.Feedback))
	}
	for _, bad := range []classroom.Attempt{
		{Answer: "1"},
		{Exercise: strings.Repeat("e", classroom.MaxExerciseLen+1)},
		{Exercise: "ex", Variant: -1},
		{Exercise: "ex", Answer: "\xff"},
		{Exercise: "ex", Correct: true},
	} {
		if err := classroom.CheckAttempt(&bad); classroom.ErrorCode(err) != classroom.EINVALID {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestCheckAttemptRule: an attempt names a known credit rule or none.
func TestCheckAttemptRule(t *testing.T) {
	if err := classroom.CheckAttempt(&classroom.Attempt{Exercise: "x", Graded: true, Rule: classroom.RulePartial}); err != nil {
		t.Errorf("a known rule: %v", err)
	}
	err := classroom.CheckAttempt(&classroom.Attempt{Exercise: "x", Graded: true, Rule: "generous"})
	if classroom.ErrorCode(err) != classroom.EINVALID || !strings.Contains(classroom.ErrorMessage(err), "rule") {
		t.Errorf("an unknown rule: %v", err)
	}
}
