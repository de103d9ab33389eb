package engine

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPreset runs each preset as fast as possible, fenced, including
// starting and stopping its Raft group and database.
func BenchmarkPreset(b *testing.B) {
	for _, name := range PresetNames() {
		p, err := LoadPreset(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Execute(context.Background(), p.Prepared()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchGroup starts a 3-node Raft lock group outside any scenario.
func benchGroup(b *testing.B) *raftService {
	b.Helper()
	w := &world{ctx: context.Background(), s: newScheduler()}
	svc, err := startRaft(w, 3, 33, raftFast)
	if err != nil {
		b.Fatal(err)
	}
	w.svc = svc
	b.Cleanup(func() { svc.close() })
	return svc
}

// BenchmarkRaftLockSequential measures one acquire plus one release,
// each committed on a majority of a 3-node group, one after the other.
func BenchmarkRaftLockSequential(b *testing.B) {
	svc := benchGroup(b)
	b.ReportAllocs()
	var id uint64
	for b.Loop() {
		id++
		r, _, ok := svc.serve(Command{Op: OpAcquire, Lock: "l", Client: "c", Lease: 10000, ReqID: 2 * id})
		if !ok || !r.OK {
			b.Fatalf("acquire: %+v", r)
		}
		if r, _, ok = svc.serve(Command{Op: OpRelease, Lock: "l", Client: "c", Token: r.Token, ReqID: 2*id + 1}); !ok || !r.OK {
			b.Fatalf("release: %+v", r)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/acquire+release")
}

// BenchmarkRaftLockConcurrent measures lock operations a second from 64
// clients on distinct locks, beside a bare raft.Apply of a no-op command on
// the same group: the ceiling that the lock state machine is compared to.
func BenchmarkRaftLockConcurrent(b *testing.B) {
	const clients = 64
	svc := benchGroup(b)
	leader := svc.nodes[svc.leader].r
	noop := EncodeCommand(Command{}) // decodes and applies as an unknown command: the FSM does nothing
	phase := func(op func(client int, seq uint64)) float64 {
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for seq := uint64(1); next.Add(1) <= int64(b.N); seq++ {
					op(c, seq)
				}
			}()
		}
		wg.Wait()
		return float64(b.N) / time.Since(start).Seconds()
	}
	b.ReportAllocs()
	b.ResetTimer()
	ceiling := phase(func(int, uint64) {
		if err := leader.Apply(noop, raftApplyWait).Error(); err != nil {
			b.Error(err)
		}
	})
	tokens := make([]int64, clients)
	lockOps := phase(func(c int, seq uint64) {
		cmd := Command{Op: OpAcquire, Lock: fmt.Sprint("lock-", c), Client: fmt.Sprint("client-", c), Lease: 10000, ReqID: seq}
		if tokens[c] != 0 {
			cmd.Op, cmd.Token = OpRelease, tokens[c]
		}
		r, _, ok := svc.serve(cmd)
		if !ok || !r.OK {
			b.Errorf("%v: %+v", cmd.Op, r)
			return
		}
		if cmd.Op == OpAcquire {
			tokens[c] = r.Token
		} else {
			tokens[c] = 0
		}
	})
	b.ReportMetric(lockOps, "lock-ops/s")
	b.ReportMetric(ceiling, "noop-applies/s")
	b.ReportMetric(lockOps/ceiling, "ratio")
}

// BenchmarkLiveRunHeap reports the heap a live, paused run holds: a
// 3-node Raft group, its actors and its database.
func BenchmarkLiveRunHeap(b *testing.B) {
	p, err := LoadPreset("paused-holder")
	if err != nil {
		b.Fatal(err)
	}
	const live = 20
	var total float64
	for b.Loop() {
		before := heapInUse()
		runs := make([]*Run, 0, live)
		ctx, cancel := context.WithCancel(context.Background())
		for range live {
			r, err := Start(ctx, p.Prepared(), Options{Paused: true})
			if err != nil {
				b.Fatal(err)
			}
			runs = append(runs, r)
		}
		total += float64(heapInUse()-before) / live
		cancel()
		for _, r := range runs {
			r.Wait()
		}
	}
	b.ReportMetric(total/float64(b.N), "heap-bytes/live-run")
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// BenchmarkChaos measures chaos throughput: random schedules generated,
// run and checked (safety and linearizability) a second, with the default
// workers, including shrinking the first violation of the batch.
func BenchmarkChaos(b *testing.B) {
	for _, backend := range []string{BackendRaft, BackendSingle, BackendAsyncReplica, BackendRedlock} {
		b.Run(backend, func(b *testing.B) {
			const runs = 50
			for b.Loop() {
				opt := ChaosOptions{Runs: runs, Seed: 1, Backend: backend, Fencing: backend != BackendRedlock, Examples: 1}
				if _, err := Chaos(context.Background(), opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(runs*b.N)/b.Elapsed().Seconds(), "schedules/s")
		})
	}
}

// BenchmarkIdleGroupCPU reports the CPU an idle live run costs (30 runs
// started paused, measured over two seconds), fast and watched: the
// Raft timers are most of it.
func BenchmarkIdleGroupCPU(b *testing.B) {
	for _, tc := range []struct {
		name  string
		speed float64
	}{{"fast", 0}, {"watched", 10}} {
		b.Run(tc.name, func(b *testing.B) {
			p, err := LoadPreset("paused-holder")
			if err != nil {
				b.Fatal(err)
			}
			const groups = 30
			var share float64
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				runs := make([]*Run, 0, groups)
				for range groups {
					r, err := Start(ctx, p.Prepared(), Options{Paused: true, Speed: tc.speed})
					if err != nil {
						b.Fatal(err)
					}
					runs = append(runs, r)
				}
				time.Sleep(300 * time.Millisecond)
				c0, w0 := processCPU(), time.Now()
				time.Sleep(2 * time.Second)
				share += float64(processCPU()-c0) / float64(time.Since(w0)) / groups
				cancel()
				for _, r := range runs {
					r.Wait()
				}
			}
			b.ReportMetric(100*share/float64(b.N), "cpu-%-per-idle-group")
		})
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
