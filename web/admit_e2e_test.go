package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/web"
)

// TestE2EARunWaitingForASlotShowsItsPlace fills the server's one slot with
// another browser's run, presses Run on the page, and reads its place in
// line; when the slot frees, the page's run starts by itself and ends
// with its verdict.
func TestE2EARunWaitingForASlotShowsItsPlace(t *testing.T) {
	b := startBrowserWith(t, web.Config{RunSlots: 1, MaxLiveRuns: 1, QueueWait: time.Minute})
	holder := dial(t, b.base, nil)
	holder.send(map[string]any{"type": "start", "scenario": preset(t, "nightly-total", true), "speed": 1})
	holder.started()
	ctx := b.tab("/playground")
	b.do(ctx, choose("#preset", "paused-holder"), choose("#speed", "0"))
	b.do(ctx, chromedp.Click(chromedp.ID("run")))
	run(b, ctx, chromedp.Poll[bool](`document.getElementById('status').textContent.includes('place 1 in line')`,
		chromedp.WithPollingInterval(20*time.Millisecond)))
	status := run(b, ctx, chromedp.TextContent(chromedp.ID("status")))
	if !strings.Contains(status, "Waiting for a free slot") {
		t.Errorf("status while waiting %q", status)
	}
	b.do(ctx, chromedp.EmulateViewport(1366, 900))
	b.screenshot(ctx, "20-waiting-for-a-slot")
	b.do(ctx, chromedp.EmulateViewport(390, 844))
	b.screenshot(ctx, "21-waiting-for-a-slot-phone")
	holder.send(map[string]any{"type": "stop"})
	b.waitVerdict(ctx, "stale write")
}
