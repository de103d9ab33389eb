package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// keptBesideScenario: client-1 is granted the lock by node-1 at 1s; at
// 1.5s a partition cuts node-1 off with client-1, before the grant's copy
// reaches node-2, which is promoted without it at 2.5s. node-1, deposed,
// goes on renewing client-1's grant, and client-1 writes and releases
// there; client-2 is granted the same token by node-2.
func keptBesideScenario() engine.Scenario {
	return engine.Scenario{
		Title: "a grant the deposed primary keeps", Seed: 1, Fencing: true, Until: engine.Sec(20),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Sec(6), FirstToken: 33,
			ReplicationLag: engine.Sec(1), Election: engine.Sec(1)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{
			{Name: "client-1", Start: engine.Sec(1), RenewEvery: engine.Ms(1500), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(6)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
			{Name: "client-2", Start: engine.Sec(3), RetryEvery: engine.Ms(500), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(1)}, {Do: "write", Add: ptr(int64(10))}, {Do: "release"}}},
		},
		Faults: []engine.Fault{{At: engine.Ms(1500), Do: "partition", Side: []string{"node-1", "client-1"}, For: engine.Sec(10)}},
	}
}

// TestGrantKeptBesideIsNotForgotten: node-2, promoted, never received
// client-1's grant, but node-1, deposed, keeps it for client-1, who goes
// on renewing, writing and releasing there: the grant is not forgotten
// (no grant_forgotten while its lease ran, forgotten_grants 0), the
// promotion says which grant node-2 never received and who still holds
// it, and client-2's grant over it is two primaries granting at once.
// Before, node-2's promotion counted the grant forgotten, and the
// verdict said the service forgot a grant its holder was never refused.
func TestGrantKeptBesideIsNotForgotten(t *testing.T) {
	res := mustRun(t, keptBesideScenario())
	for _, e := range find(res, "", engine.KindGrantForgotten) {
		if !e.Ended {
			t.Errorf("at %dms %q: node-1 kept the grant for client-1", e.T, engine.Describe(e))
		}
	}
	promoted := ""
	for _, e := range find(res, "node-2", engine.KindLeader) {
		promoted = e.Message
	}
	if want := "it never received client-1's grant of token 33, which node-1, deposed, still holds for the clients that reach it"; !strings.Contains(promoted, want) {
		t.Errorf("node-2's promotion %q, want %q", promoted, want)
	}
	if len(find(res, "client-1", engine.KindReleased)) != 1 {
		t.Errorf("client-1 did not release: %v", find(res, "client-1", ""))
	}
	s := res.Summary
	if s.ForgottenGrants != 0 || s.DoubleGrants != 1 || s.SplitBrainGrants != 1 {
		t.Errorf("forgotten_grants %d, double_grants %d, split_brain_grants %d: want 0, 1, 1", s.ForgottenGrants, s.DoubleGrants, s.SplitBrainGrants)
	}
}

// keptAcrossScenario: client-1 is granted the lock by node-1 at 1s; at
// 1.5s a partition cuts node-1 off with client-2, not with client-1,
// before the grant's copy reaches node-2, which is promoted without it at
// 2.5s and answers client-1 from then on.
func keptAcrossScenario() engine.Scenario {
	sc := keptBesideScenario()
	sc.Title = "a grant the deposed primary keeps for others"
	sc.Faults = []engine.Fault{{At: engine.Ms(1500), Do: "partition", Side: []string{"node-1", "client-2"}, For: engine.Sec(10)}}
	return sc
}

// TestGrantKeptAwayFromItsHolderIsForgotten: node-1, deposed, still
// counts client-1's grant for client-2, on its side, but client-1 is
// answered by node-2, which never received the grant and refuses its
// renewal as if it held nothing: the grant is forgotten at node-2's
// promotion, and the promotion does not say node-1 keeps it for the
// holder. Before, any client reaching node-1 kept the grant from being
// forgotten.
func TestGrantKeptAwayFromItsHolderIsForgotten(t *testing.T) {
	res := mustRun(t, keptAcrossScenario())
	var forgot []engine.Event
	for _, e := range find(res, "node-2", engine.KindGrantForgotten) {
		if !e.Ended {
			forgot = append(forgot, e)
		}
	}
	if len(forgot) != 1 || forgot[0].T != 2500 || forgot[0].Holder != "client-1" {
		t.Errorf("node-2's grant_forgotten %v, want client-1's at 2.5s, while its lease ran", forgot)
	}
	for _, e := range find(res, "node-2", engine.KindLeader) {
		if strings.Contains(e.Message, "still holds") {
			t.Errorf("node-2's promotion %q: node-1 does not answer client-1", e.Message)
		}
	}
	if refused := find(res, "client-1", engine.KindRenewRefused); len(refused) == 0 {
		t.Errorf("client-1's renewals were never refused: %v", find(res, "client-1", ""))
	}
	if s := res.Summary; s.ForgottenGrants != 1 {
		t.Errorf("forgotten_grants %d, want 1", s.ForgottenGrants)
	}
}
