package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// grantBackScenario: client-2 is granted the lock by node-1 at 1s; at
// 1.2s node-1 is cut off alone, before the grant's copy reaches node-2,
// which is promoted without it at 1.9s and grants client-1 the same token
// at 2s. node-2 crashes at 2.5s. When the partition heals at 5.2s, node-1,
// deposed, still holds client-2's grant, answers the clients, and renews
// it at 7s; the monitor makes it primary again at 5.9s.
func grantBackScenario() engine.Scenario {
	return engine.Scenario{
		Title: "a forgotten grant comes back", Seed: 1, Fencing: true, Until: engine.Sec(30),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Sec(10), FirstToken: 33,
			ReplicationLag: engine.Ms(500), Election: engine.Ms(700)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{
			{Name: "client-2", Start: engine.Sec(1), RenewEvery: engine.Sec(2), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(12)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
			{Name: "client-1", Start: engine.Sec(2), RetryEvery: engine.Ms(500), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(1)}, {Do: "write", Add: ptr(int64(10))}, {Do: "release"}}},
		},
		Faults: []engine.Fault{
			{At: engine.Ms(1200), Do: "partition", Target: "node-1", For: engine.Sec(4)},
			{At: engine.Ms(2500), Do: "crash", Target: "node-2"}},
	}
}

// TestForgottenGrantComesBack: node-2 forgot client-2's grant at 1.9s,
// but node-1, which kept it, answers the clients again from 5.2s and
// renews it: the timeline says the grant is back when the clients reach
// node-1 (grant_back, naming who forgot it and when), before any renewal,
// and forgotten_grants counts only client-1's grant, which node-1, made
// primary again, never received: the verdict says the service forgot 1
// grant, not 2. Before, the renewals came without a word and the grant
// stayed counted forgotten.
func TestForgottenGrantComesBack(t *testing.T) {
	res := mustRun(t, grantBackScenario())
	back := find(res, "node-1", engine.KindGrantBack)
	if len(back) != 1 || back[0].T != 5200 || back[0].Holder != "client-2" || back[0].Token != 33 {
		t.Fatalf("grant_back events %v, want one by node-1 at 5.2s for client-2's token 33", back)
	}
	if want := "which node-2 forgot at 1.9s"; !strings.Contains(engine.Describe(back[0]), want) {
		t.Errorf("grant_back says %q, want it to name %q", engine.Describe(back[0]), want)
	}
	renewed := find(res, "client-2", engine.KindRenewed)
	if len(renewed) == 0 || renewed[0].T < back[0].T {
		t.Errorf("client-2's renewals %v: none before the timeline says the grant is back", renewed)
	}
	s := res.Summary
	if s.ForgottenGrants != 1 {
		t.Errorf("forgotten_grants %d, want 1: client-2's grant came back, client-1's stayed forgotten", s.ForgottenGrants)
	}
	if v := engine.Verdict(s); !strings.Contains(v, "the lock service forgot 1 grant while its lease ran") {
		t.Errorf("verdict %q", v)
	}
}

// TestForgottenGrantsStayForgotten sweeps generated async-replica runs:
// a grant counted forgotten while its lease ran is never renewed or
// confirmed by a node that serves afterwards, nor defended (another
// client refused because its holder holds the lock), unless the timeline
// first says it is back; forgotten_grants counts the grant_forgotten
// events (not ended) less the grant_back ones. A renewal or check
// answered after the forgetting says it was served before it (chaos seed
// 195), and a release answered after it says the service had forgotten
// the grant (chaos seed 543). Under -short (the race-detector pass) a tenth of the seeds,
// which still hold seed 70's grant that comes back.
func TestForgottenGrantsStayForgotten(t *testing.T) {
	backs := 0
	eachAsyncRun(t, 1500, func(seed int64, fencing bool, _ engine.Scenario, res *engine.Result) {
		type grant struct {
			client string
			token  int64
		}
		forgot := map[grant]int64{}
		counted := 0
		for _, e := range res.Events {
			switch e.Kind {
			case engine.KindGrantForgotten:
				if !e.Ended {
					forgot[grant{e.Holder, e.Token}] = e.T
					counted++
				}
			case engine.KindGrantBack:
				if e.Ended {
					break // a lease that had ended, not a forgotten grant (TestEndedLeaseIsNeverDefendedUnsaid)
				}
				delete(forgot, grant{e.Holder, e.Token})
				counted--
				backs++
			case engine.KindGranted:
				delete(forgot, grant{e.Actor, e.Token})
			case engine.KindRenewed, engine.KindCheckOK:
				if at, ok := forgot[grant{e.Actor, e.Token}]; ok && !strings.Contains(engine.Describe(e), "before the lock service forgot this grant") {
					t.Errorf("seed %d fencing %v: %s's token %d, forgotten at %dms, %s at %dms without a word that it came back or was served before: %q", seed, fencing, e.Actor, e.Token, at, e.Kind, e.T, engine.Describe(e))
				}
			case engine.KindAcquireRefused:
				if at, ok := forgot[grant{e.Holder, e.Token}]; ok {
					t.Errorf("seed %d fencing %v: %s's token %d, forgotten at %dms, defended at %dms: %q", seed, fencing, e.Holder, e.Token, at, e.T, engine.Describe(e))
				}
			case engine.KindReleased:
				if at, ok := forgot[grant{e.Actor, e.Token}]; ok && !strings.Contains(engine.Describe(e), "had forgotten that grant") {
					t.Errorf("seed %d fencing %v: %s's token %d, forgotten at %dms, released at %dms without a word that the service had forgotten it: %q", seed, fencing, e.Actor, e.Token, at, e.T, engine.Describe(e))
				}
			}
		}
		if res.Summary.ForgottenGrants != counted {
			t.Errorf("seed %d fencing %v: forgotten_grants %d, but %d grants stayed forgotten", seed, fencing, res.Summary.ForgottenGrants, counted)
		}
	})
	if backs == 0 {
		t.Fatal("no grant came back in the sweep: it tests nothing")
	}
}
