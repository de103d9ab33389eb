package web

import (
	"slices"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestCatalogFollowsTheEngine: the form offers every backend and fault the
// engine takes, in the engine's words for what applies (tokens, leader,
// node counts, fields), and has its own words for each.
func TestCatalogFollowsTheEngine(t *testing.T) {
	caps := engine.Capabilities()
	c := buildCatalog()
	if len(c.Backends) != len(caps.Backends) {
		t.Fatalf("%d backends offered, the engine has %d", len(c.Backends), len(caps.Backends))
	}
	for i, b := range caps.Backends {
		got := c.Backends[i]
		if got.Name != b.Name || got.Fencing != b.Tokens || got.Leader != b.Leader || !slices.Equal(got.Nodes, b.Nodes) || got.DefaultNodes != b.DefaultNodes {
			t.Errorf("backend %s: offered %+v", b.Name, got)
		}
		if got.Label == b.Name || (!b.Tokens && got.FencingWhy == "") {
			t.Errorf("backend %s has no words of its own: %+v", b.Name, got)
		}
	}
	for _, f := range caps.Faults {
		k := slices.IndexFunc(c.Faults, func(k FaultKind) bool { return k.ID == f.Do })
		if k < 0 {
			t.Errorf("fault %s is not offered", f.Do)
			continue
		}
		if kind := c.Faults[k]; kind.Label == f.Do || kind.Leader != slices.Contains(f.Targets, "leader") {
			t.Errorf("fault %s: %+v", f.Do, kind)
		}
	}
	if !slices.ContainsFunc(c.Faults, func(k FaultKind) bool { return k.ID == "partition-side" && k.Targets == "client" }) {
		t.Error("no partition that takes a client with it")
	}
	if !slices.Equal(c.DelayKinds, caps.DelayKinds) {
		t.Errorf("delay kinds %v, the engine's %v", c.DelayKinds, caps.DelayKinds)
	}
}
