package web_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// majoritySideScenario: paused-holder, with node-1 (the Raft leader),
// node-2 and client-1 cut off from node-3 and client-2 from 2s to 6s.
func majoritySideScenario(t *testing.T) engine.Scenario {
	t.Helper()
	p, err := engine.LoadPreset("paused-holder")
	if err != nil {
		t.Fatal(err)
	}
	sc := p.Scenario
	sc.Faults = append(sc.Faults, engine.Fault{At: engine.Ms(2000), Do: engine.FaultPartition, Side: []string{"node-1", "node-2", "client-1"}, For: engine.Ms(4000)})
	return sc
}

// TestE2EALeaderOnTheMajoritysSideLeads: in majoritySideScenario node-1
// and node-2 are a majority of three: node-1's lane shows one leader bar
// through the run, node-3's lane the one cut-off box, from 2s to 6s, and
// the node panel at 4s says node-1 leads and node-3 is cut off. Before,
// node-1 and node-2 were drawn cut off and node-1 led no more after 6s.
func TestE2EALeaderOnTheMajoritysSideLeads(t *testing.T) {
	b := startBrowser(t)
	share, err := web.EncodeShare(majoritySideScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := b.tab("/playground?s=" + share + "&run=1&speed=0")
	b.waitUntil(ctx, `!!document.querySelector('[data-testid=verdict-text]')`, "the verdict")
	b.settle(ctx)
	titles := func(sel string) []string {
		return run(b, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#timeline `+sel+` title')].map(t => t.textContent)`))
	}
	if got := titles("rect.role.leader"); len(got) != 1 || !strings.HasPrefix(got[0], "node-1: leader") || !strings.HasSuffix(got[0], " from 0s") {
		t.Errorf("the leader bars say %q, want node-1's alone, from 0s", got)
	}
	cut := titles("[data-testid=node-cut]")
	if len(cut) != 1 || !strings.HasPrefix(cut[0], "node-3 is cut off from the others from 2s to 6s") {
		t.Errorf("the cut-off boxes say %q, want node-3's alone, from 2s to 6s", cut)
	}
	b.do(ctx, choose("#scrub", "4000"))
	b.settle(ctx)
	nodes := run(b, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#nodes-view li')].map(l => l.textContent.slice(1))`))
	if !slices.Equal(nodes, []string{"node-1: leader", "node-2: follower", "node-3: cut off"}) {
		t.Errorf("at 4s the node panel says %q", nodes)
	}
	b.labelsFit(ctx, "the leader on the majority's side")
	b.shots(ctx, "majority-side-leader", "#timeline")
}
