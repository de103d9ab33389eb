package classroom_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

func TestCleanName(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"  Ana  ", "Ana", ""},
		{"<script>alert(1)</script>", "<script>alert(1)</script>", ""},
		{strings.Repeat("ü", 40), strings.Repeat("ü", 40), ""},
		{"", "", "learner name: must not be empty"},
		{strings.Repeat("x", 41), "", "learner name: must be at most 40 characters (it has 41)"},
		{"a\x00b", "", "learner name: must not contain control characters"},
		{"a\u2028b", "", "learner name: must not contain control characters"},
		{"\xc3", "", "learner name: must be valid UTF-8"},
	} {
		got, err := classroom.CleanName("learner name", tc.in)
		if got != tc.want || !strings.HasPrefix(classroom.ErrorMessage(err), tc.err) || (tc.err == "") != (err == nil) {
			t.Errorf("CleanName(%q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
		if tc.err != "" && classroom.ErrorCode(err) != classroom.EINVALID {
			t.Errorf("CleanName(%q): code %q", tc.in, classroom.ErrorCode(err))
		}
	}
}

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
