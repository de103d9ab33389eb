package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/leaselab/playground/engine"
)

// chaosRuns is how many generated schedules a property gets: the full
// count normally, a tenth under -short (the race-detector pass). The seeds
// are fixed, so a figure measured on them is the same on every machine.
func chaosRuns(t *testing.T, full int) int {
	if testing.Short() {
		return full / 10
	}
	return full
}

// mustChaos runs a chaos batch and checks the report's own arithmetic.
func mustChaos(t *testing.T, opt engine.ChaosOptions) engine.ChaosReport {
	t.Helper()
	rep, err := engine.Chaos(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	l, k := rep.Linearizability, rep.ByKind
	if rep.Runs != opt.Runs || l.OK+l.Illegal+l.Unknown != rep.Runs {
		t.Errorf("every run gets one linearizability verdict: %+v", rep)
	}
	for _, n := range []int{k.StaleWrite, k.LostUpdate, k.DoubleGrant, k.DuplicateToken, k.DuplicateSideEffect} {
		if n > rep.Violations {
			t.Errorf("by_kind counts violating runs, so none exceeds violations: %+v", rep)
		}
	}
	if rep.Violations > 0 && k.StaleWrite+k.LostUpdate+k.DuplicateToken+k.DuplicateSideEffect < rep.Violations {
		t.Errorf("every violation has a kind: %+v", rep)
	}
	if rep.IllegalByClock > l.Illegal {
		t.Errorf("illegal_by_clock counts among the illegal histories: %d of %+v", rep.IllegalByClock, l)
	}
	if rep.Runs >= 100 && 20*rep.RunsWithoutFaults > rep.Runs {
		t.Errorf("%d of %d runs had no fault that struck: at most 5%% may", rep.RunsWithoutFaults, rep.Runs)
	}
	return rep
}

// TestChaosNeverBeatsRaftWithFencing is the engine's central property:
// whatever the aimed pauses, late writes, crashes, restarts, partitions
// and clock jumps do, a Raft lock service with fencing never lets a stale
// write land, never loses an update, never hands out a token twice, and
// every lock history found not linearizable broke only because a node's
// clock ran fast or jumped (Raft's leases are timed by the leader's clock;
// judged by true time such a grant is a double grant, which fencing then
// catches). (The 10,000-run figure comes
// from `playground chaos --runs 10000 --backend raft --fencing on`; see
// README's "Proving it".) So that the property cannot hold only because
// the schedules are harmless, the same seeds with fencing off must let
// stale writes land: the faults strike, and fencing is what stops them.
func TestChaosNeverBeatsRaftWithFencing(t *testing.T) {
	for _, nodes := range []int{3, 5, 1} {
		t.Run(fmt.Sprintf("nodes=%d", nodes), func(t *testing.T) {
			const seed = 20261129
			runs := chaosRuns(t, 300)
			if nodes != 3 {
				runs /= 3
			}
			unfenced := mustChaos(t, engine.ChaosOptions{Runs: runs, Seed: seed, Backend: "raft", Nodes: nodes, Fencing: false})
			t.Logf("fencing off, the same seeds: %d of %d runs violate %+v", unfenced.Violations, runs, unfenced.ByKind)
			if unfenced.ByKind.StaleWrite == 0 {
				t.Fatalf("seeds %d to %d with fencing off: no stale write landed (%+v), so these schedules cannot show what fencing prevents",
					seed, seed+int64(runs)-1, unfenced.ByKind)
			}
			rep := mustChaos(t, engine.ChaosOptions{Runs: runs, Seed: seed, Backend: "raft", Nodes: nodes, Fencing: true})
			t.Logf("fencing on: %d misconfigured, linearizability %+v, %d by a clock", rep.Misconfigured, rep.Linearizability, rep.IllegalByClock)
			if rep.Violations != 0 || rep.Linearizability.Illegal != rep.IllegalByClock {
				ex := ""
				if len(rep.Examples) > 0 {
					ex = fmt.Sprintf("\nfirst: seed %d (%s)\n%s", rep.Examples[0].Seed, rep.Examples[0].Why, jsonOf(t, rep.Examples[0].Scenario))
				}
				t.Fatalf("%d violations %+v, %d histories not linearizable (%d by a clock) in %d runs%s\nreproduce: go run ./cmd/playground chaos --runs %d --seed %d --backend raft --nodes %d --fencing on",
					rep.Violations, rep.ByKind, rep.Linearizability.Illegal, rep.IllegalByClock, rep.Runs, ex, rep.Runs, seed, nodes)
			}
		})
	}
}

// TestChaosHitRates holds the generator to its goals on fixed seeds: with
// fencing, an asynchronous replica and a saving single server each violate
// in at least 10% of runs, both because a token is handed out
// twice (the replica never got the grant; the restarted server forgot
// it), which fencing cannot catch. Without fencing, Raft's paused holders
// and late writes land too. Every such token reuse breaks the lock
// history's linearizability.
func TestChaosHitRates(t *testing.T) {
	cases := []struct {
		opt     engine.ChaosOptions
		atLeast float64 // of runs that violate
		kind    func(engine.ViolationCounts) int
	}{
		{engine.ChaosOptions{Backend: "async-replica", Fencing: true}, 0.10, func(k engine.ViolationCounts) int { return k.DuplicateToken }},
		{engine.ChaosOptions{Backend: "single", Fencing: true}, 0.10, func(k engine.ViolationCounts) int { return k.DuplicateToken }},
		{engine.ChaosOptions{Backend: "raft", Fencing: false}, 0.10, func(k engine.ViolationCounts) int { return k.StaleWrite }},
		{engine.ChaosOptions{Backend: "redlock", Nodes: 5}, 0.10, func(k engine.ViolationCounts) int { return k.StaleWrite }},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/fencing=%v", tc.opt.Backend, tc.opt.Fencing), func(t *testing.T) {
			opt := tc.opt
			opt.Runs, opt.Seed, opt.Examples = chaosRuns(t, 500), 1, 1
			if opt.Backend == "raft" {
				opt.Runs /= 2
			}
			rep := mustChaos(t, opt)
			rate := float64(rep.Violations) / float64(rep.Runs)
			t.Logf("%d of %d runs violate (%.1f%%): %+v; %d misconfigured; linearizability %+v", rep.Violations, rep.Runs, 100*rate, rep.ByKind, rep.Misconfigured, rep.Linearizability)
			if rate < tc.atLeast {
				t.Errorf("seeds %d to %d: %.1f%% of runs violate, want at least %.0f%%", opt.Seed, opt.Seed+int64(opt.Runs)-1, 100*rate, 100*tc.atLeast)
			}
			if n := tc.kind(rep.ByKind); float64(n) < tc.atLeast*float64(rep.Runs) {
				t.Errorf("the expected kind of violation is too rare: %+v", rep.ByKind)
			}
			if opt.Fencing && rep.Linearizability.Illegal < rep.ByKind.DuplicateToken {
				t.Errorf("a token handed out twice must make the history not linearizable: %d illegal, %d duplicate tokens",
					rep.Linearizability.Illegal, rep.ByKind.DuplicateToken)
			}
		})
	}
}

