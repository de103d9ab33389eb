package engine_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestChaosNeverBeatsEtcdWithFencingOrATxn: on etcd, fencing at the
// storage, or every write a transaction guarded by the lock key's
// revision, lets no stale write land and loses no update on any seed,
// and every lock history found not linearizable against EtcdLockModel
// broke only by a clock (the leader's clock ran fast or jumped and it
// revoked early: judged by true time a double grant, which fencing or the
// transaction's compare then catches). The same
// seeds without either let stale writes land, so the schedules do strike.
// (2,000 runs each: `playground chaos --runs 2000 --backend etcd
// --fencing on`, and `--fencing off --guard txn`.)
func TestChaosNeverBeatsEtcdWithFencingOrATxn(t *testing.T) {
	const seed = 20261201
	runs := chaosRuns(t, 300)
	bare := mustChaos(t, engine.ChaosOptions{Runs: runs, Seed: seed, Backend: "etcd"})
	t.Logf("neither, the same seeds: %d of %d runs violate %+v", bare.Violations, runs, bare.ByKind)
	if bare.ByKind.StaleWrite == 0 {
		t.Fatalf("seeds %d to %d with neither: no stale write landed (%+v)", seed, seed+int64(runs)-1, bare.ByKind)
	}
	for _, opt := range []engine.ChaosOptions{
		{Runs: runs, Seed: seed, Backend: "etcd", Fencing: true},
		{Runs: runs, Seed: seed, Backend: "etcd", Guard: engine.GuardTxn},
	} {
		t.Run(fmt.Sprintf("fencing=%v/guard=%q", opt.Fencing, opt.Guard), func(t *testing.T) {
			rep := mustChaos(t, opt)
			if rep.Violations != 0 || rep.Linearizability.Illegal != rep.IllegalByClock {
				ex := ""
				if len(rep.Examples) > 0 {
					ex = fmt.Sprintf("\nfirst: seed %d (%s)\n%s", rep.Examples[0].Seed, rep.Examples[0].Why, jsonOf(t, rep.Examples[0].Scenario))
				}
				t.Fatalf("%d violations, %d illegal histories (%d by a clock): %+v%s", rep.Violations, rep.Linearizability.Illegal, rep.IllegalByClock, rep.ByKind, ex)
			}
		})
	}
}

// TestChaosDrawsFromTheEtcdEntry: the generator gives etcd scenarios the
// entry's own option (a lock-delay in some runs), guards every write when
// asked, and refuses a guard on a backend that keeps no data.
func TestChaosDrawsFromTheEtcdEntry(t *testing.T) {
	delays := 0
	for seed := int64(1); seed <= 40; seed++ {
		sc, err := engine.GenerateScenario(t.Context(), seed, engine.ChaosOptions{Backend: "etcd", Guard: engine.GuardTxn})
		if err != nil {
			t.Fatal(err)
		}
		if sc.Lock.LockDelay.IsSet() {
			delays++
		}
		for _, c := range sc.Clients {
			if !slices.ContainsFunc(c.Steps, func(s engine.Step) bool { return s.Do == engine.StepWrite && s.Guard == engine.GuardTxn }) {
				t.Fatalf("seed %d: %s's write is not guarded", seed, c.Name)
			}
		}
	}
	if delays == 0 || delays == 40 {
		t.Errorf("a lock-delay should be drawn in some runs, not %d of 40", delays)
	}
	_, err := engine.Chaos(t.Context(), engine.ChaosOptions{Runs: 1, Backend: "raft", Guard: engine.GuardTxn})
	var fe *engine.FieldError
	if !errors.As(err, &fe) || fe.Field != "guard" {
		t.Errorf("a guard on raft should be refused, naming the guard: %v", err)
	}
}
