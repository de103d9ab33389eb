package web_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestE2ECompareSharesOneScreen: at 1366x900 Compare's two timelines are
// both wholly on the screen once the comparison comes up, for a Raft run
// and for a Redlock run with its five servers; on a phone they stack and
// the page does not scroll sideways.
func TestE2ECompareSharesOneScreen(t *testing.T) {
	b := startBrowser(t)
	for _, preset := range []string{"paused-holder", "redlock-clock-jump"} {
		ctx := b.tab("/playground?preset=" + preset)
		b.do(ctx, chromedp.KeyEvent("c"))
		b.waitJS(ctx, `!!document.querySelector('[data-testid=compare-svg-b] rect') && !document.getElementById('compare-view').hidden`, "both runs of "+preset)
		b.settle(ctx)
		b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('compare-view').scrollIntoView({ block: 'start' })`))
		b.settle(ctx)
		box := func(id string) [2]float64 {
			return run(b, ctx, chromedp.Evaluate[[2]float64](fmt.Sprintf(`(r => [r.top, r.bottom])(document.querySelector('[data-testid=%s]').getBoundingClientRect())`, id)))
		}
		for _, id := range []string{"compare-svg-a", "compare-svg-b"} {
			if r := box(id); r[0] < 0 || r[1] > 900 {
				t.Errorf("%s at 1366x900: %s spans %.0f to %.0f px, not wholly on the screen", preset, id, r[0], r[1])
			}
		}
		b.shot(ctx, "", "22-compare-"+preset+"-1366x900")
		b.size(ctx, 390, 844)
		b.settle(ctx)
		if w := run(b, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`)); w > 0 {
			t.Errorf("%s at 390x844: the page scrolls %d px sideways", preset, w)
		}
		if a, bb := box("compare-svg-a"), box("compare-svg-b"); bb[0] < a[1] {
			t.Errorf("%s at 390x844: the timelines do not stack (%v, %v)", preset, a, bb)
		}
		b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('compare-view').scrollIntoView({ block: 'start' })`))
		b.settle(ctx)
		b.shot(ctx, "", "22-compare-"+preset+"-390x844")
	}
}
