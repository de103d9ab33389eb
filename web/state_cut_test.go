package web_test

import (
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
