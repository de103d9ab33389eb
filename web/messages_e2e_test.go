package web_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// msgCount counts the message arrows of one mark on the timeline.
func msgCount(b *browser, ctx context.Context, mark string) int {
	b.t.Helper()
	return run(b, ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('#timeline [data-testid=messages] [data-mark=%q]').length`, mark)))
}

// runPreset opens a preset, runs it as fast as possible and waits for the
// verdict and a redraw.
func runPreset(b *browser, path string) context.Context {
	b.t.Helper()
	ctx := b.tab(path)
	b.do(ctx, setSpeed(0), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ctx, `!!document.querySelector('[data-testid=verdict-heading]')`, path+"'s verdict")
	b.settle(ctx)
	return ctx
}

// TestE2EMessagesFly: after an ambiguous-commit run the requests, answers
// and Raft appends are drawn as arrows, the answer lost in node-1's crash
// ends in a cross and says why; the toggle is a button with aria-pressed
// that hides and shows them, and is remembered; a busy run on a phone
// starts with them hidden; a renewal held by the network is marked late.
func TestE2EMessagesFly(t *testing.T) {
	b := startBrowser(t)
	// ambiguous-commit with node-1's crash after it committed (150 ms)
	// and before its answer is back (200 ms): the answer is lost. At the
	// preset's own 120 ms node-1 never commits, and no answer leaves.
	amb := mustPresetScenario(t, "ambiguous-commit")
	amb.Faults[0].At = engine.Ms(170)
	share, err := web.EncodeShare(amb)
	if err != nil {
		t.Fatal(err)
	}
	ctx := runPreset(b, "/playground?s="+url.QueryEscape(share))
	b.waitJS(ctx, `!!document.querySelector('#timeline [data-testid=messages]')`, "the message arrows")
	if n := msgCount(b, ctx, "msg-lost"); n != 1 {
		t.Errorf("ambiguous-commit: %d lost messages drawn, want the one answer", n)
	}
	lost := run(b, ctx, chromedp.Evaluate[[]string](`(() => { const g = document.querySelector('#timeline [data-mark=msg-lost]'); return [g.querySelector('title').textContent, String(!!g.querySelector('.x'))]; })()`))
	if lost[0] != "node-1 → client-1: answers acquire, sent at 150ms, lost at 200ms (lost: node-1 crashed before its answer left)" || lost[1] != "true" {
		t.Errorf("the lost answer: %q, cross drawn %s", lost[0], lost[1])
	}
	for _, mark := range []string{"msg-request", "msg-answer", "msg-append"} {
		if msgCount(b, ctx, mark) == 0 {
			t.Errorf("ambiguous-commit: no %s drawn", mark)
		}
	}
	if bad := run(b, ctx, chromedp.Evaluate[[]string](labelTrouble)); len(bad) > 0 {
		t.Errorf("with the arrows drawn, labels collide: %v", bad)
	}
	if miss := run(b, ctx, chromedp.Evaluate[[]string](legendMissing)); len(miss) > 0 {
		t.Errorf("marks the legend does not name: %v", miss)
	}
	pressed := func() string {
		return run(b, ctx, chromedp.Evaluate[string](`document.getElementById('msgs').getAttribute('aria-pressed')`))
	}
	if p := pressed(); p != "true" {
		t.Fatalf("a run of %d messages starts with them shown; aria-pressed %s", 31, p)
	}
	for _, sz := range [][2]int{{1366, 900}, {1280, 720}, {390, 844}} {
		b.size(ctx, sz[0], sz[1])
		b.settle(ctx)
		b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('timeline').scrollIntoView({block: 'center'})`))
		b.shot(ctx, "", fmt.Sprintf("messages-ambiguous-commit-%dx%d", sz[0], sz[1]))
	}
	b.size(ctx, 1366, 900)
	b.settle(ctx)
	b.shot(ctx, "#svg-wrap", "timeline-messages")
	b.do(ctx, chromedp.Click(chromedp.ID("msgs")))
	b.settle(ctx)
	if p, n := pressed(), run(b, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#timeline [data-testid=messages]').length`)); p != "false" || n != 0 {
		t.Fatalf("after the toggle: aria-pressed %s, %d arrow groups", p, n)
	}

	// Remembered: the next page starts with them hidden, and the toggle
	// shows them again. Raft's replication reaches both followers.
	ctx = runPreset(b, "/playground?preset=paused-holder")
	if p := pressed(); p != "false" || msgCount(b, ctx, "msg-append") != 0 {
		t.Fatalf("the toggle's state was not kept: aria-pressed %s", p)
	}
	b.do(ctx, chromedp.Focus(chromedp.ID("msgs")), chromedp.KeyEvent("\r"))
	b.settle(ctx)
	b.waitJS(ctx, `!!document.querySelector('#timeline [data-testid=messages]')`, "the arrows after Enter on the toggle")
	to := run(b, ctx, chromedp.Evaluate[[]string](`[...new Set([...document.querySelectorAll('#timeline [data-mark=msg-append] title')].map(t => t.textContent.split(':')[0]))]`))
	if len(to) != 2 || to[0] != "node-1 → node-2" || to[1] != "node-1 → node-3" {
		t.Errorf("paused-holder's appends go %v, want node-1 to node-2 and node-3", to)
	}
	for _, sz := range [][2]int{{1366, 900}, {1280, 720}, {390, 844}} {
		b.size(ctx, sz[0], sz[1])
		b.settle(ctx)
		if bad := run(b, ctx, chromedp.Evaluate[[]string](labelTrouble)); len(bad) > 0 {
			t.Errorf("paused-holder at %dx%d with arrows: labels collide: %v", sz[0], sz[1], bad)
		}
		b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('timeline').scrollIntoView({block: 'center'})`))
		b.shot(ctx, "", fmt.Sprintf("messages-paused-holder-%dx%d", sz[0], sz[1]))
	}

	// A renewal the network holds 2 s arrives late: marked so.
	sc := mustPresetScenario(t, "paused-holder")
	sc.Faults = []engine.Fault{{At: engine.Ms(2500), Do: "delay", Target: "client-1", Kind: "renew", By: engine.Ms(2000)}}
	s, err := web.EncodeShare(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx = runPreset(b, "/playground?s="+url.QueryEscape(s))
	b.waitJS(ctx, `!!document.querySelector('#timeline [data-mark=msg-late] .ck')`, "the late renewal's clock")
	// With the playhead at 4 s the renewal is still in flight: drawn as
	// far as it got, with no head and no clock yet.
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('scrub'); s.value = 4000; s.dispatchEvent(new Event('input')); })()`))
	b.settle(ctx)
	b.waitJS(ctx, `(() => { const g = document.querySelector('#timeline [data-mark=msg-late]'); return !!g && !g.querySelector('.ck, .hd'); })()`, "the late renewal in flight at 4s")

	// During a live run the arrows come as the run goes, before its end.
	ctx = b.tab("/playground?preset=paused-holder")
	b.do(ctx, setSpeed(4), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ctx, `!!document.querySelector('#timeline [data-mark=msg-append]')`, "arrows during the live run")
	if done := run(b, ctx, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid=verdict-heading]')`)); done {
		t.Error("paused-holder at 4 s a second ended before its first arrows were drawn")
	}
	b.do(ctx, chromedp.Click(chromedp.ID("stop")))

	// A busy run on a phone starts with its arrows hidden, until pressed.
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`localStorage.removeItem('msgs')`))
	ctx = b.tab("/playground?preset=crashed-holder")
	b.size(ctx, 390, 844)
	b.do(ctx, setSpeed(0), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ctx, `!!document.querySelector('[data-testid=verdict-heading]')`, "crashed-holder's verdict")
	b.settle(ctx)
	if p, hidden := pressed(), run(b, ctx, chromedp.Evaluate[bool](`document.getElementById('msgs').hidden`)); p != "false" || hidden {
		t.Errorf("crashed-holder at 390 px: aria-pressed %s, toggle hidden %v; want the arrows hidden and the toggle offered", p, hidden)
	}
	b.do(ctx, chromedp.Click(chromedp.ID("msgs")))
	b.waitJS(ctx, `!!document.querySelector('#timeline [data-testid=messages]')`, "crashed-holder's arrows once pressed")
	b.settle(ctx)
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('timeline').scrollIntoView({block: 'center'})`))
	b.shot(ctx, "", "messages-crashed-holder-390x844")
}

// legendMissing lists the marks on the timeline the legend does not name.
const legendMissing = `(() => {
  const named = new Set([...document.querySelectorAll('[data-testid=legend] [data-legend]')].map(e => e.dataset.legend));
  return [...new Set([...document.querySelectorAll('#timeline [data-mark]')].map(e => e.dataset.mark))].filter(m => !named.has(m));
})()`

func mustPresetScenario(t *testing.T, name string) engine.Scenario {
	t.Helper()
	p, err := engine.LoadPreset(name)
	if err != nil {
		t.Fatal(err)
	}
	return p.Scenario
}
