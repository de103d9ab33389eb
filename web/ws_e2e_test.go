package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestE2EOversizeMessageIsToldItsLimit: a scenario edited until the start
// message is longer than the websocket's limit (72 KiB by default) is
// answered on the page with the limit in bytes, and no run is left on
// screen; the next run, of a scenario that fits, starts on a new
// connection and ends with its verdict.
func TestE2EOversizeMessageIsToldItsLimit(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground")
	b.pick(ctx, "paused-holder")
	b.fencing(ctx, true)
	// The editor applies what is typed a moment later: fencing, turned
	// off in the same edit, shows when it has.
	b.do(ctx, setSpeed(0), chromedp.Evaluate[chromedp.Void](`(() => {
  const e = document.getElementById('json'), sc = JSON.parse(e.value);
  sc.title = 'x'.repeat(80000);
  sc.fencing = false;
  e.focus();
  e.value = JSON.stringify(sc);
  e.dispatchEvent(new Event('input', {bubbles: true}));
})()`))
	b.waitUntil(ctx, `!document.getElementById('fencing').checked`, "the edited scenario applied")
	b.do(ctx, chromedp.Click(chromedp.ID("run")))
	b.waitUntil(ctx, `document.getElementById('status').textContent.includes('bytes')`, "an error naming the limit")
	status := run(b, ctx, chromedp.TextContent(chromedp.ID("status")))
	if !strings.Contains(status, "message: is larger than the limit of 73728 bytes") {
		t.Errorf("status after an oversize start: %q, want the limit of 73728 bytes", status)
	}
	if n := count(b, ctx, "#event-log tbody tr"); n != 0 {
		t.Errorf("%d events on screen after a refused start", n)
	}
	b.shots(ctx, "17-oversize-message")
	b.runPreset(ctx, "paused-holder", nil)
}
