package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/leaselab/playground/engine"
)

// chaosRuns is how many random fault schedules each property gets: a few
// hundred normally, fewer under -short (the race-detector pass).
func chaosRuns(t *testing.T, full int) int {
	if testing.Short() {
		return full / 10
	}
	return full
}

// TestChaosNeverBeatsRaftWithFencing is the engine's central property:
// whatever pauses, late messages, crashes, restarts, partitions and clock
// jumps strike, a Raft lock service with fencing never lets a stale write
// land, never loses an update and never hands out a token twice, and every
// lock history is linearizable.
func TestChaosNeverBeatsRaftWithFencing(t *testing.T) {
	const seed = 20261129
	rep, err := engine.Chaos(context.Background(), engine.ChaosOptions{Runs: chaosRuns(t, 300), Seed: seed, Backend: "raft", Fencing: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Violations != 0 || rep.NotLinearizable != 0 {
		ex := ""
		if len(rep.Examples) > 0 {
			ex = fmt.Sprintf("\nfirst: seed %d (%s)\n%s", rep.Examples[0].Seed, rep.Examples[0].Why, jsonOf(t, rep.Examples[0].Scenario))
		}
		t.Fatalf("seed %d: %d violations, %d non-linearizable histories in %d runs%s\nreproduce: go run ./cmd/playground chaos --runs %d --seed %d --backend raft --fencing on",
			seed, rep.Violations, rep.NotLinearizable, rep.Runs, ex, rep.Runs, seed)
	}
}

// TestChaosFindsTheWeakDesigns: without fencing, with an asynchronous
// replica, and with Redlock, random schedules do find unsafe runs, and
// each example shrinks to a scenario that still fails when run again.
func TestChaosFindsTheWeakDesigns(t *testing.T) {
	cases := []engine.ChaosOptions{
		{Backend: "raft", Fencing: false},
		{Backend: "async-replica", Fencing: true},
		{Backend: "redlock", Nodes: 5},
	}
	for _, opt := range cases {
		t.Run(fmt.Sprintf("%s/fencing=%v", opt.Backend, opt.Fencing), func(t *testing.T) {
			opt.Runs, opt.Seed, opt.Examples = chaosRuns(t, 200), 7, 1
			rep, err := engine.Chaos(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Violations == 0 {
				t.Fatalf("seed %d: no violation in %d runs", opt.Seed, rep.Runs)
			}
			ex := rep.Examples[0]
			full := engine.GenerateScenario(ex.Seed, opt)
			if len(ex.Scenario.Faults) > len(full.Faults) || len(ex.Scenario.Clients) > len(full.Clients) {
				t.Errorf("shrinking grew the scenario")
			}
			again := mustRun(t, ex.Scenario)
			if again.Summary.Safe && again.Summary.DuplicateTokens == 0 {
				t.Errorf("the shrunk example of seed %d no longer fails: %+v", ex.Seed, again.Summary)
			}
		})
	}
}

// TestGeneratedScenariosAreValid: every generated schedule passes
// validation and is the same for the same seed.
func TestGeneratedScenariosAreValid(t *testing.T) {
	for _, b := range []string{"raft", "single", "async-replica", "redlock"} {
		for seed := int64(0); seed < 300; seed++ {
			opt := engine.ChaosOptions{Backend: b, Fencing: b != "redlock"}
			sc := engine.GenerateScenario(seed, opt)
			if _, err := engine.Prepare(sc); err != nil {
				t.Fatalf("%s seed %d: %v\n%s", b, seed, err, jsonOf(t, sc))
			}
			if jsonOf(t, sc) != jsonOf(t, engine.GenerateScenario(seed, opt)) {
				t.Fatalf("%s seed %d: not deterministic", b, seed)
			}
		}
	}
}