// TestChaosExamplesReproduce: each example's scenario, written out as JSON
// and read back the way the CLI and the web read it, gives the same summary
// and the same violation when run as it is, and is no bigger than the
// scenario its seed generated. A violation is its faults': with every
// fault removed, the example's scenario is safe, and its aims name no
// more faults than it still has.
func TestChaosExamplesReproduce(t *testing.T) {
	for _, opt := range []engine.ChaosOptions{
		{Backend: "async-replica", Fencing: true},
		{Backend: "single", Fencing: true},
		{Backend: "raft", Fencing: false},
		{Backend: "redlock", Nodes: 5},
	} {
		t.Run(opt.Backend, func(t *testing.T) {
			// Fixed counts, -short or not: enough seeds to find examples.
			opt.Runs, opt.Seed, opt.Examples = 40, 100, 3
			if opt.Backend == "raft" {
				opt.Runs, opt.Examples = 20, 2
			}
			if testing.Short() {
				// The race detector slows SQLite and Raft tenfold: one
				// example each from fewer seeds, and Raft's in full runs.
				if opt.Backend == "raft" {
					t.Skip("Raft examples are shrunk in the full run")
				}
				opt.Runs, opt.Examples = 15, 1
			}
			rep := mustChaos(t, opt)
			if len(rep.Examples) == 0 {
				t.Fatalf("no example in %d runs", rep.Runs)
			}
			for _, ex := range rep.Examples {
				if len(ex.Kinds) == 0 || ex.Why == "" || ex.Scenario.Title == "" || len(ex.Aims) == 0 {
					t.Errorf("seed %d: an example says what broke, which kinds, and what was aimed at: %+v", ex.Seed, ex)
				}
				b, err := json.Marshal(ex.Scenario)
				if err != nil {
					t.Fatal(err)
				}
				p, err := engine.ParseScenario(b)
				if err != nil {
					t.Fatalf("seed %d: the example does not parse back: %v\n%s", ex.Seed, err, b)
				}
				res, err := engine.Execute(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if res.Summary != ex.Summary || !slices.Equal(engine.Violations(res.Summary), ex.Kinds) {
					t.Errorf("seed %d: run as it is, the example gives\n%+v\nnot\n%+v", ex.Seed, res.Summary, ex.Summary)
				}
				if got := res.History().Check(engine.DefaultCheckTimeout); got != ex.Linearizability && got != engine.LinearizableUnknown {
					t.Errorf("seed %d: linearizability %s, the report said %s", ex.Seed, got, ex.Linearizability)
				}
				if len(ex.Scenario.Faults) == 0 || len(ex.Aims) > len(ex.Scenario.Faults) {
					t.Errorf("seed %d: %d faults left, %d aims: %q", ex.Seed, len(ex.Scenario.Faults), len(ex.Aims), ex.Aims)
				}
				bare := ex.Scenario
				bare.Faults = nil
				if plain := mustRun(t, bare); len(engine.Violations(plain.Summary)) > 0 {
					t.Errorf("seed %d: with its faults removed the example still violates (%s): its clients, not its faults, broke it\n%s",
						ex.Seed, engine.Verdict(plain.Summary), jsonOf(t, bare))
				}
				full, err := engine.GenerateScenario(context.Background(), ex.Seed, opt)
				if err != nil {
					t.Fatal(err)
				}
				if len(ex.Scenario.Faults) > len(full.Faults) || len(ex.Scenario.Clients) > len(full.Clients) {
					t.Errorf("seed %d: shrinking grew the scenario", ex.Seed)
				}
			}
		})
	}
}

// TestGeneratedScenariosAreValid: every generated schedule passes
// validation, is the same for the same seed, and almost every one has a
// fault.
func TestGeneratedScenariosAreValid(t *testing.T) {
	for _, b := range []string{"raft", "single", "async-replica", "redlock"} {
		seeds := int64(200)
		if b == "raft" {
			seeds = 20
		}
		if testing.Short() {
			seeds /= 5
		}
		faultless := 0
		for seed := range seeds {
			opt := engine.ChaosOptions{Backend: b, Fencing: b != "redlock"}
			sc, err := engine.GenerateScenario(context.Background(), seed, opt)
			if err != nil {
				t.Fatalf("%s seed %d: %v", b, seed, err)
			}
			if _, err := engine.Prepare(sc); err != nil {
				t.Fatalf("%s seed %d: %v\n%s", b, seed, err, jsonOf(t, sc))
			}
			again, err := engine.GenerateScenario(context.Background(), seed, opt)
			if err != nil || jsonOf(t, sc) != jsonOf(t, again) {
				t.Fatalf("%s seed %d: not deterministic (%v)", b, seed, err)
			}
			if len(sc.Faults) == 0 {
				faultless++
			}
		}
		if 20*int64(faultless) > seeds {
			t.Errorf("%s: %d of %d generated scenarios have no fault", b, faultless, seeds)
		}
	}
}

// TestChaosOptionsNameTheField: every bad option is refused with the
// option's own name, the way the CLI flags and the web API name it.
func TestChaosOptionsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		opt   engine.ChaosOptions
		field string
	}{
		{engine.ChaosOptions{Runs: 0}, "runs"},
		{engine.ChaosOptions{Runs: engine.MaxChaosRuns + 1}, "runs"},
		{engine.ChaosOptions{Runs: 1, Seed: -1}, "seed"},
		{engine.ChaosOptions{Runs: 1, Seed: engine.MaxChaosSeed + 1}, "seed"},
		{engine.ChaosOptions{Runs: 1, Backend: "consul"}, "backend"},
		{engine.ChaosOptions{Runs: 1, Backend: "raft", Nodes: 4}, "nodes"},
		{engine.ChaosOptions{Runs: 1, Backend: "async-replica", Nodes: 3}, "nodes"},
		{engine.ChaosOptions{Runs: 1, Backend: "redlock", Nodes: 6}, "nodes"},
		{engine.ChaosOptions{Runs: 1, Backend: "redlock", Fencing: true}, "fencing"},
		{engine.ChaosOptions{Runs: 1, Examples: engine.MaxChaosExamples + 1}, "examples"},
	} {
		_, err := engine.Chaos(context.Background(), tc.opt)
		var fe *engine.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%+v: got %v, want an error naming %q", tc.opt, err, tc.field)
		}
	}
}

