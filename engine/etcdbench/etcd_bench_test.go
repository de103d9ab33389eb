package etcdbench

import (
	"flag"
	"testing"
	"time"
)

var (
	phaseTime   = flag.Duration("phase", 500*time.Millisecond, "how long each service runs in each round")
	sameProcess = flag.Bool("same-process", false, "run every service in the benchmark's own process, sharing one heap and one collector")
	aa          = flag.Bool("aa", false, "an A/A check: a second copy of the engine's service, in a process of its own, in place of etcd")
)

// A phase of a round: op run on the service host.
type phaseSpec struct{ name, host, op string }

// BenchmarkLockServices runs the same lock operations, from 64 clients on
// distinct locks (acquire, release, acquire ...), against:
//
//   - engine: the engine's 3-node hashicorp/raft lock group (the path runs
//     use: encode, Apply on the leader, commit on a majority, the lock
//     state machine on every node);
//   - bare: raft.Apply of an empty entry on the same group, nothing for the
//     state machine to do (the ceiling);
//   - etcd-1, etcd-3: embedded etcd (go.etcd.io/etcd/server/v3/embed), one
//     member and three, data on tmpfs with UnsafeNoFsync, reached through
//     its in-process client (v3client: no sockets, like the engine).
//
// Each service runs in a process of its own (a copy of the test binary,
// see startChild), as a deployed service does, so that none pays for
// another's heap: in one process every collection, whichever service's
// garbage set it off, walks both (-same-process runs them that way, to
// compare).
//
// Each of the b.N rounds gives every phase the same time (-phase), one
// phase at a time, timed inside its process, in the orders of a balanced
// Latin square (williams) so that each phase comes right after each other
// one as often and a change in the machine's load falls on all of them.
// Equal times, not equal counts: a service starts each phase slower (its
// threads woke from sleep while the others ran), and with equal counts
// the fastest service's phases were the shortest, so it paid that start
// most often for its time. The throughputs are operations over time
// summed across the rounds, the ratios the engine's over each other's.
// -aa puts a second copy of the engine's service in place of etcd; its
// ratios should come out near 1, and their spread is the harness's.
func BenchmarkLockServices(b *testing.B) {
	phases := []phaseSpec{
		{"engine", "engine", "engine"},
		{"bare", "engine", "bare"},
		{"etcd-1", "etcd-1", "etcd-1"},
		{"etcd-3", "etcd-3", "etcd-3"},
	}
	ratios := [][2]int{{0, 1}, {0, 2}, {0, 3}}
	if *aa {
		phases[2] = phaseSpec{"engine-b", "engine#b", "engine"}
		phases[3] = phaseSpec{"bare-b", "engine#b", "bare"}
		ratios = [][2]int{{0, 1}, {0, 2}, {1, 3}}
	}
	hosts := map[string]func(op string, d time.Duration) (int, time.Duration, error){}
	for _, p := range phases {
		if hosts[p.host] != nil {
			continue
		}
		if *sameProcess {
			svc, err := openService(p.host)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(svc.close)
			hosts[p.host] = svc.phase
		} else {
			hosts[p.host] = startChild(b, p.host).phase
		}
	}
	ops := make([]int, len(phases))
	took := make([]time.Duration, len(phases))
	b.ResetTimer()
	for r := range b.N {
		for _, i := range williams[r%len(williams)] {
			n, d, err := hosts[phases[i].host](phases[i].op, *phaseTime)
			if err != nil {
				b.Fatal(err)
			}
			ops[i] += n
			took[i] += d
		}
	}
	b.StopTimer()
	rate := func(i int) float64 { return float64(ops[i]) / took[i].Seconds() }
	for i, p := range phases {
		b.ReportMetric(rate(i), p.name+"-ops/s")
	}
	for _, r := range ratios {
		b.ReportMetric(rate(r[0])/rate(r[1]), phases[r[0]].name+"/"+phases[r[1]].name)
	}
	b.ReportMetric(0, "ns/op")
}

// williams is a balanced Latin square of the four phases' order: in its
// four rows every phase comes right after every other one exactly once
// (turning one order round would keep each phase behind the same one).
var williams = [4][4]int{{0, 1, 3, 2}, {1, 2, 0, 3}, {2, 3, 1, 0}, {3, 0, 2, 1}}
