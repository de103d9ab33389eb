package lessons

import (
	"slices"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestPredictionsRunBy: a prediction's own scenario is found for the
// variant it was drawn for, whatever its title and words and with its
// defaults written out or not; a scenario differing in anything that
// changes the run (fencing, a fault's time, another variant's numbers)
// is not.
func TestPredictionsRunBy(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	var preds []*Exercise
	for _, ex := range c.Exercises() {
		if ex.Kind == KindPredict {
			preds = append(preds, ex)
		}
	}
	if len(preds) < 3 {
		t.Fatalf("%d predictions in the catalog", len(preds))
	}
	for _, ex := range preds {
		for _, variant := range []int{0, 3} {
			sc, err := ex.PredictionScenario(variant)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.PredictionsRunBy(sc, variant); !slices.Contains(got, ex.ID) {
				t.Errorf("%s's own scenario (variant %d) finds %v", ex.ID, variant, got)
			}
			// Words and written-out defaults change nothing.
			worded := sc
			worded.Title, worded.Question, worded.Watch = "My copy", "what now?", "something"
			if p, err := engine.Prepare(worded); err == nil {
				worded = p.Scenario()
			}
			if got := c.PredictionsRunBy(worded, variant); !slices.Contains(got, ex.ID) {
				t.Errorf("%s's scenario retitled, defaults filled: finds %v", ex.ID, got)
			}
			// Fencing flipped is another run.
			flipped := sc
			flipped.Fencing = !sc.Fencing
			if got := c.PredictionsRunBy(flipped, variant); slices.Contains(got, ex.ID) {
				t.Errorf("%s's scenario with fencing flipped still counts as it", ex.ID)
			}
			if len(sc.Faults) > 0 {
				moved := sc
				moved.Faults = slices.Clone(sc.Faults)
				moved.Faults[0].At = engine.Ms(sc.Faults[0].At.MS() + 37)
				if got := c.PredictionsRunBy(moved, variant); slices.Contains(got, ex.ID) {
					t.Errorf("%s's scenario with its first fault moved still counts as it", ex.ID)
				}
			}
		}
	}
	if _, err := c.Exercises()[0].PredictionScenario(0); c.Exercises()[0].Kind != KindPredict && err == nil {
		t.Error("a scenario for an exercise that is not a prediction")
	}
}

// BenchmarkPredictionsRunBy: what a class learner's run pays to learn
// which predictions it shows (the server asks on every run by one).
//
//	go test ./lessons -run '^$' -bench PredictionsRunBy
func BenchmarkPredictionsRunBy(b *testing.B) {
	c, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	p, err := engine.LoadPreset("paused-holder")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.PredictionsRunBy(p.Scenario, 12345)
	}
}