// TestChaosRunsGoThroughExecute: every engine run of a batch (aiming,
// judging, shrinking) goes through ChaosOptions.Execute, which a server
// uses to make each one wait for a slot; the report is the same, and an
// error of the hook (no slot came free) ends the batch with it.
func TestChaosRunsGoThroughExecute(t *testing.T) {
	opt := engine.ChaosOptions{Runs: 20, Seed: 1, Backend: "async-replica", Fencing: true, Examples: 1}
	plain := mustChaos(t, opt)
	var calls atomic.Int64
	opt.Execute = func(ctx context.Context, p *engine.Prepared) (*engine.Result, error) {
		calls.Add(1)
		return engine.Execute(ctx, p)
	}
	hooked := mustChaos(t, opt)
	if jsonOf(t, plain) != jsonOf(t, hooked) {
		t.Errorf("the hook changed the report")
	}
	// Each run is aimed from at least one planning run and then judged;
	// the example is generated again, judged and shrunk.
	if n := calls.Load(); n < 2*int64(opt.Runs)+3 {
		t.Errorf("%d runs went through Execute, want at least %d", n, 2*opt.Runs+3)
	}
	busy := errors.New("busy: no slot came free")
	opt.Execute = func(context.Context, *engine.Prepared) (*engine.Result, error) { return nil, busy }
	if _, err := engine.Chaos(context.Background(), opt); !errors.Is(err, busy) {
		t.Errorf("the hook's error should end the batch: %v", err)
	}
}

