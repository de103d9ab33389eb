package lessons

import (
	"context"
	"encoding/json"
	"strings"
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

// TestFormsStartAtTheScenarioTheyRun: every field of a scenario form
// starts at the value the checker runs when the learner leaves it alone.
// An empty "client-1 renews every" whose range says "empty: never
// renews", over a scenario that renews every 3 s, tells the learner
// something false about what they are changing.
func TestFormsStartAtTheScenarioTheyRun(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range c.Exercises() {
		if ex.Kind != KindScenario {
			continue
		}
		for v := 0; v < 3; v++ {
			env, err := ex.params(v)
			if err != nil {
				t.Fatal(err)
			}
			base, err := ex.baseScenario(env)
			if err != nil {
				t.Fatal(err)
			}
			s, err := ex.Serve(v, Standing{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range s.Fields {
				runs := fieldValue(base, f.Path)
				if f.Default == "" && runs != "" {
					t.Errorf("%s variant %d: the form starts %s (%s) empty (%s), but the scenario runs %q", ex.ID, v, f.Path, f.Label, f.Range, runs)
					continue
				}
				if f.Default == "0s" && runs == "" && f.Empty != "" {
					continue // none, written as zero
				}
				one, _ := json.Marshal(map[string]string{f.Path: f.Default})
				if !ex.sameScenario(base, base, string(one)) {
					t.Errorf("%s variant %d: the form starts %s (%s) at %q, but the scenario runs %q", ex.ID, v, f.Path, f.Label, f.Default, runs)
				}
			}
		}
	}
	ex, err := c.Exercise("make-stale-write-land")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ex.Serve(0, Standing{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Fields {
		want := map[string]string{"clients[client-1].renew_every": "3s", "faults[0].at": "4s"}[f.Path]
		if want != "" && f.Default != want {
			t.Errorf("make-stale-write-land: %s starts at %q, want %s as the prompt says", f.Label, f.Default, want)
		}
	}
}

// TestAClearedFieldMeansWhatItsRangeSays: a field whose range says what
// leaving it empty means ("empty: never renews") runs that when the
// learner clears it, instead of the scenario's own value.
func TestAClearedFieldMeansWhatItsRangeSays(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	ex, err := c.Exercise("make-stale-write-land")
	if err != nil {
		t.Fatal(err)
	}
	// Frozen 4 s to 11 s: renewing every 3 s, client-1's lease lasts to
	// 13 s and nothing goes wrong; never renewing, it ends at 10 s,
	// client-2 writes and client-1's late write lands.
	for answer, want := range map[string]bool{
		`{"fencing": "false", "faults[0].for": "7s"}`:                                         false,
		`{"fencing": "false", "faults[0].for": "7s", "clients[client-1].renew_every": ""}`:    true,
		`{"fencing": "false", "faults[0].for": "7s", "clients[client-1].renew_every": "30s"}`: true,
	} {
		r, err := ex.Check(context.Background(), Attempt{Exercise: ex.ID, Answer: answer})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Graded || r.Correct != want {
			t.Errorf("%s: graded %v, correct %v, want %v: %s%s", answer, r.Graded, r.Correct, want, r.Feedback, r.FormatError)
		}
	}
	// A field that says nothing of empty is left as it was.
	r, err := ex.Check(context.Background(), Attempt{Exercise: ex.ID, Answer: `{"fencing": "false", "faults[0].for": "15s", "faults[0].at": ""}`})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Correct {
		t.Errorf("an empty pause start is not left at 4 s: %s%s", r.Feedback, r.FormatError)
	}
}

// TestARepeatedSettingIsAskedAbout: settings that give one field twice
// ({"fencing": false, "fencing": true}) are not read as the last one
// silently; the learner is told which field, and no try is used.
func TestARepeatedSettingIsAskedAbout(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	ex, err := c.Exercise("make-stale-write-land")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ex.Check(context.Background(), Attempt{Exercise: ex.ID, Answer: `{"fencing": false, "faults[0].for": "15s", "fencing": true}`})
	if err != nil {
		t.Fatal(err)
	}
	if r.Graded || !strings.Contains(r.FormatError, `"fencing"`) || !strings.Contains(r.FormatError, "twice") {
		t.Errorf("a repeated fencing: graded %v, format error %q, feedback %q", r.Graded, r.FormatError, r.Feedback)
	}
}
