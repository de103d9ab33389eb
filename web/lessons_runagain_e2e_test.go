package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestE2ELessonRunsAgainFromTheKeyboard: a learner who runs a lesson's
// playground from the keyboard keeps the focus on Run, and Enter runs it
// again. A Run button disabled while its run was asked for lost the focus
// to the page, and the next Enter did nothing. A press while a run is
// being asked for does not ask twice.
func TestE2ELessonRunsAgainFromTheKeyboard(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/lessons/leases")
	const runBtn = `#playground-2 [data-testid=lp-run]`
	b.do(ctx, chromedp.WaitVisible(chromedp.CSS(runBtn)),
		// The page's runs wait until the test lets them go, so that the
		// second Enter falls while the first run is asked for however
		// fast or slow the machine.
		chromedp.Evaluate[chromedp.Void](`(() => {
			const f = window.fetch;
			window.runsAsked = 0;
			window.fetch = (url, ...a) => {
				if (!String(url).includes('/api/run')) return f(url, ...a);
				window.runsAsked++;
				return new Promise(r => { window.letGo = r; }).then(() => f(url, ...a));
			};
		})()`),
		chromedp.Focus(chromedp.CSS(runBtn)), chromedp.KeyEvent(kb.Enter), chromedp.KeyEvent(kb.Enter),
		chromedp.Evaluate[chromedp.Void](`window.letGo()`))
	// Done: no run asked for, its replay drawn to the end, its verdict in.
	const done = `!document.querySelector('#playground-2 form').hasAttribute('aria-busy') && document.querySelector('#playground-2 [data-testid=lp-timeline]').dataset.drawn === '1' && !!document.querySelector('#playground-2 [data-testid=verdict-heading]')`
	b.waitJS(ctx, done, "the first run's verdict")
	if n := run(b, ctx, chromedp.Evaluate[int](`window.runsAsked`)); n != 1 {
		t.Errorf("two presses of Enter while the run was asked for asked for %d runs, want 1", n)
	}
	if on := run(b, ctx, chromedp.Evaluate[bool](`document.activeElement === document.querySelector('#playground-2 [data-testid=lp-run]')`)); !on {
		t.Fatalf("after a run started from the keyboard the focus is on %s, not on Run",
			run(b, ctx, chromedp.Evaluate[string](`document.activeElement.tagName`)))
	}
	b.do(ctx, chromedp.KeyEvent(kb.Enter))
	b.waitJS(ctx, `window.runsAsked === 2`, "Enter asking for a second run")
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`window.letGo()`))
	b.waitJS(ctx, done, "the second run's verdict")
}

// TestE2ELessonRunAgainMidReplay: Run pressed again while the last run
// still replays takes the drawing over. The earlier replay stops where it
// is: it does not go on drawing under the new one, and its verdict never
// comes. The page's animation frames are the test's to give, with any
// time it likes, so the check holds however fast the machine is.
func TestE2ELessonRunAgainMidReplay(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/lessons/leases")
	const runBtn = `#playground-2 [data-testid=lp-run]`
	const waits = `#playground-2 [data-testid=lp-verdict-waits]`
	b.do(ctx, chromedp.WaitVisible(chromedp.CSS(runBtn)),
		chromedp.Evaluate[chromedp.Void](`(() => {
			window.held = [];
			window.requestAnimationFrame = f => window.held.push(f);
			// frame gives the waiting frame callbacks the time at
			// (performance.now() plus ms), as the browser would; one
			// frames them one at a time, each in a task of its own.
			window.frame = ms => { const q = window.held; window.held = []; q.forEach(f => f(performance.now() + ms)); };
			window.one = ms => { const f = window.held.shift(); f?.(performance.now() + ms); };
			window.verdicts = 0;
			const v = document.querySelector('#playground-2 [data-testid=lp-verdict]');
			new MutationObserver(() => { if (v.querySelector('[data-testid=verdict-heading]')) window.verdicts++; }).observe(v, { childList: true });
		})()`),
		press(runBtn))
	b.waitJS(ctx, `!!document.querySelector('`+waits+`') && !document.querySelector('#playground-2 form').hasAttribute('aria-busy')`, "the first replay under way")
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`window.frame(300)`), press(runBtn))
	b.waitJS(ctx, `!!document.querySelector('`+waits+`') && !document.querySelector('#playground-2 form').hasAttribute('aria-busy') && window.held.length > 0`, "the second replay under way")
	// Past the end of both replays, one callback a task: the verdict
	// box's watcher sees each change of it.
	for range 4 {
		b.do(ctx, chromedp.Evaluate[chromedp.Void](`window.one(5000)`))
	}
	b.waitJS(ctx, `document.querySelector('#playground-2 [data-testid=lp-timeline]').dataset.drawn === '1'`, "the second replay's end")
	if n := run(b, ctx, chromedp.Evaluate[int](`window.verdicts`)); n != 1 {
		t.Errorf("the verdict came %d times for one replay played to its end: the replay Run cut short went on and gave its verdict too", n)
	}
}
