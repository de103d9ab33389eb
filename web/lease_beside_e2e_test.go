package web_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// TestE2EALeaseBesideAGrantThatCameBackRunsToItsEnd: in async-replica's
// chaos seed 1036 (fencing on) node-2 grants client-2 token 35 at 30.8s
// and crashes at 30.961s, when node-1 brings client-2's grant of token 34
// back; node-1, promoted again, forgets token 35 at 35.843s. client-2's
// lease of token 35 is drawn to 35.843s, forgotten by the lock service,
// beside the grant that came back, and the lock panel at 33s shows it.
// Before, the grant that came back ended it at 30.961s as replaced, and
// the panel showed the lock free from 31.8s.
func TestE2EALeaseBesideAGrantThatCameBackRunsToItsEnd(t *testing.T) {
	b := startBrowser(t)
	sc, err := engine.GenerateScenario(t.Context(), 1036, engine.ChaosOptions{Backend: engine.BackendAsyncReplica, Fencing: true})
	if err != nil {
		t.Fatal(err)
	}
	share, err := web.EncodeShare(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := b.tab("/playground?s=" + share + "&run=1&speed=0")
	b.waitUntil(ctx, `!!document.querySelector('[data-testid=verdict-text]')`, "the verdict")
	b.settle(ctx)
	type bar struct {
		Title string  `json:"title"`
		X0    float64 `json:"x0"`
		X1    float64 `json:"x1"`
		Tick  float64 `json:"tick"` // px per second
	}
	got := run(b, ctx, chromedp.Evaluate[[]bar](`(() => {
  const ticks = [...document.querySelectorAll('#timeline text')].filter(t => /^\d+s$/.test(t.textContent)).map(t => [parseInt(t.textContent), +t.getAttribute('x')]);
  const [a, z] = [ticks[0], ticks[ticks.length - 1]], px = (z[1] - a[1]) / (z[0] - a[0]);
  return [...document.querySelectorAll('#timeline rect.lease')].filter(r => r.querySelector('title').textContent.startsWith('token 35: granted at 30.8s'))
    .map(r => ({ title: r.querySelector('title').textContent, x0: +r.getAttribute('x'), x1: +r.getAttribute('x') + +r.getAttribute('width'), tick: px }));
})()`))
	if len(got) != 1 || !strings.Contains(got[0].Title, "forgotten by the lock service") {
		t.Fatalf("client-2's lease of token 35 from 30.8s is drawn %+v, want one, forgotten by the lock service", got)
	}
	if l := got[0]; math.Abs((l.X1-l.X0)/l.Tick-5.043) > 0.1 {
		t.Errorf("client-2's lease of token 35 runs %.2fs, want 5.04s (30.8s to 35.843s)", (l.X1-l.X0)/l.Tick)
	}
	// At 33s the lock panel names the lease the timeline draws running.
	b.do(ctx, choose("#scrub", "33000"))
	b.settle(ctx)
	if row := run(b, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#lock-row td')].map(c => c.textContent)`)); !slices.Equal(row, []string{"account-42", "client-2", "35", "43.8s"}) {
		t.Errorf("at 33s the lock panel shows %q, want client-2's token 35 until 43.8s", row)
	}
	b.labelsFit(ctx, "the lease beside a grant that came back")
	b.shots(ctx, "lease-beside-grant-back", "#timeline")
}
