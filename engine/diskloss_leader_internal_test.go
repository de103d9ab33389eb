package engine

import (
	"fmt"
	"testing"
)

// TestALostDiskElectsTheRealLeader: after a lost disk, the leader event
// names the node real Raft elected, in the term it really leads in, with
// no detour. node-3 is cut off while client-1 is granted the lock, then
// node-1 crashes and a follower loses its disk. A node whose disk was lost
// has an empty log and knows no group: it votes, but cannot be elected
// until a leader reaches it, so the next leader is the other follower.
// Before, the simulation counted the wiped node's log as it was before
// the loss and named it leader ("node-2 is elected leader in term 3";
// node-3 could not win, it said), while the real group elected node-3 in
// term 3 and node-2 only in term 4. Swept over the backend, which
// follower loses its disk, and when.
func TestALostDiskElectsTheRealLeader(t *testing.T) {
	for _, backend := range []string{BackendRaft, BackendZooKeeper} {
		for _, loser := range []string{"node-2", "node-3"} {
			for _, at := range []int64{1000, 2500, 4000} {
				name := fmt.Sprintf("%s, %s loses its disk at %dms", backend, loser, at)
				sc, err := DecodeScenario([]byte(fmt.Sprintf(`{"title":"a lost disk","seed":1,"fencing":true,"until":"20s",
					"lock":{"backend":%q,"nodes":3,"lease":"10s","election":"1s"},
					"storage":{"key":"account-42","initial":0},
					"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"6s"},{"do":"write","add":1},{"do":"release"}]},
					{"name":"client-2","start":"1500ms","retry_every":"1s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1},{"do":"release"}]}],
					"faults":[{"at":"0s","do":"partition","side":["node-3"],"for":"3s"},
					{"at":"%dms","do":"crash","target":"node-1"},{"at":"%dms","do":"lose_disk","target":%q}]}`, backend, at, at, loser)))
				if err != nil {
					t.Fatal(err)
				}
				probe := &raftProbe{}
				res := probedRun(t, sc, probe, nil)
				for _, p := range probe.problems {
					t.Errorf("%s: %s", name, p)
				}
				var leaders []Event
				for _, e := range res.Events {
					if e.Kind == KindLeader {
						leaders = append(leaders, e)
					}
				}
				if len(leaders) != 2 || len(probe.terms) != 2 {
					t.Fatalf("%s: leader events %v, elections seen by the group %v", name, leaders, probe.terms)
				}
				next := map[string]string{"node-2": "node-3", "node-3": "node-2"}[loser]
				if e := leaders[1]; e.Node != next || e.Term != bootTerm+1 {
					t.Errorf("%s: %s is elected in term %d (%q), want %s, the follower that kept its disk, in term %d", name, e.Node, e.Term, Describe(e), next, bootTerm+1)
				}
				sim, real := probe.terms[1][0], probe.terms[1][1]
				if sim != real || probe.leaders[1][0] != probe.leaders[1][1] || probe.detoured[1] {
					t.Errorf("%s: the timeline says %s in term %d, the real group has %s leading in term %d (detour: %v)",
						name, probe.leaders[1][0], sim, probe.leaders[1][1], real, probe.detoured[1])
				}
			}
		}
	}
}
