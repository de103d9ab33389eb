package web_test

import (
	"testing"

	"github.com/leaselab/playground/web"
)

// TestWebsocketSendsWhatTheRaftNodesObserve: a live Raft run tells the
// browser, beside its events, how its real nodes see themselves; a run
// without a Raft group does not.
func TestWebsocketSendsWhatTheRaftNodesObserve(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	c := dial(t, ts.URL, nil)
	// Paced (half a second of wall time), so that the run is still going
	// when its first events are observed, however busy the machine; as
	// fast as possible it may be over before the observer gets a turn.
	c.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 50})
	var seen []web.ServerMessage
	for _, m := range c.until(web.MsgSummary) {
		if m.Type == web.MsgObserved {
			seen = append(seen, m)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no observed message during a Raft run")
	}
	// The run's first moment already has a leader that committed the
	// first grant; every observation names the three nodes.
	led := false
	for _, m := range seen {
		if len(m.Nodes) != 3 {
			t.Fatalf("an observation of %d nodes: %+v", len(m.Nodes), m.Nodes)
		}
		for _, n := range m.Nodes {
			led = led || (n.Role == "leader" && n.Term > 0 && n.CommitIndex > 0)
		}
	}
	if !led {
		t.Errorf("no observation shows a leader with a term and a commit index: %+v", seen)
	}
	// As fast as possible, the run is mostly over before the observer's
	// first turn: it still ends with what the nodes said at its last step
	// (once, if a turn of the observer's on a busy machine sent the same
	// already), so that every Raft run's picture has its observation.
	c.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 0})
	msgs := c.until(web.MsgSummary)
	var lastObs *web.ServerMessage
	for i := range msgs {
		if msgs[i].Type == web.MsgObserved {
			lastObs = &msgs[i]
		}
	}
	if lastObs == nil || len(lastObs.Nodes) != 3 {
		t.Errorf("a Raft run at full speed should send its nodes before its summary, got %+v", lastObs)
	}
	c.send(map[string]any{"type": "start", "scenario": preset(t, "clock-jump", true), "speed": 0}) // a single server
	for _, m := range c.until(web.MsgSummary) {
		if m.Type == web.MsgObserved {
			t.Fatalf("a run without Raft sent %+v", m)
		}
	}
}