// TestChaosReportsMisconfiguredApart: a run that violates with every fault
// removed was broken by its clients, not by the faults, and must not be
// counted as a finding. The hook makes every client misconfigured (no
// renewal, and work three leases long): the runs that still violate
// without faults are reported as misconfigured, and neither violations
// nor by_kind nor the examples count them.
func TestChaosReportsMisconfiguredApart(t *testing.T) {
	opt := engine.ChaosOptions{Runs: 30, Seed: 1, Backend: "single", Fencing: false, Examples: 1}
	opt.Execute = func(ctx context.Context, p *engine.Prepared) (*engine.Result, error) {
		sc := p.Scenario()
		for i := range sc.Clients {
			c := &sc.Clients[i]
			c.RenewEvery, c.RenewTimeout, c.WatchLease = engine.Duration{}, engine.Duration{}, false
			c.LeaseMargin, c.StopOnRenewTimeout, c.Interrupt = engine.Duration{}, false, false
			for j := range c.Steps {
				if c.Steps[j].Do == engine.StepWork {
					c.Steps[j].For = engine.Ms(3 * sc.Lock.Lease.MS())
				}
			}
		}
		bad, err := engine.Prepare(sc)
		if err != nil {
			return nil, err
		}
		return engine.Execute(ctx, bad)
	}
	rep := mustChaos(t, opt)
	t.Logf("%d misconfigured, %d violations %+v", rep.Misconfigured, rep.Violations, rep.ByKind)
	if rep.Misconfigured == 0 {
		t.Fatalf("no run counted as misconfigured, though every client works three leases without renewing: %+v", rep)
	}
	if rep.Misconfigured+rep.Violations > rep.Runs {
		t.Errorf("a misconfigured run is counted as a violation too: %+v", rep)
	}
	k := rep.ByKind
	if n := max(k.StaleWrite, k.LostUpdate, k.DoubleGrant, k.DuplicateToken); n > rep.Violations {
		t.Errorf("by_kind counts a misconfigured run: %+v", rep)
	}
}

// eachAsyncRun runs the async-replica chaos scenarios of seeds 1 to n (a
// tenth under -short), with fencing on and then off, and hands each run
// to check: the sweeps that hold the timeline's words to what happened.
func eachAsyncRun(t *testing.T, n int, check func(seed int64, fencing bool, sc engine.Scenario, res *engine.Result)) {
	t.Helper()
	seeds := int64(chaosRuns(t, n))
	for _, fencing := range []bool{true, false} {
		opt := engine.ChaosOptions{Backend: "async-replica", Fencing: fencing}
		for seed := int64(1); seed <= seeds; seed++ {
			sc, err := engine.GenerateScenario(context.Background(), seed, opt)
			if err != nil {
				t.Fatal(err)
			}
			check(seed, fencing, sc, mustRun(t, sc))
		}
	}
}
