package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkParseScenario parses paused-holder as a browser sends it (the
// websocket's start, POST /api/run): decoding, the check for keys given
// twice, validation and normalising (parse), and the same bytes sent
// again, as a class pressing Run on one preset sends them a thousand times
// (again: ParseScenario's cache, parsecache.go).
//
// Rerun: go test ./engine -run '^$' -bench ParseScenario
func BenchmarkParseScenario(b *testing.B) {
	p, err := LoadPreset("paused-holder")
	if err != nil {
		b.Fatal(err)
	}
	data, err := json.Marshal(p.Scenario)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		parse func([]byte) (*Prepared, error)
	}{{"parse", parseScenario}, {"again", ParseScenario}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

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

// BenchmarkPresetPooled runs each Raft preset as fast as possible, fenced,
// with its group from a warm pool (as the web server does): what is left
// is the run itself, its database and shutting its group down.
//
// Rerun: go test ./engine -run '^$' -bench 'Preset' -benchtime 40x
func BenchmarkPresetPooled(b *testing.B) {
	pool, err := NewRaftPool(RaftPoolSize{Three: 4})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	for _, name := range PresetNames() {
		p, err := LoadPreset(name)
		if err != nil {
			b.Fatal(err)
		}
		if sc := p.Prepared().Scenario(); sc.Lock.Backend != BackendRaft || !UsesLock(&sc) {
			continue
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pool.Execute(context.Background(), p.Prepared()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// testGroup starts a 3-node Raft lock group outside any scenario, closed
// when the test or benchmark ends.
func testGroup(tb testing.TB) *LockGroup {
	tb.Helper()
	g, err := NewLockGroup(3)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { g.Close() })
	return g
}

// BenchmarkRaftLockSequential measures one acquire plus one release,
// each committed on a majority of a 3-node group, one after the other.
func BenchmarkRaftLockSequential(b *testing.B) {
	g := testGroup(b)
	b.ReportAllocs()
	var id uint64
	for b.Loop() {
		id++
		r, err := g.Do(Command{Op: OpAcquire, Lock: "l", Client: "c", Lease: 10000, ReqID: 2 * id})
		if err != nil || !r.OK {
			b.Fatalf("acquire: %+v %v", r, err)
		}
		if r, err = g.Do(Command{Op: OpRelease, Lock: "l", Client: "c", Token: r.Token, ReqID: 2*id + 1}); err != nil || !r.OK {
			b.Fatalf("release: %+v %v", r, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/acquire+release")
}

// lockSlices is how many slices BenchmarkRaftLockConcurrent alternates
// in. The group's throughput swings by a factor of five from one tenth of
// a second to the next (its batching, the collector, the machine), so ten
// slices could not tell a phase from itself: the bare apply measured
// against itself (an A/A run) gave ratios from 0.69 to 1.26 in ten slices,
// 0.996 to 1.018 in a hundred.
const lockSlices = 100

// BenchmarkRaftLockConcurrent measures lock operations a second from 64
// clients on distinct locks (acquire, release, acquire ...), beside a bare
// raft.Apply (an empty entry, nothing for the state machine to do) on the
// same group in the same run: the ceiling the lock service is compared
// with. The two alternate in lockSlices slices (alternate). allocs/op
// counts both kinds of operation together; the lock-B/op and
// lock-allocs/op metrics count a lock operation alone. The process's CPU
// time per operation (lock-cpu-ns/op, bare-cpu-ns/op) and its ratio, bare
// over lock (cpu-ratio), say what each costs even when the machine is too
// busy for the throughputs to be steady. BenchmarkRaftBareAgainstItself
// is the same measure with a bare apply on both sides: how far a run's
// ratio strays when the two sides do the same.
//
// Rerun: go test ./engine -run '^$' -bench RaftLockConcurrent -benchtime 3000000x -count 3
// (at 200,000 operations a second, slices of 3,000 last 15 ms and cannot
// tell the ratio to a few hundredths).
func BenchmarkRaftLockConcurrent(b *testing.B) {
	g := testGroup(b)
	driver := NewLockDriver(g, benchClients)
	lockOp := func(c int) {
		if err := driver.Op(c); err != nil {
			b.Error(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	bare, lock := alternate(b.N, bareApply(b, g), lockOp)
	lockOps := float64(b.N) / lock.wall.Seconds()
	ceiling := float64(b.N) / bare.wall.Seconds()
	b.ReportMetric(lockOps, "lock-ops/s")
	b.ReportMetric(ceiling, "bare-applies/s")
	b.ReportMetric(lockOps/ceiling, "ratio")
	b.ReportMetric(float64(lock.cpu.Nanoseconds())/float64(b.N), "lock-cpu-ns/op")
	b.ReportMetric(float64(bare.cpu.Nanoseconds())/float64(b.N), "bare-cpu-ns/op")
	b.ReportMetric(float64(bare.cpu)/float64(lock.cpu), "cpu-ratio")
	b.ReportMetric(float64(lock.bytes)/float64(b.N), "lock-B/op")
	b.ReportMetric(float64(lock.allocs)/float64(b.N), "lock-allocs/op")
}

// BenchmarkRaftBareAgainstItself is BenchmarkRaftLockConcurrent with a
// bare raft.Apply on both sides (an A/A run): its ratio would be 1 on a
// quiet, steady machine, and how far it strays from 1 from run to run is
// how far the lock benchmark's ratio strays for no reason of its own.
//
// Rerun: go test ./engine -run '^$' -bench RaftBareAgainstItself -benchtime 300000x -count 3
func BenchmarkRaftBareAgainstItself(b *testing.B) {
	g := testGroup(b)
	b.ResetTimer()
	first, second := alternate(b.N, bareApply(b, g), bareApply(b, g))
	b.ReportMetric(first.wall.Seconds()/second.wall.Seconds(), "ratio")
	b.ReportMetric(float64(first.cpu)/float64(second.cpu), "cpu-ratio")
}

// BenchmarkLockFSMApply measures the lock state machine alone, as each
// node of a Raft group applies a committed entry: BenchmarkRaftLockConcurrent's
// commands (benchClients clients, each taking its own lock and giving it
// back, in turn), encoded ahead, applied one after the other on one
// goroutine. Inside a group the same apply costs more (its slots are cold
// on whichever core the node's goroutine runs); docs/benchmarks.md says
// by how much.
//
// Rerun: go test ./engine -run '^$' -bench LockFSMApply -benchtime 4000000x -count 3
func BenchmarkLockFSMApply(b *testing.B) {
	script := lockScript(b, 1<<16)
	f := NewLockFSM(1)
	i := 0
	for b.Loop() {
		if i == len(script) {
			b.StopTimer()
			f, i = NewLockFSM(1), 0
			b.StartTimer()
		}
		r, err := f.applyEncoded(script[i])
		if err != nil || !r.OK {
			b.Fatalf("command %d: %+v %v", i, r, err)
		}
		i++
	}
}

// lockScript is n of BenchmarkRaftLockConcurrent's commands, encoded, in
// the order one client after another sends them, as a machine whose first
// token is 1 answers them.
func lockScript(tb testing.TB, n int) [][]byte {
	f := NewLockFSM(1)
	tokens := make([]int64, benchClients)
	seqs := make([]uint64, benchClients)
	out := make([][]byte, 0, n)
	for i := range n {
		c := i % benchClients
		seqs[c]++
		cmd := Command{Op: OpAcquire, Lock: fmt.Sprint("lock-", c), Client: fmt.Sprint("client-", c), Lease: 10000, ReqID: seqs[c]}
		if tokens[c] != 0 {
			cmd.Op, cmd.Token = OpRelease, tokens[c]
		}
		data := EncodeCommand(cmd)
		r, err := f.applyEncoded(data)
		if err != nil || !r.OK {
			tb.Fatalf("script command %d: %+v %v", i, r, err)
		}
		tokens[c] = 0
		if cmd.Op == OpAcquire {
			tokens[c] = r.Token
		}
		out = append(out, data)
	}
	return out
}

// benchClients is how many clients the concurrent benchmarks run.
const benchClients = 64

// bareApply is one client's bare raft.Apply on g.
func bareApply(b *testing.B, g *LockGroup) func(int) {
	return func(int) {
		if err := g.ApplyBare(); err != nil {
			b.Error(err)
		}
	}
}

// phaseCost is what one kind of operation cost over all its slices: wall
// and process CPU time, and the allocations made meanwhile.
type phaseCost struct {
	wall, cpu     time.Duration
	allocs, bytes uint64
}

// alternate runs n operations of each kind, first and second, from
// benchClients clients at once, in lockSlices slices: first goes first in
// one slice and second in the next, so that a change in the machine's
// load, the log's growth and the collections one kind's garbage sets off
// fall on both alike. A slice of each goes before, not counted.
func alternate(n int, first, second func(client int)) (a, b phaseCost) {
	run := func(cost *phaseCost, n int, op func(client int)) {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		cpu := processCPU()
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for c := range benchClients {
			wg.Go(func() {
				for next.Add(1) <= int64(n) {
					op(c)
				}
			})
		}
		wg.Wait()
		cost.wall += time.Since(start)
		cost.cpu += processCPU() - cpu
		runtime.ReadMemStats(&m1)
		cost.allocs += m1.Mallocs - m0.Mallocs
		cost.bytes += m1.TotalAlloc - m0.TotalAlloc
	}
	rounds := min(n, lockSlices)
	// One slice of each first, not counted: the first slice of a run
	// pays for the heap and the log growing from nothing, which would
	// fall on whichever kind went first.
	var warm phaseCost
	run(&warm, n/rounds, first)
	run(&warm, n/rounds, second)
	for r := range rounds {
		k := n/rounds + min(1, max(0, n%rounds-r)) // nearly equal slices
		if r%2 == 0 {
			run(&a, k, first)
			run(&b, k, second)
		} else {
			run(&b, k, second)
			run(&a, k, first)
		}
	}
	return a, b
}

// BenchmarkLiveRunHeap reports what a live, paused run holds: its live
// heap after a collection (HeapAlloc: objects still reachable, not the
// spans around them) and its goroutines. A played run holds its timeline
// and one goroutine; its Raft group was shut down and its database given
// back when its simulation ended.
func BenchmarkLiveRunHeap(b *testing.B) {
	p, err := LoadPreset("paused-holder")
	if err != nil {
		b.Fatal(err)
	}
	const live = 100
	var heap, goroutines float64
	for b.Loop() {
		before, beforeG := heapInUse(), runtime.NumGoroutine()
		runs := make([]*Run, 0, live)
		ctx, cancel := context.WithCancel(context.Background())
		for range live {
			r, err := Start(ctx, p.Prepared(), Options{Paused: true})
			if err != nil {
				b.Fatal(err)
			}
			runs = append(runs, r)
		}
		heap += float64(heapInUse()-before) / live
		goroutines += float64(runtime.NumGoroutine()-beforeG) / live
		cancel()
		for _, r := range runs {
			r.Wait()
		}
	}
	b.ReportMetric(heap/float64(b.N), "heap-bytes/live-run")
	b.ReportMetric(goroutines/float64(b.N), "goroutines/live-run")
}

// heapInUse is the heap's live objects after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkChaos measures chaos throughput: random schedules generated,
// run and checked (safety and linearizability) a second, with the default
// workers, including shrinking the first violation of the batch.
func BenchmarkChaos(b *testing.B) {
	for _, backend := range []string{BackendRaft, BackendSingle, BackendAsyncReplica, BackendRedlock} {
		b.Run(backend, func(b *testing.B) {
			const runs = 50
			cpu0 := processCPU()
			for b.Loop() {
				opt := ChaosOptions{Runs: runs, Seed: 1, Backend: backend, Fencing: backend != BackendRedlock, Examples: 1}
				if _, err := Chaos(context.Background(), opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(runs*b.N)/b.Elapsed().Seconds(), "schedules/s")
			// CPU per schedule does not depend on what else the machine
			// runs: 2,000 / cpu-ms-per-schedule is the rate two idle
			// cores could reach.
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(runs*b.N), "cpu-ms/schedule")
		})
	}
}

// BenchmarkChaosRaft300 is issue 23's chaos row as a benchmark: the batch
// `playground chaos --runs 300 --backend raft --fencing on` runs (seeds 1
// to 300, 3 nodes, fencing, three examples at most), reporting the
// seconds a batch takes and the CPU a schedule costs. The command runs
// the collector at GOGC=400 (cmd/playground, chaosMemoryBudget); a test
// binary runs at Go's default unless GOGC says otherwise.
//
// Rerun: GOGC=400 go test ./engine -run '^$' -bench ChaosRaft300 -benchtime 5x
func BenchmarkChaosRaft300(b *testing.B) {
	const runs = 300
	cpu0 := processCPU()
	for b.Loop() {
		if _, err := Chaos(context.Background(), ChaosOptions{Runs: runs, Seed: 1, Backend: BackendRaft, Fencing: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/batch")
	b.ReportMetric(float64(runs*b.N)/b.Elapsed().Seconds(), "schedules/s")
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(runs*b.N), "cpu-ms/schedule")
}

// BenchmarkIdleGroupCPU reports the CPU an idle 3-node Raft group costs,
// measured over two seconds on 30 of them waiting in a pool (Raft's
// heartbeats and commit notices are all of it), and what 30 paused live
// runs cost (what browser tabs that paused their runs hold): since a run
// is played from its simulation, they hold no group, and the figure says
// so.
//
// Rerun: go test ./engine -run '^$' -bench IdleGroupCPU -benchtime 3x
func BenchmarkIdleGroupCPU(b *testing.B) {
	const groups = 30
	measure := func(b *testing.B, start func() (stop func())) {
		var share float64
		for b.Loop() {
			stop := start()
			time.Sleep(300 * time.Millisecond)
			c0, w0 := processCPU(), time.Now()
			time.Sleep(2 * time.Second)
			share += float64(processCPU()-c0) / float64(time.Since(w0)) / groups
			stop()
		}
		b.ReportMetric(100*share/float64(b.N), "cpu-%-per-idle-group")
	}
	b.Run("paused-run", func(b *testing.B) {
		p, err := LoadPreset("paused-holder")
		if err != nil {
			b.Fatal(err)
		}
		measure(b, func() func() {
			ctx, cancel := context.WithCancel(context.Background())
			runs := make([]*Run, 0, groups)
			for range groups {
				r, err := Start(ctx, p.Prepared(), Options{Paused: true, Speed: 10})
				if err != nil {
					b.Fatal(err)
				}
				runs = append(runs, r)
			}
			return func() {
				cancel()
				for _, r := range runs {
					r.Wait()
				}
			}
		})
	})
	b.Run("pooled", func(b *testing.B) {
		measure(b, func() func() {
			pool, err := NewRaftPool(RaftPoolSize{Three: groups})
			if err != nil {
				b.Fatal(err)
			}
			for pool.Stats().Idle[3] < groups {
				time.Sleep(10 * time.Millisecond)
			}
			return func() { pool.Close() }
		})
	})
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPacedRuns starts many runs of paused-holder at once, paced at 10
// simulated seconds per wall second as a browser watches them, without the
// web server, and reports how late their events reach the sink against the
// pace (p50 and p99; each run's baseline is its most punctual event, so
// Raft's boot is not counted) and the CPU per run. It separates the
// engine's share of BenchmarkLiveSessions (web) from the websocket's.
//
// Rerun: go test ./engine -run '^$' -bench PacedRuns -benchtime 1x
func BenchmarkPacedRuns(b *testing.B) {
	p, err := LoadPreset("paused-holder")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100, 500} {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			var lags []float64
			var cpu float64
			for b.Loop() {
				lags = lags[:0]
				var mu sync.Mutex
				var wg sync.WaitGroup
				c0, w0 := processCPU(), time.Now()
				for range n {
					wg.Go(func() {
						start := time.Now()
						var at []float64 // arrival minus due, ms
						r, err := Start(context.Background(), p.Prepared(), Options{Speed: 10, Sink: func(e Event) {
							at = append(at, float64(time.Since(start))/1e6-float64(e.T)/10)
						}})
						if err != nil {
							b.Error(err)
							return
						}
						if _, err := r.Wait(); err != nil {
							b.Error(err)
							return
						}
						base := at[0]
						for _, a := range at {
							base = min(base, a)
						}
						mu.Lock()
						for _, a := range at {
							lags = append(lags, a-base)
						}
						mu.Unlock()
					})
				}
				wg.Wait()
				cpu = 100 * float64(processCPU()-c0) / float64(time.Since(w0)) / float64(n)
			}
			slices.Sort(lags)
			b.ReportMetric(lags[len(lags)/2], "lag-p50-ms")
			b.ReportMetric(lags[len(lags)*99/100], "lag-p99-ms")
			b.ReportMetric(cpu, "cpu-%-per-run")
			b.ReportMetric(0, "ns/op")
		})
	}
}
