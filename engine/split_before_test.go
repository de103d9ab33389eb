package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// splitBeforeScenario: node-1 grants client-1 the lock at 0s with lease
// ms, then a partition at 500ms cuts node-1 off with client-1 before the
// copy reaches node-2 (lag 1s); the monitor promotes node-2, which grants
// client-2 at 3s while node-1 still keeps client-1's lease. client-1
// renews every second when renew is set; node-1's clock jumps past the
// lease's end at 2s when jump is set, so that node-1 no longer keeps it.
func splitBeforeScenario(lease int64, renew, jump bool) engine.Scenario {
	c1 := engine.Client{Name: "client-1", Steps: []engine.Step{
		{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(6)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}}
	if renew {
		c1.RenewEvery = engine.Sec(1)
	}
	faults := []engine.Fault{{At: engine.Ms(500), Do: "partition", Side: []string{"node-1", "client-1"}, For: engine.Sec(30)}}
	if jump {
		faults = append(faults, engine.Fault{At: engine.Ms(2000), Do: "clock_jump", Target: "node-1", By: engine.Ms(lease + 1000)})
	}
	return engine.Scenario{
		Title: "two primaries over a lease granted before the split", Seed: 1, Fencing: false, Until: engine.Sec(60),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Ms(lease), FirstToken: 33,
			ReplicationLag: engine.Sec(1), Election: engine.Ms(700)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{c1, {Name: "client-2", Start: engine.Sec(3), Steps: []engine.Step{
			{Do: "acquire"}, {Do: "read"}, {Do: "write", Add: ptr(int64(200))}, {Do: "release"}}}},
		Faults: faults,
	}
}

// TestSplitBrainCountsLeaseGrantedBeforeSplit: the promoted node-2
// grants client-2 the lock while the deposed node-1, cut off with
// client-1, still keeps the lease it granted client-1 before the
// partition: two primaries granted at once, each on its own side, as
// split_brain_grants is defined ("the lease it overlaps was granted or
// last renewed by the other"), whether client-1 renewed it on node-1
// since or not, and the verdict says so beside the forgotten grant.
// Before, only a lease granted or renewed after the split counted: the
// promoted node-2 forgot client-1's grant, so the renewals node-1 made
// alone never reached the world's record of it. When node-1's clock
// ended client-1's lease before node-2 granted, node-1 no longer kept
// it: the double grant is not two primaries'. Swept over the lease,
// renewing or not, and that jump.
func TestSplitBrainCountsLeaseGrantedBeforeSplit(t *testing.T) {
	for _, lease := range []int64{5000, 8000, 15000} {
		for _, renew := range []bool{false, true} {
			for _, jump := range []bool{false, true} {
				res := mustRun(t, splitBeforeScenario(lease, renew, jump))
				name := fmt.Sprintf("lease %dms, renew %v, node-1's clock jumps %v", lease, renew, jump)
				g1, g2 := find(res, "client-1", engine.KindGranted), find(res, "client-2", engine.KindGranted)
				if len(g1) != 1 || g1[0].Node != "node-1" || len(g2) != 1 || g2[0].Node != "node-2" || g2[0].T != 3000 {
					t.Fatalf("%s: client-1 granted %v, client-2 %v: not the run meant", name, g1, g2)
				}
				s, v := res.Summary, engine.Verdict(res.Summary)
				if s.DoubleGrants != 1 {
					t.Fatalf("%s: %d double grants, want 1", name, s.DoubleGrants)
				}
				want := map[bool]int{false: 1, true: 0}[jump]
				if s.SplitBrainGrants != want {
					t.Errorf("%s: split_brain_grants %d, want %d", name, s.SplitBrainGrants, want)
				}
				if said := strings.Contains(v, "by two primaries at once, each serving its own side of a partition"); said != (want == 1) {
					t.Errorf("%s: the verdict %q names two primaries: %v", name, v, said)
				}
			}
		}
	}
}
