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
	s := caughtUpGroup(t)
	leader, cut := s.nodes[0], s.nodes[1]
	leaderTerm := leader.r.CurrentTerm()
	for _, nd := range s.nodes {
		if nd != cut {
			cut.trans.Disconnect(nd.trans.LocalAddr())
			nd.trans.Disconnect(cut.trans.LocalAddr())
		}
	}
	s.timeoutNow(cut)
	// Raft marks a node Candidate before it opens its term and votes for
	// itself: the term read is the one the candidate campaigns in only
	// once its own vote in that term is stored.
	var term uint64
	waitFor(t, "node-2 to campaign in a term of its own", func() bool {
		term = cut.r.CurrentTerm()
		voted, _ := cut.store.GetUint64([]byte("LastVoteTerm"))
		return cut.r.State() == raft.Candidate && term > leaderTerm && voted == term
	})
	// The request can be lost on a starved machine (the control
	// transport's timeout); settle sends it again, and so does this.
	sent := time.Now()
	s.stepDown(1)
	waitFor(t, "node-2 to step down", func() bool {
		if cut.r.State() == raft.Follower {
			return true
		}
		if time.Since(sent) > 500*time.Millisecond {
			sent = time.Now()
			s.stepDown(1)
		}
		return false
	})
	if got := cut.r.CurrentTerm(); got <= term {
		t.Errorf("the candidate of term %d stepped down into term %d, want a later one", term, got)
	}
	if voted, _ := cut.store.GetUint64([]byte("LastVoteTerm")); voted != term {
		t.Errorf("the candidate of term %d last voted in term %d, want its own vote in its own term and none since", term, voted)
	}
	if leader.r.State() != raft.Leader || leader.r.CurrentTerm() != leaderTerm {
		t.Errorf("the leader is %v in term %d, want leader in term %d still", leader.r.State(), leader.r.CurrentTerm(), leaderTerm)
	}
}

// TestStepDownLeavesALedGroupAlone: settle only steps down a candidate,
// but the node may have won, or followed a winner, by the time the request
// arrives. A leader, and a follower that knows its leader, must refuse a
// vote request for a later term, and stay as they are, in their term.
func TestStepDownLeavesALedGroupAlone(t *testing.T) {
	s := caughtUpGroup(t)
	waitFor(t, "the followers to know the leader", func() bool {
		for _, nd := range s.nodes[1:] {
			if _, id := nd.r.LeaderWithID(); id == "" {
				return false
			}
		}
		return true
	})
	term := s.nodes[0].r.CurrentTerm()
	for i := range s.nodes {
		s.stepDown(i)
	}
	for i, nd := range s.nodes {
		want := raft.Follower
		if i == 0 {
			want = raft.Leader
		}
		if nd.r.State() != want || nd.r.CurrentTerm() != term {
			t.Errorf("after stepDown %s is %v in term %d, want %v in term %d", nd.name, nd.r.State(), nd.r.CurrentTerm(), want, term)
		}
	}
}

// caughtUpGroup boots a three-node group, led by node-1, closed when the
// test ends, once both followers store everything the leader has: a
// follower a moment behind could not win an election a test holds.
func caughtUpGroup(t *testing.T) *raftService {
	t.Helper()
	s := testGroup(t).svc
	if s.nodes[0].r.State() != raft.Leader {
		t.Fatalf("node-1 is %v after boot, want leader", s.nodes[0].r.State())
	}
	_, last := s.nodes[0].lastLog()
	waitFor(t, "the followers to store the leader's log", func() bool {
		for _, nd := range s.nodes[1:] {
			if _, have := nd.lastLog(); have != last {
				return false
			}
		}
		return true
	})
	return s
}

// TestADeposedLeaderCarriesNothing: node-1 appends an entry with its links
// held (an ambiguous commit's window), and a disturbance elects node-2 in
// the next term behind the simulation's back; node-1 has heard of that
// term from node-2's vote request (which it refused: its log is longer)
// but not yet from node-2's entries. Carrying node-1's entry now must not
// be a message of the new term in node-1's name: node-2 would step down
// and take node-1's entry over its own, two leaders in one term. carry
// must report the followers did not store it, and leave node-2 leading,
// with its own entry, and node-3 following it.
func TestADeposedLeaderCarriesNothing(t *testing.T) {
	s := caughtUpGroup(t)
	old, next, third := s.nodes[0], s.nodes[1], s.nodes[2]
	term := old.r.CurrentTerm()
	for _, nd := range []*raftNode{next, third} {
		old.trans.Disconnect(nd.trans.LocalAddr())
		nd.trans.Disconnect(old.trans.LocalAddr())
	}
	before, _ := old.log.LastIndex()
	data := []byte("the entry in flight")
	old.r.Apply(data, raftEnqueueWait)
	index, ok := s.waitAppended(old, before, data, s.waits.start())
	if !ok {
		t.Fatal("node-1 did not append the entry")
	}
	waitFor(t, "node-2 to win the next term", func() bool {
		if next.r.State() == raft.Follower {
			s.timeoutNow(next)
		}
		return next.r.State() == raft.Leader
	})
	if got := next.r.CurrentTerm(); got != term+1 {
		t.Fatalf("node-2 leads in term %d, want %d", got, term+1)
	}
	// node-2's vote request, as node-1 would have heard it: node-1 follows
	// in the new term and keeps its log.
	vote := &raft.RequestVoteRequest{
		RPCHeader:    raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(next.name), Addr: []byte(next.trans.LocalAddr())},
		Term:         term + 1,
		LastLogIndex: index - 1, LastLogTerm: term,
		LeadershipTransfer: true,
	}
	var resp raft.RequestVoteResponse
	if err := s.ctrl.RequestVote(raft.ServerID(old.name), old.trans.LocalAddr(), vote, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Granted || old.r.State() != raft.Follower || old.r.CurrentTerm() != term+1 {
		t.Fatalf("node-1 granted %v, is %v in term %d; want a refused vote, follower in term %d", resp.Granted, old.r.State(), old.r.CurrentTerm(), term+1)
	}
	ownEntry := func(nd *raftNode) bool {
		var l raft.Log
		return nd.log.GetLog(index, &l) == nil && l.Term == term+1
	}
	waitFor(t, "node-3 to store node-2's first entry", func() bool { return ownEntry(third) })
	for _, o := range []*raftNode{next, third} {
		carried, err := s.carry(old, o, index)
		if err != nil {
			t.Fatal(err)
		}
		if carried {
			t.Errorf("node-1, deposed, carried its entry to %s", o.name)
		}
	}
	if next.r.State() != raft.Leader || next.r.CurrentTerm() != term+1 {
		t.Errorf("node-2 is %v in term %d, want leader in term %d still", next.r.State(), next.r.CurrentTerm(), term+1)
	}
	for _, nd := range []*raftNode{next, third} {
		if !ownEntry(nd) {
			t.Errorf("%s's entry %d is no longer node-2's of term %d", nd.name, index, term+1)
		}
	}
}

// waitFor waits up to 10 s for cond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}
