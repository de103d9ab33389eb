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
