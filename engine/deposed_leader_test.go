package engine_test

import (
	"fmt"
	"testing"

	"github.com/leaselab/playground/engine"
)

// deposedLeaderScenario: a partition at 500ms cuts node-1, the primary,
// off with client-2, which it granted and which renews every second;
// node-2 is promoted after lock.election (1s) and crashes at 8s when
// crashPromoted is set, so the monitor finds no node to promote. A crash
// aimed at the leader strikes at at.
func deposedLeaderScenario(lease, at int64, crashPromoted bool) engine.Scenario {
	faults := []engine.Fault{{At: engine.Ms(500), Do: "partition", Side: []string{"node-1", "client-2"}, For: engine.Sec(30)}}
	if crashPromoted {
		faults = append(faults, engine.Fault{At: engine.Sec(8), Do: "crash", Target: "node-2"})
	}
	faults = append(faults, engine.Fault{At: engine.Ms(at), Do: "crash", Target: engine.TargetLeader})
	return engine.Scenario{
		Title: "the leader while only a deposed primary serves", Seed: 1, Fencing: true, Until: engine.Sec(60),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Ms(lease), FirstToken: 33,
			ReplicationLag: engine.Ms(100), Election: engine.Sec(1)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{{Name: "client-2", RenewEvery: engine.Sec(1), Steps: []engine.Step{
			{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(15)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}}},
		Faults: faults,
	}
}

// TestLeaderFaultStrikesDeposedPrimary: while no primary serves (the
// monitor has yet to promote node-2, or node-2 crashed and none could be
// promoted), the deposed node-1 still answers client-2 on its side of
// the partition and renews its lease: it leads there. A crash aimed at
// the leader strikes it, and client-2's next renewal goes unanswered.
// Before, the fault said "no node leads right now" and did nothing while
// node-1 went on renewing. Swept over the lease and when the crash
// strikes: in the election's wait or after the promoted node crashed.
// While node-2 serves, the leader is node-2.
func TestLeaderFaultStrikesDeposedPrimary(t *testing.T) {
	for _, lease := range []int64{5000, 8000} {
		for _, c := range []struct {
			at            int64
			crashPromoted bool
			want          string
		}{{1200, false, "node-1"}, {12000, true, "node-1"}, {4000, false, "node-2"}} {
			res := mustRun(t, deposedLeaderScenario(lease, c.at, c.crashPromoted))
			name := fmt.Sprintf("lease %dms, leader crashed at %dms", lease, c.at)
			if ig := find(res, engine.ActorEngine, engine.KindFaultIgnored); len(ig) != 0 {
				t.Errorf("%s: the crash was ignored: %v", name, ig)
			}
			var struck []string
			for _, e := range find(res, "", engine.KindNodeCrashed) {
				if e.T == c.at {
					struck = append(struck, e.Actor)
				}
			}
			if len(struck) != 1 || struck[0] != c.want {
				t.Errorf("%s: the crash struck %v, want %s", name, struck, c.want)
			}
			if c.want != "node-1" {
				continue
			}
			renewedAfter := false
			for _, e := range find(res, "client-2", engine.KindRenewed) {
				renewedAfter = renewedAfter || e.T > c.at
			}
			if renewedAfter {
				t.Errorf("%s: client-2 was renewed after its primary crashed", name)
			}
		}
	}
}
