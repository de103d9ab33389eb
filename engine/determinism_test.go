package engine_test

import (
	"fmt"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestSameScenarioSameTimeline runs every preset several times, fenced and
// not, and requires byte-identical output: the timeline may not depend on
// how fast Raft commits or how goroutines are scheduled that day.
func TestSameScenarioSameTimeline(t *testing.T) {
	const runs = 4
	for _, name := range engine.PresetNames() {
		for _, fencing := range []bool{false, true} {
			if fencing && name == "redlock-clock-jump" {
				continue // Redlock has no token to fence with
			}
			t.Run(fmt.Sprintf("%s/fencing=%v", name, fencing), func(t *testing.T) {
				t.Parallel()
				sc := mustPreset(t, name, fencing)
				want := jsonOf(t, mustRun(t, sc))
				for i := 1; i < runs; i++ {
					if got := jsonOf(t, mustRun(t, sc)); got != want {
						t.Fatalf("run %d of %s (seed %d) differs from run 0:\n%s\n---\n%s", i, name, sc.Seed, got, want)
					}
				}
			})
		}
	}
}

// TestPacingDoesNotChangeEvents runs a preset paced and as fast as
// possible: pacing decides when steps happen, never what they do.
func TestPacingDoesNotChangeEvents(t *testing.T) {
	sc := mustPreset(t, "paused-holder", true)
	fast := jsonOf(t, mustRun(t, sc))
	r, err := engine.Start(t.Context(), mustPrepare(t, sc), engine.Options{Speed: 500})
	if err != nil {
		t.Fatal(err)
	}
	paced, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, paced); got != fast {
		t.Fatalf("paced run differs:\n%s\n---\n%s", got, fast)
	}
}
