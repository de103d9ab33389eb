package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// levelGroup is a group of three logs for level alone: node-1 leads.
func levelGroup(t *testing.T, leader []*raft.Log, followers ...[]*raft.Log) *raftService {
	t.Helper()
	s := &raftService{}
	for _, held := range append([][]*raft.Log{leader}, followers...) {
		l := &raftLog{}
		if len(held) > 0 {
			if err := l.StoreLogs(held); err != nil {
				t.Fatal(err)
			}
		}
		s.nodes = append(s.nodes, &raftNode{log: l})
	}
	return s
}

// levelResult is what level reported.
type levelResult struct {
	end uint64
	ok  bool
}

func startLevel(s *raftService) <-chan levelResult {
	out := make(chan levelResult, 1)
	go func() {
		end, ok := s.level(time.Hour, nil)
		out <- levelResult{end, ok}
	}()
	return out
}

// notYet fails if level has reported: the group is not level yet. A
// correct level cannot report early however slow the machine; a broken
// one reports at once, well within the wait.
func notYet(t *testing.T, got <-chan levelResult, when string) {
	t.Helper()
	select {
	case r := <-got:
		t.Fatalf("level = %d, %v %s", r.end, r.ok, when)
	case <-time.After(50 * time.Millisecond):
	}
}

func storeLogs(t *testing.T, l *raftLog, logs ...*raft.Log) {
	t.Helper()
	if err := l.StoreLogs(logs); err != nil {
		t.Fatal(err)
	}
}

// TestLevelAfterAnElectionDetour: a follower holds an entry of a term
// another node led, one past node-1's last entry, until node-1 stores its
// own entry there and the follower takes it in its place. level waits for
// that, and for the follower's entry to be of node-1's term, not only at
// its index. Before, a follower past the leader's end as first read ended
// the wait at once: a boot in a chaos test under load failed so ("the
// followers did not take node-1's log in 2m0s" after 9 s).
func TestLevelAfterAnElectionDetour(t *testing.T) {
	boot := &raft.Log{Index: 1, Term: 1, Type: raft.LogConfiguration}
	other := &raft.Log{Index: 2, Term: 2, Type: raft.LogNoop}
	mine := &raft.Log{Index: 2, Term: 3, Type: raft.LogNoop}
	s := levelGroup(t, []*raft.Log{boot}, []*raft.Log{boot, other}, []*raft.Log{boot})
	got := startLevel(s)
	notYet(t, got, "before node-1 stored its entry")
	storeLogs(t, s.nodes[0].log, mine)
	notYet(t, got, "with node-2 holding another term's entry 2")
	storeLogs(t, s.nodes[1].log, mine)
	storeLogs(t, s.nodes[2].log, mine)
	select {
	case r := <-got:
		if !r.ok || r.end != 2 {
			t.Fatalf("level = %d, %v; want the group level at node-1's entry 2", r.end, r.ok)
		}
	case <-time.After(time.Minute):
		t.Fatal("level never saw the group level")
	}
}

// TestLevelWaitsForWhatTheLeaderStoresMeanwhile: a follower level with
// the leader when checked is checked again if the leader's log moved
// before the pass ended, so level reports the leader's last entry, not one
// some followers have.
func TestLevelWaitsForWhatTheLeaderStoresMeanwhile(t *testing.T) {
	boot := &raft.Log{Index: 1, Term: 1, Type: raft.LogConfiguration}
	noop := &raft.Log{Index: 2, Term: 2, Type: raft.LogNoop}
	s := levelGroup(t, []*raft.Log{boot}, []*raft.Log{boot}, nil)
	got := startLevel(s)
	storeLogs(t, s.nodes[0].log, noop)
	storeLogs(t, s.nodes[2].log, boot, noop) // node-3 takes both; node-2, level before, now lags
	notYet(t, got, "before node-2 took entry 2")
	storeLogs(t, s.nodes[1].log, noop)
	select {
	case r := <-got:
		if !r.ok || r.end != 2 {
			t.Fatalf("level = %d, %v; want 2, true", r.end, r.ok)
		}
	case <-time.After(time.Minute):
		t.Fatal("level never saw the group level")
	}
}

// TestLevelGivesUpOnAFollowerPastTheLeader: a follower whose log goes past
// the leader's last entry without a newer term is never level.
func TestLevelGivesUpOnAFollowerPastTheLeader(t *testing.T) {
	boot := &raft.Log{Index: 1, Term: 1, Type: raft.LogConfiguration}
	two := &raft.Log{Index: 2, Term: 2, Type: raft.LogNoop}
	three := &raft.Log{Index: 3, Term: 2, Type: raft.LogCommand}
	s := levelGroup(t, []*raft.Log{boot, two}, []*raft.Log{boot, two, three}, []*raft.Log{boot, two})
	select {
	case r := <-startLevel(s):
		if r.ok {
			t.Fatalf("level = %d, %v with a follower past the leader", r.end, r.ok)
		}
	case <-time.After(time.Minute):
		t.Fatal("level waited for a follower that cannot come back level")
	}
}

// TestLogEndsNamesEachNode: a boot that cannot level its followers says
// where each node's log ends, in which term, and what Raft makes of it.
func TestLogEndsNamesEachNode(t *testing.T) {
	svc, err := bootRaft(waiter{ctx: context.Background()}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.close()
	got := svc.logEnds()
	end, term := svc.nodes[0].log.lastEntry()
	want := fmt.Sprintf("node-1 leader t%d ends %d (t%d), node-2 follower", svc.nodes[0].r.CurrentTerm(), end, term)
	if !strings.HasPrefix(got, want) || !strings.Contains(got, ", node-3 follower t") {
		t.Errorf("logEnds = %q, want it to start %q and name node-3", got, want)
	}
}
