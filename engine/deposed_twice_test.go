package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// deposedTwiceScenario: a partition cuts node-1, the primary, off alone
// from 500ms to 5.5s; node-2 is promoted at 1.5s and grants client-1 the
// lock at 2s. At 4s a second partition cuts node-2 off with client-1,
// while node-1 is still cut off: the monitor reaches neither and waits.
// At 5.5s node-1 is back in the monitor's reach, node-2 is not: node-2 is
// replaced too, and node-1, which never reached node-2 to rejoin as its
// replica, still believes it is primary. client-2 asks for the lock from
// ask ms.
func deposedTwiceScenario(ask int64) engine.Scenario {
	return engine.Scenario{
		Title: "both primaries deposed", Seed: 1, Fencing: true, Until: engine.Sec(40),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Sec(8), FirstToken: 33,
			ReplicationLag: engine.Ms(100), Election: engine.Sec(1)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{
			{Name: "client-1", Start: engine.Sec(2), RenewEvery: engine.Sec(1), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(12)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
			{Name: "client-2", Start: engine.Ms(ask), RetryEvery: engine.Ms(300), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(1)}, {Do: "write", Add: ptr(int64(10))}, {Do: "release"}}},
		},
		Faults: []engine.Fault{
			{At: engine.Ms(500), Do: "partition", Target: "node-1", For: engine.Sec(5)},
			{At: engine.Sec(4), Do: "partition", Side: []string{"node-2", "client-1"}, For: engine.Sec(20)}},
	}
}

// TestTwiceDeposedPrimaryStillServes: node-1, deposed at 500ms, never
// reached node-2 again, so once back in reach at 5.5s it still believes
// it is primary and answers client-2 at once, as a deposed primary does,
// not only when the monitor promotes it at 6.5s: client-2 is granted the
// lock by node-1 before 6.5s, and never told that no server answered or
// that it was cut off. That grant, while node-2 keeps client-1's lease on
// the other side, is two primaries granting at once (split_brain_grants).
// The monitor's promotion of node-1 says it serves again with its own
// record, not with copies it never received. Before, node-2's deposition
// overwrote node-1's: node-1 stayed silent until 6.5s, was said to be
// promoted "with the copies it had received", and its grant beside node-2
// was counted a split brain only when made after the promotion. Swept
// over when client-2 first asks.
func TestTwiceDeposedPrimaryStillServes(t *testing.T) {
	for _, ask := range []int64{5600, 5900, 6200} {
		name := fmt.Sprintf("client-2 asks at %dms", ask)
		res := mustRun(t, deposedTwiceScenario(ask))
		for _, e := range find(res, "client-2", engine.KindUnavailable) {
			if e.T >= 5500 && e.T < 6500 {
				t.Errorf("%s: at %dms %q, while node-1, reached, believed it was primary", name, e.T, engine.Describe(e))
			}
		}
		granted := find(res, "client-2", engine.KindGranted)
		if len(granted) == 0 || granted[0].Node != "node-1" || granted[0].T != ask {
			t.Errorf("%s: client-2's grants %v, want the first by node-1 at once", name, granted)
		}
		promoted := ""
		for _, e := range find(res, "node-1", engine.KindLeader) {
			if e.T == 6500 {
				promoted = e.Message
			}
		}
		if want := "is promoted to primary again with its own record"; !strings.HasPrefix(promoted, want) {
			t.Errorf("%s: node-1 at 6.5s %q, want %q", name, promoted, want)
		}
		if s := res.Summary; s.DoubleGrants == 0 || s.SplitBrainGrants != s.DoubleGrants {
			t.Errorf("%s: double_grants %d, split_brain_grants %d: node-1 and node-2 each granted on its own side", name, s.DoubleGrants, s.SplitBrainGrants)
		}
	}
}
