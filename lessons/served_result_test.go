package lessons_test

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

// TestALearnersAnswerIsNotReadByFileKey: a kept answer naming options by
// their file keys is read as ever (a regrade reads what was kept), but a
// learner's answer is not: it is told what to write, and no try is used.
// Letters and served ids are read from both.
func TestALearnersAnswerIsNotReadByFileKey(t *testing.T) {
	ex, err := mustCatalog(t).Exercise("four-failures")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	keys := "option-a, option-b, option-c, option-d"
	if r, err := ex.Check(ctx, lessons.Attempt{Exercise: ex.ID, Answer: keys}); err != nil || !r.Correct {
		t.Fatalf("a kept answer by file keys: %+v, %v", r, err)
	}
	r, err := ex.Check(ctx, lessons.Attempt{Exercise: ex.ID, Answer: keys, FromLearner: true})
	if err != nil || r.Graded || !strings.Contains(r.FormatError, `"option-a" is not one of the options`) {
		t.Fatalf("a learner's answer by file keys: %+v, %v; want it not read", r, err)
	}
	var served []string
	for _, k := range []string{"a", "b", "c", "d"} {
		served = append(served, ex.PublicOptionID(k))
	}
	if r, err := ex.Check(ctx, lessons.Attempt{Exercise: ex.ID, Answer: strings.Join(served, ","), FromLearner: true}); err != nil || !r.Correct {
		t.Fatalf("a learner's answer by served ids: %+v, %v", r, err)
	}

	// What a learner is sent of a partly right answer.
	r, err = ex.Check(ctx, lessons.Attempt{Exercise: ex.ID, Answer: served[0] + "," + served[1], FromLearner: true})
	if err != nil || r.Mistake != "missed-c-d" || r.Read != "option-a, option-b" {
		t.Fatalf("two of four, as kept: %+v, %v", r, err)
	}
	sent := ex.ForLearner(r)
	if sent.Mistake != "" || sent.Read != served[0]+", "+served[1] || sent.Feedback != r.Feedback {
		t.Errorf("two of four, as sent: mistake %q, read %q", sent.Mistake, sent.Read)
	}
}
