package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestE2EEtcdAndLockDelayPresets runs the etcd and Chubby presets in the
// page and finds what is new on the timeline: grants labelled with their
// revisions, the new leader's extension, the lock-delay window (after the
// learner sets it, as the watch text says), and the backend menu's line
// on etcd. Screenshots at 1366x900 and 390x844.
func TestE2EEtcdAndLockDelayPresets(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground")
	labels := func() string {
		return run(b, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#timeline text')].map(t => t.textContent).join(' | ')`))
	}

	b.runPreset(ctx, "etcd-revision-token", nil)
	if got := labels(); !strings.Contains(got, "rev 33 → client-1") || !strings.Contains(got, "rev 35 → client-2") {
		t.Errorf("grants should carry their create revisions, 33 then 35: %s", got)
	}
	if desc := run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=backend-desc]"))); !strings.Contains(desc, "create revision") {
		t.Errorf("the backend menu should say how etcd keeps the lock: %q", desc)
	}
	if m := run(b, ctx, chromedp.Evaluate[[]string](unexplainedMarks)); len(m) > 0 {
		t.Errorf("marks the legend does not name: %v", m)
	}
	b.shots(ctx, "etcd-revision-token", "#timeline")

	b.runPreset(ctx, "etcd-txn-guard", nil)
	if n := count(b, ctx, `#timeline [data-kind=write_refused]`); n != 1 {
		t.Errorf("%d refused writes drawn, want client-1's refused transaction", n)
	}
	b.shots(ctx, "etcd-txn-guard", "#timeline")

	b.runPreset(ctx, "etcd-leader-change", nil)
	if n := count(b, ctx, "#timeline [data-testid=lease-extended]"); n != 1 {
		t.Errorf("%d lease extensions drawn, want node-2's one", n)
	}
	if got := labels(); !strings.Contains(got, "lease 33 extended to 24s") {
		t.Errorf("the extension should be labelled with its new end: %s", got)
	}
	if m := run(b, ctx, chromedp.Evaluate[[]string](unexplainedMarks)); len(m) > 0 {
		t.Errorf("marks the legend does not name: %v", m)
	}
	b.shots(ctx, "etcd-leader-change", "#timeline")

	b.runPreset(ctx, "chubby-lock-delay", nil)
	if n := count(b, ctx, "#timeline [data-testid=lock-delay]"); n != 0 {
		t.Errorf("as shipped there is no lock-delay, but %d windows are drawn", n)
	}
	b.shots(ctx, "chubby-lock-delay-off", "#timeline")
	b.do(ctx, choose("#delay", "10"), chromedp.Click(chromedp.ID("run")))
	b.waitVerdict(ctx, "SAFE")
	if n := count(b, ctx, "#timeline [data-testid=lock-delay]"); n != 1 {
		t.Errorf("%d lock-delay windows drawn, want one from 10 s to 20 s", n)
	}
	if got := labels(); !strings.Contains(got, "lock-delay until 20s") {
		t.Errorf("the window should be labelled with its end: %s", got)
	}
	if m := run(b, ctx, chromedp.Evaluate[[]string](unexplainedMarks)); len(m) > 0 {
		t.Errorf("marks the legend does not name: %v", m)
	}
	b.shots(ctx, "chubby-lock-delay-on", "#timeline")
}
