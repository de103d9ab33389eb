package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestChaosZooKeeper: the generator knows the zookeeper backend from its
// registry entry. With fencing (czxid tokens) no run violates, and every
// lock history found not linearizable against ZKLockModel broke only
// because a leader's clock ran fast or jumped (it closed a session that
// still ran in true time: a double grant, which fencing then catches), as
// on Raft; the same seeds without fencing let stale writes land in at
// least 10% of runs: a session is a lease, with the same pauses and late
// writes.
func TestChaosZooKeeper(t *testing.T) {
	runs := chaosRuns(t, 300)
	off := mustChaos(t, engine.ChaosOptions{Runs: runs, Seed: 1, Backend: "zookeeper", Fencing: false, Examples: 1})
	if rate := float64(off.Violations) / float64(runs); rate < 0.10 || off.ByKind.StaleWrite == 0 {
		t.Errorf("fencing off: %d of %d runs violate (%+v), want at least 10%% with stale writes", off.Violations, runs, off.ByKind)
	}
	// A grant while another session still ran in true time is a double
	// grant, which no order of the operations explains.
	if off.Linearizability.Illegal < off.ByKind.DoubleGrant {
		t.Errorf("fencing off: %d double grants, yet only %d histories found not linearizable", off.ByKind.DoubleGrant, off.Linearizability.Illegal)
	}
	on := mustChaos(t, engine.ChaosOptions{Runs: runs, Seed: 1, Backend: "zookeeper", Fencing: true, Examples: 1})
	if on.Violations != 0 || on.Linearizability.Illegal != on.IllegalByClock {
		t.Fatalf("fencing on: %d violations %+v, %d histories not linearizable (%d by a clock) in %d runs\nreproduce: go run ./cmd/playground chaos --runs %d --seed 1 --backend zookeeper --fencing on",
			on.Violations, on.ByKind, on.Linearizability.Illegal, on.IllegalByClock, runs, runs)
	}
}

// TestChaosLoseDiskIsOptIn: the default generator never makes a node
// lose its disk, so "Raft plus fencing never fails" stays its property;
// allowed, a lost disk hands tokens out twice on Raft and ZooKeeper even
// with fencing, and each such history is not linearizable.
func TestChaosLoseDiskIsOptIn(t *testing.T) {
	for seed := int64(1); seed <= int64(chaosRuns(t, 200)); seed++ {
		sc, err := engine.GenerateScenario(context.Background(), seed, engine.ChaosOptions{Backend: "raft", Fencing: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range sc.Faults {
			if f.Do == engine.FaultLoseDisk {
				t.Fatalf("seed %d: the default generator made a lose_disk fault: %+v", seed, f)
			}
		}
	}
	for _, backend := range []string{"raft", "zookeeper"} {
		t.Run(backend, func(t *testing.T) {
			runs := chaosRuns(t, 300)
			rep := mustChaos(t, engine.ChaosOptions{Runs: runs, Seed: 1, Backend: backend, Fencing: true, LoseDisk: true, Examples: 1})
			if !rep.LoseDisk || rep.ByKind.DuplicateToken == 0 {
				t.Fatalf("with lose_disk allowed, some run should hand a token out twice: %+v", rep)
			}
			if rep.Linearizability.Illegal < rep.ByKind.DuplicateToken {
				t.Errorf("a token handed out twice must make the history not linearizable: %+v", rep.Linearizability)
			}
		})
	}
}

// TestChaosLoseDiskNeedsADisk: a backend whose servers keep no log is
// refused, naming the option.
func TestChaosLoseDiskNeedsADisk(t *testing.T) {
	err := engine.ChaosOptions{Runs: 1, Backend: "single", LoseDisk: true}.Check()
	var fe *engine.FieldError
	if !errors.As(err, &fe) || fe.Field != "lose_disk" {
		t.Fatalf("want a field error on lose_disk: %v", err)
	}
}
