package lessons_test

import (
	"testing"

	"github.com/leaselab/playground/lessons"
)

// TestAnswerKeyIsTheOpenExercisesOwn: every open exercise gives the
// teacher the same model answer and rubric its learners see after
// submitting; exercises the checker grades have none to give.
func TestAnswerKeyIsTheOpenExercisesOwn(t *testing.T) {
	c := mustCatalog(t)
	open := 0
	for _, ex := range c.Exercises() {
		model, rubric := ex.AnswerKey()
		if ex.Kind != lessons.KindText {
			if model != "" || rubric != nil {
				t.Errorf("%s (%s) has an answer key; only open exercises are marked by hand", ex.ID, ex.Kind)
			}
			continue
		}
		open++
		r := check(t, c, ex.ID, "A lease ends on time whatever the holder does, so fencing must refuse the late write.")
		if model == "" || len(rubric) == 0 || model != r.ModelAnswer || len(rubric) != len(r.Rubric) {
			t.Errorf("%s: the key (%d rubric points) is not what a learner sees after submitting (%d points)", ex.ID, len(rubric), len(r.Rubric))
		}
	}
	if open == 0 {
		t.Fatal("no open exercises in the catalog")
	}
}
