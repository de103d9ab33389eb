package web_test

import (
	"slices"
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// TestFoldKeepsANodeCutOffUntilItsLastPartitionHeals: in
// grantBackBesideScenario node-1 is cut off alone from 1.2s to 5.2s, and
// with client-2 from 2.8s to 8.8s. When the first partition heals node-1
// is still cut off from node-2, the monitor and client-1 (it serves
// client-2 alone, a deposed primary, and brings its grant back): the node
// panel and the timeline's role bar say "cut off" until 8.8s, when it
// rejoins as replica. Before, the first heal made it a replica at 5.2s.
func TestFoldKeepsANodeCutOffUntilItsLastPartitionHeals(t *testing.T) {
	sc := grantBackBesideScenario(t)
	res := mustRun(t, sc)
	s := web.NewState(sc)
	role := func() string {
		for _, n := range s.Nodes {
			if n.Name == "node-1" {
				return n.Role
			}
		}
		return ""
	}
	checked := 0
	for _, e := range res.Events {
		s.Apply(e)
		if e.T >= 1200 && e.T < 8800 {
			checked++
			if role() != "cut off" {
				t.Errorf("at %s, after %s %s: node-1 is shown %q, want cut off until 8.8s", engine.FormatMS(e.T), e.Actor, e.Kind, role())
			}
		}
	}
	if checked == 0 || role() != "replica" {
		t.Errorf("node-1 ends the run shown %q after %d events while cut off, want replica", role(), checked)
	}
}

// TestFoldKeepsANodeThatCrashedWhileCutOffDown: in paused-holder node-2 is
// cut off from 1s to 3s, crashes at 2s and restarts at 5s: the node panel
// and the timeline say it is down from 2s to 5s, not a follower again when
// the partition heals at 3s.
func TestFoldKeepsANodeThatCrashedWhileCutOffDown(t *testing.T) {
	p, err := engine.LoadPreset("paused-holder")
	if err != nil {
		t.Fatal(err)
	}
	sc := p.Scenario
	sc.Faults = []engine.Fault{
		{At: engine.Ms(1000), Do: engine.FaultPartition, Target: "node-2", For: engine.Ms(2000)},
		{At: engine.Ms(2000), Do: engine.FaultCrash, Target: "node-2"},
		{At: engine.Ms(5000), Do: engine.FaultRestart, Target: "node-2"}}
	res := mustRun(t, sc)
	s := web.NewState(mustPrepare(t, sc).Scenario())
	checked := 0
	for _, e := range res.Events {
		s.Apply(e)
		if e.T >= 2000 && e.T < 5000 {
			checked++
			if s.Nodes[1].Role != "down" {
				t.Errorf("at %s, after %s %s: node-2 is shown %q, want down until it restarts at 5s", engine.FormatMS(e.T), e.Actor, e.Kind, s.Nodes[1].Role)
			}
		}
	}
	if checked == 0 || s.Nodes[1].Role != "follower" {
		t.Errorf("node-2 ends the run shown %q after %d events while down, want follower", s.Nodes[1].Role, checked)
	}
}

// TestFoldKeepsTheLeaderThatKeepsItsMajority: in paused-holder node-1
// (the leader), node-2 and client-1 are cut off from node-3 and client-2
// from 2s to 6s. node-1 and node-2 are a majority of three: node-1 goes
// on leading (it renews client-1's lease at 3s) and node-2 following;
// node-3, alone, is the node cut off. Before, node-1 and node-2 were
// shown cut off, then both followers after the heal: no node led.
func TestFoldKeepsTheLeaderThatKeepsItsMajority(t *testing.T) {
	p, err := engine.LoadPreset("paused-holder")
	if err != nil {
		t.Fatal(err)
	}
	sc := p.Scenario
	sc.Faults = append(sc.Faults, engine.Fault{At: engine.Ms(2000), Do: engine.FaultPartition, Side: []string{"node-1", "node-2", "client-1"}, For: engine.Ms(4000)})
	res := mustRun(t, sc)
	s := web.NewState(mustPrepare(t, sc).Scenario())
	roles := func() []string {
		var out []string
		for _, n := range s.Nodes {
			out = append(out, n.Role)
		}
		return out
	}
	checked := 0
	for i, e := range res.Events {
		s.Apply(e)
		if i+1 < len(res.Events) && res.Events[i+1].T == e.T {
			continue // the members of a partition are told at one instant
		}
		want := []string{"leader", "follower", "follower"}
		if e.T >= 2000 && e.T < 6000 {
			checked++
			want[2] = "cut off"
		}
		if got := roles(); !slices.Equal(got, want) {
			t.Errorf("at %s, after %s %s: nodes shown %q, want %q", engine.FormatMS(e.T), e.Actor, e.Kind, got, want)
		}
	}
	if checked == 0 {
		t.Errorf("no event while the partition is in force")
	}
}

// TestFoldKeepsTwoPartitionsOfOneInstantApart: in paused-holder node-1
// (the leader) and node-2 are each cut off alone from 2s to 6s, by two
// partitions that begin at one instant: no node reaches a majority, so
// all three are cut off until 6s (node-1 steps down), then followers
// until node-1 is elected again. Before, the fold took the two for one
// side holding both: node-1 went on leading and node-2 following, and
// node-3 alone was shown cut off.
func TestFoldKeepsTwoPartitionsOfOneInstantApart(t *testing.T) {
	p, err := engine.LoadPreset("paused-holder")
	if err != nil {
		t.Fatal(err)
	}
	sc := p.Scenario
	sc.Faults = []engine.Fault{
		{At: engine.Ms(2000), Do: engine.FaultPartition, Target: "node-1", For: engine.Ms(4000)},
		{At: engine.Ms(2000), Do: engine.FaultPartition, Target: "node-2", For: engine.Ms(4000)}}
	res := mustRun(t, sc)
	s := web.NewState(mustPrepare(t, sc).Scenario())
	checked := 0
	for i, e := range res.Events {
		s.Apply(e)
		if e.T < 2000 || e.T >= 6000 || i+1 < len(res.Events) && res.Events[i+1].T == e.T {
			continue
		}
		checked++
		for _, n := range s.Nodes {
			if n.Role != "cut off" {
				t.Errorf("at %s, after %s %s: %s is shown %q, want cut off: no node reaches a majority", engine.FormatMS(e.T), e.Actor, e.Kind, n.Name, n.Role)
			}
		}
	}
	if checked == 0 {
		t.Errorf("no event while the partitions are in force")
	}
}
