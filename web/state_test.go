package web_test

import (
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

func TestStateFollowsPausedHolder(t *testing.T) {
	p, _ := engine.LoadPreset("paused-holder")
	p.Scenario.Fencing = true
	sc, _ := engine.Prepare(p.Scenario)
	res, err := engine.Execute(t.Context(), sc)
	if err != nil {
		t.Fatal(err)
	}
	// What the panels must show at moments a teacher would stop on.
	checks := map[int64]func(web.State) bool{
		0: func(s web.State) bool {
			return s.Lock.Holder == "client-1" && s.Lock.Token == 33 && s.Nodes[0].Role == "leader"
		},
		3000:  func(s web.State) bool { return s.Lock.LeaseUntil == 13000 },
		13000: func(s web.State) bool { return s.Lock.Holder == "" },
		14000: func(s web.State) bool { return s.Lock.Holder == "client-2" && s.Lock.Token == 34 },
		15000: func(s web.State) bool {
			return s.Storage.Value == 43000 && s.Storage.Fence == 34 && *s.Storage.Rows == 1 && s.Storage.Outcome == engine.KindWriteAccepted
		},
		19000: func(s web.State) bool {
			return s.Storage.Value == 43000 && *s.Storage.Rows == 0 && s.Storage.Client == "client-1" && s.Storage.Outcome == engine.KindWriteRefused
		},
	}
	for at, ok := range checks {
		s := web.NewState(sc.Scenario())
		for _, e := range res.Events {
			if e.T > at {
				break
			}
			s.Apply(e)
		}
		if !ok(s) {
			t.Errorf("state at %dms: %+v", at, s)
		}
	}
}

func TestStateApplyReportsChanges(t *testing.T) {
	p, _ := engine.LoadPreset("paused-holder")
	s := web.NewState(p.Prepared().Scenario())
	if s.Apply(engine.Event{T: 1, Actor: "client-1", Kind: engine.KindRead}) {
		t.Error("a read changed the panels")
	}
	if !s.Apply(engine.Event{T: 2, Actor: "client-1", Kind: engine.KindGranted, Token: 33, LeaseUntil: 10, Node: "node-1"}) {
		t.Error("a grant did not change the lock table")
	}
	if !s.Apply(engine.Event{T: 3, Actor: "node-4", Kind: engine.KindLeader}) || s.Nodes[3].Name != "node-4" || s.Nodes[3].Role != "leader" {
		t.Errorf("a node first seen in an event gets no place: %+v", s.Nodes)
	}
}

// TestStateClientsInAPartitionAreNotServers: a partition's side may take a
// client with its node; only the node is drawn cut off.
func TestStateClientsInAPartitionAreNotServers(t *testing.T) {
	p, _ := engine.LoadPreset("paused-holder")
	s := web.NewState(p.Prepared().Scenario())
	s.Apply(engine.Event{T: 1, Actor: "node-1", Kind: engine.KindPartitioned})
	s.Apply(engine.Event{T: 1, Actor: "client-1", Kind: engine.KindPartitioned})
	if len(s.Nodes) != 3 || s.Nodes[0].Role != "cut off" {
		t.Fatalf("after cutting off node-1 with client-1: %+v", s.Nodes)
	}
	s.Apply(engine.Event{T: 2, Actor: "client-1", Kind: engine.KindHealed})
	s.Apply(engine.Event{T: 2, Actor: "node-1", Kind: engine.KindHealed})
	if len(s.Nodes) != 3 || s.Nodes[0].Role != "follower" {
		t.Errorf("after the heal: %+v", s.Nodes)
	}
}
