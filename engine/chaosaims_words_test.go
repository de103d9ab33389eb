package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestChaosAimsSayWhatTheShrinkerChanged: an example's aims are written
// with the generated faults' numbers, and the shrinker moves and shortens
// faults; an aim whose fault it changed must say so and give the
// example's own numbers, so that the words beside the scenario never
// claim what it does not do (seed 11: "for 26.771s: longer than the 14s
// lease" beside a pause of 13.3 s).
func TestChaosAimsSayWhatTheShrinkerChanged(t *testing.T) {
	opt := engine.ChaosOptions{Runs: 40, Seed: 1, Backend: "raft", Fencing: false, Examples: 5}
	rep := mustChaos(t, opt)
	changed := 0
	for _, ex := range rep.Examples {
		gen, err := engine.GenerateScenario(context.Background(), ex.Seed, opt)
		if err != nil {
			t.Fatal(err)
		}
		aims := strings.Join(ex.Aims, " | ")
		used := make([]bool, len(gen.Faults))
		for _, f := range ex.Scenario.Faults {
			for i, g := range gen.Faults {
				if used[i] || f.Do != g.Do || f.Target != g.Target || f.Kind != g.Kind {
					continue
				}
				used[i] = true
				var want []string
				if f.At.MS() != g.At.MS() {
					want = append(want, "strikes at "+engine.FormatMS(f.At.MS()))
				}
				if f.For.MS() != g.For.MS() {
					want = append(want, "for "+engine.FormatMS(f.For.MS()))
				}
				if f.By.MS() != g.By.MS() {
					want = append(want, "by "+engine.FormatMS(f.By.MS()))
				}
				if len(want) > 0 && strings.Contains(aims, "aimed at nothing") {
					break // a random fault's words hold no numbers
				}
				if len(want) > 0 {
					changed++
					if !strings.Contains(aims, "(as generated; the example's "+strings.Join(want, ", ")+")") {
						t.Errorf("seed %d: the shrinker changed %s's %s fault (%v), yet its aims say %q", ex.Seed, f.Target, f.Do, want, aims)
					}
				}
				break
			}
		}
	}
	if changed == 0 {
		t.Fatalf("no example had a fault the shrinker changed: the test proves nothing (%d examples)", len(rep.Examples))
	}
}
