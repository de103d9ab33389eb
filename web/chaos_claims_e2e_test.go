package web_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestE2EFindAFailureOnClaimsSearchesClaims: ride-claim takes no lock, so
// its Find a failure says it searches claim races and asks the server for
// that kind, not for a Raft lock service's scenarios.
func TestE2EFindAFailureOnClaimsSearchesClaims(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=ride-claim")
	b.do(ctx, chromedp.Click(chromedp.ID("chaos")))
	b.waitJS(ctx, `!document.getElementById('chaos-view').hidden`, "Find a failure")
	if st := run(b, ctx, chromedp.TextContent(chromedp.ID("chaos-view"))); !strings.Contains(st, "take no lock") || strings.Contains(st, "Raft") || strings.Contains(st, "lock service") {
		t.Errorf("ride-claim's search is described as %q", st)
	}
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const f = window.fetch; window.sentKinds = []; window.fetch = (u, o) => { if (u === '/api/chaos') window.sentKinds.push(JSON.parse(o.body).kind || ''); return f(u, o); }; })()`))
	b.do(ctx, choose("#chaos-runs", "100"), chromedp.Click(chromedp.ID("chaos-start")))
	b.waitJS(ctx, `/^No violation in 100 runs/.test(document.getElementById('chaos-status').textContent)`, "the search's end")
	if kinds := run(b, ctx, chromedp.Evaluate[[]string](`window.sentKinds`)); len(kinds) == 0 || slices.ContainsFunc(kinds, func(k string) bool { return k != "claims" }) {
		t.Errorf("the search asked for kinds %v, want claims only", kinds)
	}
	b.shots(ctx, "22-claims-search", "#chaos-view")
}
