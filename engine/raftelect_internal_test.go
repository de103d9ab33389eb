package engine

import "testing"

// TestElectionRestriction: node-1 is cut off while node-2 opens term 3
// (node-3 stores its first entry), then node-2 crashes. When node-1 heals,
// node-1 and node-3 make a majority, but node-3 refuses its vote to a
// candidate whose log lacks term 3: only node-3 can win, in term 4. The
// timeline must say so, and the real group must agree.
func TestElectionRestriction(t *testing.T) {
	sc := raftScenarios(t)["stale-log-heals"]
	probe := &raftProbe{}
	res := probedRun(t, sc, probe, nil)
	var leaders []Event
	for _, e := range res.Events {
		if e.Kind == KindLeader {
			leaders = append(leaders, e)
		}
	}
	if len(leaders) != 3 {
		t.Fatalf("%d leader events, want 3 (boot, node-2, the successor): %+v", len(leaders), leaders)
	}
	last := leaders[2]
	if last.Node != "node-3" || last.Term != 4 {
		t.Errorf("after node-1 heals: %s in term %d, want node-3 in term 4", last.Node, last.Term)
	}
	if got := probe.leaders[2][1]; got != last.Node {
		t.Errorf("the timeline names %s, %s really leads", last.Node, got)
	}
	if got := probe.terms[2][1]; got != last.Term && !probe.detoured[2] {
		t.Errorf("the timeline says term %d, the real leader is in term %d", last.Term, got)
	}
	for _, p := range probe.problems {
		t.Error(p)
	}
}
