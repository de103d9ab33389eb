package engine

import (
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

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

// TestAStuckCandidateStepsDown: a node that campaigns while cut off from
// every voter cannot win its term and would campaign on its own timer, 5
// to 10 s of wall clock later, while a run stands still. stepDown makes it
// a follower again at once, in the next term, without a vote granted to
// anyone, and the group's leader leads on, untouched.
func TestAStuckCandidateStepsDown(t *testing.T) {
	g, err := NewLockGroup(3)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	s := g.svc
	leader, cut := s.nodes[0], s.nodes[1]
	leaderTerm := leader.r.CurrentTerm()
	for _, nd := range s.nodes {
		if nd != cut {
			cut.trans.Disconnect(nd.trans.LocalAddr())
			nd.trans.Disconnect(cut.trans.LocalAddr())
		}
	}
	s.timeoutNow(cut)
	waitState(t, cut, raft.Candidate)
	term := cut.r.CurrentTerm()
	s.stepDown(1)
	waitState(t, cut, raft.Follower)
	if got := cut.r.CurrentTerm(); got != term+1 {
		t.Errorf("the candidate of term %d stepped down into term %d, want %d", term, got, term+1)
	}
	if voted, _ := cut.store.GetUint64([]byte("LastVoteTerm")); voted != term {
		t.Errorf("the candidate of term %d last voted in term %d, want its own vote in its own term and none since", term, voted)
	}
	if leader.r.State() != raft.Leader || leader.r.CurrentTerm() != leaderTerm {
		t.Errorf("the leader is %v in term %d, want leader in term %d still", leader.r.State(), leader.r.CurrentTerm(), leaderTerm)
	}
}

// waitState waits up to 10 s for a node to be in state want.
func waitState(t *testing.T, nd *raftNode, want raft.RaftState) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); nd.r.State() != want; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s is %v after 10 s, want %v", nd.name, nd.r.State(), want)
		}
	}
}
