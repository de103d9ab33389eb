package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// choose picks the option an exercise's file keys key and sends it. The
// page names options by an id that says nothing of the key, worked out
// here from the catalog.
func (b *browser) choose(ctx context.Context, id, key string) {
	b.t.Helper()
	ex, err := catalog(b.t).Exercise(id)
	if err != nil {
		b.t.Fatal(err)
	}
	b.do(ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#exercise-%s [data-testid=%s]`, id, ex.PublicOptionID(key)))),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#exercise-%s [data-testid=check]`, id))),
	)
}

// showMe asks for an exercise's answer, agreeing to give it up.
func (b *browser) showMe(ctx context.Context, id string) {
	b.t.Helper()
	b.do(ctx,
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#exercise-%s [data-testid=show-me]`, id))),
	)
}

func (b *browser) runDisabled(ctx context.Context, fig string) bool {
	b.t.Helper()
	return run(b, ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector('%s [data-testid=lp-run]').disabled`, fig)))
}

// TestE2EPredictThenRun: a lesson's first playground does not run before
// the learner commits to a prediction; a wrong prediction is told why,
// without the run's value, and leaves the playground locked; a right one
// (or "show me", or a third wrong try) opens it, and only the run shows
// the caption and the verdict.
func TestE2EPredictThenRun(t *testing.T) {
	var b *browser
	for _, size := range []struct {
		name string
		w, h int64
	}{{"wide", 1366, 900}, {"phone", 390, 844}} {
		// A browser of its own for each: the practice cookie remembers a
		// prediction, and the page opens what it earned.
		b = startBrowser(t)
		ctx := b.tab("/lessons/why-a-lock")
		b.do(ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Reload(),
			chromedp.WaitVisible(chromedp.CSS(`#playground-1 [data-testid=lp-run]`)))
		const ex, fig = "pause-outlives-lease", "#playground-1"
		if !b.runDisabled(ctx, fig) {
			t.Fatalf("%s: the playground runs before any prediction", size.name)
		}
		caption := run(b, ctx, chromedp.Evaluate[string](`document.querySelector('#playground-1 figcaption').textContent`))
		if !strings.Contains(caption, "Predict first") || strings.Contains(caption, "19 s") {
			t.Errorf("%s: before the prediction the caption reads %q", size.name, caption)
		}
		b.do(ctx, chromedp.ScrollIntoView(chromedp.CSS(`[data-exercise=`+ex+`]`)))
		b.shot(ctx, "", "predict-"+size.name+"-1-locked")

		// Wrong: told why, not what the run gave; still locked.
		b.choose(ctx, ex, "a")
		fb := b.waitText(ctx, `#exercise-`+ex+` [data-testid=feedback]`, "Not yet")
		if !strings.Contains(fb, "A lease does not wait") || strings.Contains(fb, "client-1's late write") || strings.Contains(fb, "The answer") {
			t.Errorf("%s: a wrong prediction says %q", size.name, fb)
		}
		if n := run(b, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#exercise-`+ex+` [data-testid=result-timeline], #exercise-`+ex+` [data-testid=expected]').length`)); n != 0 {
			t.Errorf("%s: a wrong prediction shows the run", size.name)
		}
		if hidden := run(b, ctx, chromedp.Evaluate[bool](`document.querySelector('#exercise-`+ex+` details.solution').hidden`)); !hidden {
			t.Errorf("%s: a wrong prediction shows the solution", size.name)
		}
		if !b.runDisabled(ctx, fig) {
			t.Errorf("%s: a wrong prediction opened the playground", size.name)
		}
		b.shot(ctx, "", "predict-"+size.name+"-2-wrong")

		// Right: the solution, then the playground opens.
		b.choose(ctx, ex, "c")
		b.waitText(ctx, `#exercise-`+ex+` [data-testid=feedback]`, "Correct")
		b.waitJS(ctx, `!document.querySelector('#exercise-`+ex+` details.solution').hidden && document.querySelector('#exercise-`+ex+` [data-testid=solution-body]').textContent.includes('13 s')`, "the worked solution")
		b.waitJS(ctx, `!document.querySelector('#playground-1 [data-testid=lp-run]').disabled`, "the Run button opening")
		if n := run(b, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#playground-1 [data-testid=verdict-text]').length`)); n != 0 {
			t.Errorf("%s: a verdict before the run", size.name)
		}
		b.do(ctx, chromedp.Click(chromedp.CSS(`#playground-1 [data-testid=lp-run]`)))
		v := b.waitText(ctx, `#playground-1 [data-testid=verdict-text]`, "UNSAFE")
		if !strings.Contains(v, "stale write accepted") {
			t.Errorf("%s: the run's verdict %q", size.name, v)
		}
		b.waitText(ctx, `#playground-1 figcaption`, "client-1 freezes from 4 s to 19 s")
		b.waitJS(ctx, `document.querySelector('#playground-1 [data-testid=lp-timeline]').dataset.drawn === '1'`, "the replay's end")
		b.do(ctx, chromedp.ScrollIntoView(chromedp.CSS(fig)))
		b.shot(ctx, "", "predict-"+size.name+"-3-run")

		// The same learner comes back: the page opens what was earned.
		ctx = b.tab("/lessons/why-a-lock")
		b.waitJS(ctx, `!document.querySelector('#playground-1 [data-testid=lp-run]').disabled && !document.querySelector('#exercise-`+ex+` details.solution').hidden`, "an earned prediction remembered")
	}

	// "Show me" opens a playground too, with the value and the real run.
	ctx := b.tab("/lessons/leases")
	if !b.runDisabled(ctx, "#playground-1") {
		t.Fatal("the leases playground runs before any prediction")
	}
	b.showMe(ctx, "crash-wait-predict")
	fb := b.waitText(ctx, `#exercise-crash-wait-predict [data-testid=feedback]`, "The answer")
	if !strings.Contains(fb, "30 s") {
		t.Errorf("show me says %q", fb)
	}
	b.waitJS(ctx, `document.querySelector('#exercise-crash-wait-predict [data-testid=result-timeline]')?.dataset.drawn === '1'`, "the real run drawn")
	b.waitJS(ctx, `!document.querySelector('#playground-1 [data-testid=lp-run]').disabled`, "the Run button opening after show me")
	b.do(ctx, chromedp.Click(chromedp.CSS(`#playground-1 [data-testid=lp-run]`)))
	b.waitText(ctx, `#playground-1 [data-testid=verdict-text]`, "SAFE")
	b.waitText(ctx, `#playground-1 figcaption`, "Every request of client-2 is refused")

	// Three wrong tries: the third shows the answer and opens the playground.
	ctx = b.tab("/lessons/redlock")
	for try := 1; try <= 3; try++ {
		b.choose(ctx, "more-servers-pause", "a")
		b.waitJS(ctx, fmt.Sprintf(`document.querySelector('#exercise-more-servers-pause').dataset.tries === '%d'`, try), fmt.Sprintf("try %d counted", try))
		if try < 3 && !b.runDisabled(ctx, "#playground-1") {
			t.Errorf("after %d wrong tries the playground opened", try)
		}
	}
	b.waitText(ctx, `#exercise-more-servers-pause [data-testid=feedback]`, "third wrong try")
	b.waitJS(ctx, `!document.querySelector('#playground-1 [data-testid=lp-run]').disabled`, "the Run button opening after three tries")
}
