package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// cutOffKeptScenario: client-1 is granted the lock by node-1 at 1s, lease
// until 6s; at 1.4s node-1 is cut off alone, before the copy reaches
// node-2, which is promoted without the grant at 1.7s and refuses
// client-1's renewal at 2.6s. node-2 crashes at 3s. client-1 writes and
// releases at 5s, reaching no node: node-1, deposed, the node that serves,
// is cut off from it and still counts the lease until 6s.
func cutOffKeptScenario() engine.Scenario {
	return engine.Scenario{
		Title: "a release cut off from the node that keeps its lease", Seed: 1, Fencing: true, Until: engine.Sec(20),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Sec(5), FirstToken: 33,
			ReplicationLag: engine.Ms(500), Election: engine.Ms(300)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{
			{Name: "client-1", Start: engine.Sec(1), RenewEvery: engine.Ms(1600), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(4)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
		},
		Faults: []engine.Fault{
			{At: engine.Ms(1400), Do: "partition", Target: "node-1", For: engine.Sec(7)},
			{At: engine.Sec(3), Do: "crash", Target: "node-2"}},
	}
}

// TestCutOffReleaseSaysWhoKeepsTheLease: a release that reached no server
// says that node-1, cut off, still counts the lease until 6s, not that
// the lock service had already forgotten the grant: node-2 forgot it and
// is down, and node-1, which serves, keeps it until it runs out.
func TestCutOffReleaseSaysWhoKeepsTheLease(t *testing.T) {
	res := mustRun(t, cutOffKeptScenario())
	said := ""
	for _, e := range find(res, "client-1", engine.KindUnavailable) {
		if e.Message == "release" {
			said = engine.Describe(e)
		}
	}
	if want := "; node-1, cut off, still counts the lease until 6s"; !strings.HasSuffix(said, want) {
		t.Errorf("release without an answer says %q, want it to end %q", said, want)
	}
}
