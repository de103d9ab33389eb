package web_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// crossingJS counts the pairs of an element matching a and one matching
// b whose boxes overlap, in the timeline's own coordinates.
func crossingJS(a, b string) string {
	return fmt.Sprintf(`(() => {
  const box = e => e.getBBox(), hit = (p, q) => p.x < q.x + q.width && q.x < p.x + p.width && p.y < q.y + q.height && q.y < p.y + p.height;
  let n = 0;
  for (const x of document.querySelectorAll('#timeline ' + %q)) for (const y of document.querySelectorAll('#timeline ' + %q)) if (hit(box(x), box(y))) n++;
  return n;
})()`, a, b)
}

// TestE2ETimelineMarksKeepTheirWords: a client refused hundreds of times
// shows one mark with its count, not a black bar of dots; a run over in
// an instant gets an axis that fits it; renewal ticks stay off the lease's
// words and the words of a held write stay off its arrow.
func TestE2ETimelineMarksKeepTheirWords(t *testing.T) {
	b := startBrowser(t)

	// client-1 holds a 600 s lease for the whole minute; client-2 asks
	// every 100 ms.
	p, err := engine.LoadPreset("baseline")
	if err != nil {
		t.Fatal(err)
	}
	sc := p.Scenario
	sc.Until = engine.Ms(60000)
	sc.Lock.Lease = engine.Ms(600000)
	sc.Clients[0].RenewEvery = engine.Duration{}
	sc.Clients[0].Steps = []engine.Step{{Do: "acquire"}, {Do: "work", For: engine.Ms(600000)}}
	sc.Clients[1].RetryEvery = engine.Ms(100)
	share, err := web.EncodeShare(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := b.tab("/playground?s=" + share + "&run=1&speed=0")
	b.waitUntil(ctx, `document.querySelector('#timeline [data-testid=asks]') !== null && (document.querySelector('[data-testid=verdict-text]')?.textContent || '') !== ''`, "the refusals drawn as one mark")
	for _, sz := range [][2]int{{1366, 900}, {390, 844}} {
		b.size(ctx, sz[0], sz[1])
		b.settle(ctx)
		// The count is on the picture, or in the list under it when a
		// phone has no room for it there.
		label := run(b, ctx, chromedp.Evaluate[string](`([...document.querySelectorAll('#timeline text, #tl-notes li')].map(t => t.textContent).find(s => /\d+ refused$/.test(s)) || '').replace(/^.*?(\d+) refused$/, '$1')`))
		n, _ := strconv.Atoi(label)
		if n < 500 {
			t.Errorf("%dx%d: the refusals are labelled %q", sz[0], sz[1], label)
		}
		if dots := count(b, ctx, "#timeline circle.m-ask"); dots > 10 {
			t.Errorf("%dx%d: %d refusal dots drawn one by one", sz[0], sz[1], dots)
		}
		b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('timeline').scrollIntoView()`))
		b.settle(ctx)
		b.shot(ctx, "", fmt.Sprintf("22-600-refused-%dx%d", sz[0], sz[1]))
	}

	ctx = b.tab("/playground")
	b.runPreset(ctx, "ride-claim", nil)
	ticks := run(b, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#timeline text.tick')].map(t => t.textContent)`))
	if len(ticks) == 0 || ticks[len(ticks)-1] != "200ms" {
		t.Errorf("five claims at 0 s get the axis %v, want one that ends at 200ms", ticks)
	}
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('timeline').scrollIntoView()`))
	b.settle(ctx)
	b.shot(ctx, "", "22-ride-claim-1366x900")

	b.runPreset(ctx, "paused-holder", nil)
	if n := count(b, ctx, "#timeline .renew-tick"); n == 0 {
		t.Fatal("no renewal drawn")
	}
	if n := run(b, ctx, chromedp.Evaluate[int](crossingJS(".renew-tick", ".lease-label"))); n > 0 {
		t.Errorf("%d renewal tick(s) cut into a lease's words", n)
	}

	b.runPreset(ctx, "delayed-write", nil)
	held := `(() => { const t = [...document.querySelectorAll('#timeline text')].find(t => t.textContent.startsWith('write held until')); if (!t) return -1;
  const r = t.getBBox(), l = document.querySelector('#timeline line.delay'), x1 = +l.getAttribute('x1'), y1 = +l.getAttribute('y1'), x2 = +l.getAttribute('x2'), y2 = +l.getAttribute('y2');
  let n = 0;
  for (let i = 0; i <= 200; i++) { const x = x1 + (x2 - x1) * i / 200, y = y1 + (y2 - y1) * i / 200; if (x > r.x && x < r.x + r.width && y > r.y && y < r.y + r.height) n++; }
  return n; })()`
	if n := run(b, ctx, chromedp.Evaluate[int](held)); n != 0 {
		t.Errorf("the delay arrow crosses its words (%d)", n)
	}
	for _, sz := range [][2]int{{1366, 900}, {390, 844}} {
		b.size(ctx, sz[0], sz[1])
		b.settle(ctx)
		if n := run(b, ctx, chromedp.Evaluate[int](held)); n > 0 {
			t.Errorf("%dx%d: the delay arrow crosses its words (%d)", sz[0], sz[1], n)
		}
		b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('timeline').scrollIntoView()`))
		b.settle(ctx)
		b.shot(ctx, "", fmt.Sprintf("22-delayed-write-%dx%d", sz[0], sz[1]))
	}
}
