package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
)

// reuseSeeds generates the judged scenarios of a chaos batch's seeds on a
// backend, every other seed allowed to lose a disk.
func reuseSeeds(t *testing.T, backend string, seed int64, n int) []*Prepared {
	t.Helper()
	var out []*Prepared
	for s := seed; s < seed+int64(n); s++ {
		sc, err := GenerateScenario(context.Background(), s, ChaosOptions{Seed: s, Backend: backend, Fencing: true, LoseDisk: s%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(sc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// sameResult runs p on a group of its own and through pool, and says how
// the two differ ("" when they do not): the first event that differs, or
// the summary.
func sameResult(p *Prepared, pool *RaftPool) (string, error) {
	ctx := context.Background()
	fresh, err := Execute(ctx, p)
	if err != nil {
		return "", err
	}
	got, err := pool.Execute(ctx, p)
	if err != nil {
		return "", err
	}
	a, _ := json.Marshal(fresh)
	b, _ := json.Marshal(got)
	if string(a) == string(b) {
		return "", nil
	}
	for i := range min(len(fresh.Events), len(got.Events)) {
		x, _ := json.Marshal(fresh.Events[i])
		y, _ := json.Marshal(got.Events[i])
		if string(x) != string(y) {
			return fmt.Sprintf("event %d:\n  new group:    %s\n  handed on:    %s", i, x, y), nil
		}
	}
	return fmt.Sprintf("%d events against %d, or the summary:\n  new group: %+v\n  handed on: %+v", len(fresh.Events), len(got.Events), fresh.Summary, got.Summary), nil
}

// TestReusedGroupsGiveTheSameRuns: a chaos batch's pool hands a finished
// run's Raft group on to a later run (raftreuse.go), and every run gives
// the same events and summary, byte for byte, as on a group booted for
// it: on raft, etcd and ZooKeeper, with crashes, restarts, lost disks and
// partitions in the runs before and in the run itself.
// One run at a time, the test knows which runs were handed a group and
// checks that those include each kind of fault; then again with runs at
// once, as a batch has them, where a follower may still be applying the
// last run's commands when the next one starts.
func TestReusedGroupsGiveTheSameRuns(t *testing.T) {
	const n = 120 // fewer do not hand on a run with each kind of fault
	backends := []string{BackendRaft, "etcd", "zookeeper"}
	if testing.Short() {
		backends = backends[:1]
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			preps := reuseSeeds(t, backend, 20261201, n)
			pool := newStoresPool(4)
			defer pool.Close()
			handed := map[string]int{}
			for i, p := range preps {
				before := pool.Stats().Reused
				diff, err := sameResult(p, pool)
				if err != nil {
					t.Fatal(err)
				}
				if diff != "" {
					t.Fatalf("seed %d differs on a group handed on at %s", 20261201+i, diff)
				}
				if pool.Stats().Reused == before {
					continue
				}
				handed["any"]++
				for _, f := range p.sc.Faults {
					handed[f.Do]++
				}
			}
			t.Logf("runs on a group handed on, and their faults: %v", handed)
			if handed["any"] < n/4 {
				t.Errorf("only %d runs of %d were handed a group", handed["any"], n)
			}
			for _, kind := range []string{FaultCrash, FaultRestart, FaultPartition, FaultLoseDisk} {
				if backend == BackendRaft && handed[kind] == 0 {
					t.Errorf("no run with a %q fault was handed a group: %v", kind, handed)
				}
			}

			// Runs at once.
			var wg sync.WaitGroup
			next := make(chan int)
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range next {
						if diff, err := sameResult(preps[i], pool); err != nil || diff != "" {
							t.Errorf("seed %d, runs at once: %v %s", 20261201+i, err, diff)
						}
					}
				}()
			}
			for i := range preps {
				next <- i
			}
			close(next)
			wg.Wait()
		})
	}
}

// TestReusedGroupsGiveTheSameChaos: a whole chaos batch finds the same
// with groups handed on from run to run (the command's way) as with a new
// group for every run. The ZooKeeper batch with lost disks is also the
// check that such runs are the same every time: while a message on a cut
// link was refused, Raft backed off its replication to the follower, which
// then caught up too late when the other copies were lost in one instant
// (about one run in 400 of that batch differed from itself, on new groups
// too).
func TestReusedGroupsGiveTheSameChaos(t *testing.T) {
	runs := 200
	if testing.Short() {
		runs = 40
	}
	for _, opt := range []ChaosOptions{
		{Runs: runs, Seed: 1, Backend: BackendRaft, Fencing: true},
		{Runs: runs, Seed: 1, Backend: BackendRaft},
		{Runs: runs, Seed: 7, Backend: "zookeeper", LoseDisk: true},
	} {
		pool := newStoresPool(8)
		opt.Execute = pool.Execute
		reused, err := Chaos(context.Background(), opt)
		pool.Close()
		if err != nil {
			t.Fatal(err)
		}
		opt.Execute = Execute
		fresh, err := Chaos(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(fresh)
		b, _ := json.Marshal(reused)
		if string(a) != string(b) {
			t.Errorf("%s seed %d: the batch differs with groups handed on:\n  new groups: %s\n  handed on:  %s", opt.Backend, opt.Seed, a, b)
		}
		if st := pool.Stats(); st.Reused < int64(runs) {
			t.Errorf("%s: only %d runs of the batch were handed a group", opt.Backend, st.Reused)
		}
	}
}
