package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leaselab/playground/engine"
)

// newPool starts a pool and closes it when the test ends.
func newPool(t *testing.T, size engine.RaftPoolSize) *engine.RaftPool {
	t.Helper()
	pool, err := engine.NewRaftPool(size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pool.Close(); err != nil {
			t.Errorf("pool.Close: %v", err)
		}
	})
	return pool
}

// raftPresets lists the presets that run on a Raft group.
func raftPresets(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, name := range engine.PresetNames() {
		p, err := engine.LoadPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		if sc := p.Prepared().Scenario(); sc.Lock.Backend == engine.BackendRaft && engine.UsesLock(&sc) {
			out = append(out, name)
		}
	}
	return out
}

// TestPooledAndFreshGroupsGiveTheSameTimeline runs every Raft preset,
// fenced and not, on a group booted for the run and on warm groups from a
// pool, and requires the same bytes.
func TestPooledAndFreshGroupsGiveTheSameTimeline(t *testing.T) {
	pool := newPool(t, engine.RaftPoolSize{One: 1, Three: 2, Five: 1})
	for _, name := range raftPresets(t) {
		for _, fencing := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/fencing=%v", name, fencing), func(t *testing.T) {
				p := mustPrepare(t, mustPreset(t, name, fencing))
				fresh, err := engine.Execute(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 3 {
					pooled, err := pool.Execute(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := jsonOf(t, pooled), jsonOf(t, fresh); got != want {
						t.Fatalf("pooled run %d differs from a fresh one:\n%s\n---\n%s", i, got, want)
					}
				}
			})
		}
	}
	if st := pool.Stats(); st.Hits == 0 {
		t.Errorf("no run got a warm group: %+v", st)
	}
}

// TestPoolSizesAndDrains: a pool keeps the groups it is sized for, hands
// each to one run, refills, counts hits and misses, refuses sizes past its
// bound with an error naming the field, and leaves no goroutine after
// Close, which may be called twice.
func TestPoolSizesAndDrains(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	if _, err := engine.NewRaftPool(engine.RaftPoolSize{Three: engine.MaxPoolGroups + 1}); !isField(err, "pool.three") {
		t.Errorf("an oversized pool: %v, want an error naming pool.three", err)
	}
	if _, err := engine.NewRaftPool(engine.RaftPoolSize{Five: -1}); !isField(err, "pool.five") {
		t.Errorf("a negative size: %v, want an error naming pool.five", err)
	}
	if got := engine.PoolSizeForSlots(8); got != (engine.RaftPoolSize{One: 1, Three: 8, Five: 2}) {
		t.Errorf("PoolSizeForSlots(8) = %+v", got)
	}
	pool, err := engine.NewRaftPool(engine.RaftPoolSize{Three: 2})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(t, pool, 3, 2)
	sc := mustPreset(t, "paused-holder", true)
	p := mustPrepare(t, sc)
	for range 4 {
		if _, err := pool.Execute(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	five := mustPrepare(t, mustPreset(t, "paused-holder", true, "lock.nodes", "5"))
	if _, err := pool.Execute(context.Background(), five); err != nil {
		t.Fatal(err)
	}
	st := pool.Stats()
	if st.Hits+st.Misses != 5 || st.Hits == 0 || st.Misses == 0 {
		t.Errorf("5 runs, 4 of them 3-node: %+v", st)
	}
	waitIdle(t, pool, 3, 2)
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	// A closed pool still runs scenarios: each boots its own group.
	if _, err := pool.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	var nilPool *engine.RaftPool
	if _, err := nilPool.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

func isField(err error, field string) bool {
	var fe *engine.FieldError
	return errors.As(err, &fe) && fe.Field == field
}

// waitIdle waits until the pool holds n idle groups of the given size.
// Booting one takes milliseconds; the bound is a minute, generous for a
// busy machine, so that a pool that never fills fails with its counters
// instead of hanging until the test binary's timeout (t.Context ends only
// after the test returns, so it cannot bound a wait inside it).
func waitIdle(t *testing.T, pool *engine.RaftPool, nodes, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for pool.Stats().Idle[nodes] < n {
		if time.Now().After(deadline) {
			t.Fatalf("the pool never held %d idle %d-node groups: %+v", n, nodes, pool.Stats())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestHundredRunsAtOnce starts 100 Raft runs at once in one process (20
// with -short), half with groups booted for them and half from a pool much
// smaller than the burst, on two presets with a failover among them. Every
// run completes, and every run of a preset has the same timeline: a machine
// this busy makes Raft's own timers late, and the runs wait that out.
func TestHundredRunsAtOnce(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 20
	}
	pool := newPool(t, engine.RaftPoolSize{Three: 4})
	names := []string{"raft-failover", "paused-holder"}
	want := map[string]string{}
	prepared := map[string]*engine.Prepared{}
	for _, name := range names {
		prepared[name] = mustPrepare(t, mustPreset(t, name, true))
		want[name] = jsonOf(t, mustRun(t, mustPreset(t, name, true)))
	}
	got := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			p := prepared[names[i%2]]
			var res *engine.Result
			var err error
			if i%4 < 2 {
				res, err = engine.Execute(context.Background(), p)
			} else {
				res, err = pool.Execute(context.Background(), p)
			}
			if err != nil {
				errs[i] = err
				return
			}
			got[i] = jsonOf(t, res)
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("run %d (%s) failed: %v", i, names[i%2], errs[i])
		} else if got[i] != want[names[i%2]] {
			t.Errorf("run %d (%s) differs from a run alone:\n%s\n---\n%s", i, names[i%2], got[i], want[names[i%2]])
		}
	}
}
