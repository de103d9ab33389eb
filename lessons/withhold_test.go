package lessons_test

import (
	"context"
	"testing"

	"github.com/leaselab/playground/lessons"
)

// TestWithholdKeepsTheAnswerBack: a check with Withhold (a class in quiz
// mode) gives its verdict and hints but never the answer: not at the
// third wrong try, not after the answer was earned, not for a right
// answer, not the model answer of an open one.
func TestWithholdKeepsTheAnswerBack(t *testing.T) {
	c := mustCatalog(t)
	ctx := context.Background()
	for _, a := range []lessons.Attempt{
		{Exercise: "outlive-lease", Answer: "1", Tries: lessons.RevealAfter - 1},
		{Exercise: "outlive-lease", Answer: "1", Earned: true},
		{Exercise: "redlock-pause", Answer: "option-b"},
		{Exercise: "sms-twice", Answer: "Give each reminder an idempotency key the provider keeps."},
	} {
		a.Withhold = true
		r, err := c.CheckAttempt(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if r.Revealed || r.Expected != "" || r.Solution != "" || r.SolutionHTML != "" || r.ModelAnswer != "" || len(r.Rubric) != 0 || r.Timeline != nil {
			t.Errorf("%s %q withheld: %+v", a.Exercise, a.Answer, r)
		}
		if a.Exercise == "outlive-lease" && (r.Correct || len(r.Hints) == 0) {
			t.Errorf("%s %q withheld: the verdict or the hints are gone: %+v", a.Exercise, a.Answer, r)
		}
	}
}
