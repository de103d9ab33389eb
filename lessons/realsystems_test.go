package lessons_test

import (
	"testing"

	"github.com/leaselab/playground/lessons"
)

// TestRealSystemsLessonTeachesFromMistakes: the lesson on etcd, ZooKeeper
// and Chubby has at least five exercises, two predictions run on its
// presets and one scenario run on the learner's settings; each exercise
// names the mistake a learner is likely to make, gives a hint after a
// wrong try, and the ones with numbers vary them per variant.
func TestRealSystemsLessonTeachesFromMistakes(t *testing.T) {
	c := mustCatalog(t)
	l, err := c.Lesson("real-lock-systems")
	if err != nil {
		t.Fatal(err)
	}
	exs := c.LessonExercises(l)
	kinds := map[string]int{}
	for _, ex := range exs {
		kinds[ex.Kind]++
		if len(ex.HintsAfter(9, 0)) == 0 {
			t.Errorf("%s gives no hint after wrong tries", ex.ID)
		}
	}
	if len(exs) < 5 || kinds[lessons.KindPredict] < 2 || kinds[lessons.KindScenario] < 1 {
		t.Errorf("%d exercises (%v): want at least five, two predictions and one scenario", len(exs), kinds)
	}
	for _, tc := range []struct {
		id, answer, mistake string
		varies              bool
	}{
		{"etcd-revision-predict", "accepted", "option-b", false},
		{"zk-session-predict", "client-2 waits", "option-b", true},
		{"etcd-txn-predict", "42000", "stale-write-wins", true},
		{"lock-delay-setting", `{"lock.lock_delay": "0s"}`, "no-delay", true},
		{"lock-delay-pause", "9 s", "forgot-lock-delay", true},
		{"stale-read-paths", "linearizable read", "option-c", false},
		{"disk-loss-fencing", "longer lease", "option-d", false},
	} {
		ex, err := c.Exercise(tc.id)
		if err != nil || ex.Lesson != l.Slug {
			t.Errorf("%s is not in the lesson: %v", tc.id, err)
			continue
		}
		if ex.Varies() != tc.varies {
			t.Errorf("%s: varies = %v, want %v", tc.id, ex.Varies(), tc.varies)
		}
		r := check(t, c, tc.id, tc.answer)
		if r.Correct || r.Mistake != tc.mistake {
			t.Errorf("%s answered %q: correct %v, mistake %q, want %q (%s)", tc.id, tc.answer, r.Correct, r.Mistake, tc.mistake, r.Feedback)
		}
	}
}
