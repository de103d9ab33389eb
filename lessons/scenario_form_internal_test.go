package lessons

import (
	"context"
	"encoding/json"
	"testing"
)

// formAnswer is what a lesson page's scenario form sends: every field at
// the value the form started it with, the learner's own settings over
// them, cleared fields sent empty.
func formAnswer(t *testing.T, ex *Exercise, variant int, own map[string]string) string {
	t.Helper()
	s, err := ex.Serve(variant, Standing{})
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]string{}
	for _, f := range s.Fields {
		obj[f.Path] = f.Default
	}
	for k, v := range own {
		obj[k] = v
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNamedMistakesReadTheFormAsSent: a known wrong scenario answer gets
// its own feedback when it comes from the page's form, which sends every
// field, the untouched ones at their starting values, and not only when
// it is typed as the bare changes.
func TestNamedMistakesReadTheFormAsSent(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, ex := range c.Exercises() {
		if ex.Kind != KindScenario {
			continue
		}
		for v := 0; v < 2; v++ {
			env, err := ex.params(v)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range ex.wrong {
				own, err := ex.parseSettings(fill(w.Answer, env))
				if err != nil {
					t.Fatalf("%s: wrong answer %s: %v", ex.ID, w.Name, err)
				}
				answer := formAnswer(t, ex, v, own)
				r, err := ex.Check(context.Background(), Attempt{Exercise: ex.ID, Answer: answer, Variant: v})
				if err != nil {
					t.Fatal(err)
				}
				if r.Mistake != w.Name {
					t.Errorf("%s variant %d: the form's %s is named %q, want %s (feedback %q)", ex.ID, v, answer, r.Mistake, w.Name, r.Feedback)
				}
				checked++
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d wrong answers checked", checked)
	}
}
