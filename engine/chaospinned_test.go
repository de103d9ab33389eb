package engine_test

import (
	"fmt"
	"testing"

	"github.com/leaselab/playground/engine"
)

// chaosPin is what a chaos batch on fixed seeds found: its counts and its
// first example. The generator, the runs and the checks are deterministic,
// so these are the same on every machine, at any speed.
type chaosPin struct {
	Violations, Misconfigured, IllegalByClock, RunsWithoutFaults int
	ByKind                                                       engine.ViolationCounts
	Linearizability                                              engine.LinearizabilityCounts
	ExampleSeed                                                  int64  // 0: none
	ExampleWhy                                                   string // its words
	ExampleFaults                                                int    // faults left after shrinking
}

func pinOf(rep engine.ChaosReport) chaosPin {
	p := chaosPin{Violations: rep.Violations, Misconfigured: rep.Misconfigured, IllegalByClock: rep.IllegalByClock,
		RunsWithoutFaults: rep.RunsWithoutFaults, ByKind: rep.ByKind, Linearizability: rep.Linearizability}
	if len(rep.Examples) > 0 {
		ex := rep.Examples[0]
		p.ExampleSeed, p.ExampleWhy, p.ExampleFaults = ex.Seed, ex.Why, len(ex.Scenario.Faults)
	}
	return p
}

// TestChaosFindingsPinned holds chaos's findings on fixed seeds to the
// figures measured before the engine's speed work (issue 23): making runs
// cheaper (a batch's reused databases, Raft's transport and batching,
// fewer allocations) may change how fast chaos runs, never what it finds.
// Each batch runs twice, once with fresh groups and databases for every
// run and once through a pool of warm groups as the web server runs it,
// and both must match the pin. A deliberate change to the generator or
// the engine's semantics changes these figures: measure them again and
// say why in the commit.
func TestChaosFindingsPinned(t *testing.T) {
	cases := []struct {
		opt  engine.ChaosOptions
		want chaosPin
	}{
		{engine.ChaosOptions{Runs: 40, Seed: 1, Backend: "raft", Fencing: true}, chaosPin{
			IllegalByClock: 1, Linearizability: engine.LinearizabilityCounts{OK: 39, Illegal: 1}}},
		{engine.ChaosOptions{Runs: 40, Seed: 1, Backend: "raft", Fencing: false}, chaosPin{
			Violations: 7, IllegalByClock: 1, ByKind: engine.ViolationCounts{StaleWrite: 7, LostUpdate: 7, DoubleGrant: 1},
			Linearizability: engine.LinearizabilityCounts{OK: 39, Illegal: 1},
			ExampleSeed:     2, ExampleWhy: "a stale write was accepted (1)", ExampleFaults: 1}},
		{engine.ChaosOptions{Runs: 40, Seed: 1, Backend: "redlock", Nodes: 5, Fencing: false}, chaosPin{
			Violations: 10, ByKind: engine.ViolationCounts{StaleWrite: 10, LostUpdate: 9, DoubleGrant: 3},
			Linearizability: engine.LinearizabilityCounts{OK: 35, Illegal: 5},
			ExampleSeed:     2, ExampleWhy: "a stale write was accepted (1)", ExampleFaults: 1}},
	}
	pool, err := engine.NewRaftPool(engine.RaftPoolSize{Three: 4, Five: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, tc := range cases {
		opt := tc.opt
		opt.Examples = 1
		name := fmt.Sprintf("%s/fencing=%v", opt.Backend, opt.Fencing)
		t.Run(name, func(t *testing.T) {
			fresh := pinOf(mustChaos(t, opt))
			if fresh != tc.want {
				t.Errorf("seeds %d to %d, fresh groups: found\n%+v\nwant\n%+v", opt.Seed, opt.Seed+int64(opt.Runs)-1, fresh, tc.want)
			}
			opt.Execute = pool.Execute
			if pooled := pinOf(mustChaos(t, opt)); pooled != tc.want {
				t.Errorf("seeds %d to %d, pooled groups: found\n%+v\nwant\n%+v", opt.Seed, opt.Seed+int64(opt.Runs)-1, pooled, tc.want)
			}
		})
	}
}
