package web_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestE2EAReplayKeepsItsHeight: a lesson replays a finished run over a
// second, and a lane whose actor first acts midway (the side-effects
// lesson's SMS provider) must be there from the first frame. Were it added
// when its actor first acts, the drawing would grow under the learner, and
// what stands below it, the playground's Run button under a shown answer,
// would move away from a press aimed at it. The playground's own replay
// keeps its place too: its verdict, above the drawing, waits for the
// replay's end in a box already its size, and is not there before. The
// page records every frame of both replays, and the frame after, so the
// test does not depend on how fast it looks.
func TestE2EAReplayKeepsItsHeight(t *testing.T) {
	b := startBrowser(t)
	l, err := catalog(t).Lesson("side-effects")
	if err != nil {
		t.Fatal(err)
	}
	pg := l.Playgrounds[0]
	if pg.Predict == "" {
		t.Fatal("side-effects' first playground waits for no prediction: the shown answer above it is what this test replays")
	}
	ctx := b.tab("/lessons/side-effects")
	fig := "#" + pg.ID
	record := func(svg, name string) string { return recordReplay(name, svg, fig+" [data-testid=lp-run]") }
	check := func(svg, name, what string, below bool) replaySeen {
		t.Helper()
		b.waitJS(ctx, fmt.Sprintf(`document.querySelector(%q)?.dataset.drawn === '1'`, svg), what+" drawn")
		got := b.replayRecord(ctx, name)
		if len(got.Height) != 1 {
			t.Errorf("while %s replayed, its drawing was %v px high: it grew as it played", what, got.Height)
		}
		if below && len(got.Run) == 0 {
			t.Logf("the playground opened only after %s was drawn: its Run button's place was not watched", what)
		}
		if below && len(got.Run) > 1 {
			t.Errorf("while %s replayed, the Run button below it stood at y = %v: it moved as it played", what, got.Run)
		}
		return got
	}
	shown := fmt.Sprintf(`#exercise-%s output svg`, pg.Predict)
	b.do(ctx, chromedp.Evaluate[chromedp.Void](record(shown, "shown")))
	b.showMe(ctx, pg.Predict)
	check(shown, "shown", "the shown answer's run", true)

	played := fig + " [data-testid=lp-timeline]"
	b.waitJS(ctx, fmt.Sprintf(`!document.querySelector(%q).disabled`, fig+" [data-testid=lp-run]"), "the playground opening")
	b.do(ctx, chromedp.Evaluate[chromedp.Void](record(played, "played")), press(fig+" [data-testid=lp-run]"))
	got := check(played, "played", "the playground's run", false)
	if len(got.Top) != 1 {
		t.Errorf("from Run to its verdict the playground's drawing stood at y = %v: the verdict above it pushed it down when it came", got.Top)
	}
	if len(got.Early) > 0 {
		t.Errorf("the playground's verdict (%q) was there before its replay ended", got.Early[0])
	}
	b.waitJS(ctx, fmt.Sprintf(`!!document.querySelector(%q)`, fig+" [data-testid=verdict-heading]"), "the playground's verdict")

	// Run again, the answer slow to come (as from a busy server): while
	// it is asked for, "Running…" stands where the last run's words were,
	// and the drawing under the verdict stays put to the new verdict.
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`(() => {
		const f = window.fetch;
		window.fetch = (...a) => new Promise(r => setTimeout(r, 150)).then(() => f(...a));
	})()`), chromedp.Evaluate[chromedp.Void](record(played, "again")), press(fig+" [data-testid=lp-run]"))
	got = check(played, "again", "the playground's second run", false)
	if len(got.Top) != 1 {
		t.Errorf("from the second Run to its verdict the playground's drawing stood at y = %v: it moved while the run was asked for or played", got.Top)
	}
	if len(got.Early) > 0 {
		t.Errorf("the second run's verdict (%q) was there before its replay ended", got.Early[0])
	}
}

// TestE2EALiveRunKeepsItsLanes: the playground draws a live run as its
// events come. The SMS provider of sms-reminder acts only halfway; its lane
// is there before Run, in the sketch of what will run, and the drawing
// keeps its height in every frame of the run.
func TestE2EALiveRunKeepsItsLanes(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=sms-reminder")
	lanes := `[...document.querySelectorAll('#timeline g.lane-name')].map(g => g.dataset.lane)`
	before := run(b, ctx, chromedp.Evaluate[[]string](lanes))
	if !slices.Contains(before, "sms") {
		t.Errorf("before Run the timeline's lanes are %q: the SMS provider the clients send to is not among them", before)
	}
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`(() => {
		const seen = window.heights = new Set();
		const tick = () => {
			const svg = document.getElementById('timeline');
			seen.add(Math.round(svg.getBoundingClientRect().height));
			if (!document.querySelector('[data-testid=verdict-text]')) requestAnimationFrame(tick);
		};
		tick();
	})()`), setSpeed(0), chromedp.Click(chromedp.ID("run")))
	b.waitVerdict(ctx, "UNSAFE")
	if got := run(b, ctx, chromedp.Evaluate[[]int](`[...window.heights]`)); len(got) != 1 {
		t.Errorf("from Run to the verdict the timeline was %v px high: it grew while the run played", got)
	}
	if after := run(b, ctx, chromedp.Evaluate[[]string](lanes)); !slices.Equal(after, before) {
		t.Errorf("the run ended with lanes %q, it began with %q", after, before)
	}
}

// replaySeen is what recordReplay saw of a replay, frame by frame.
type replaySeen struct {
	Run    []int    // the Run button's y on the page, while it could be pressed
	Height []int    // the drawing's heights, once shown
	Top    []int    // the drawing's y on the page, once shown
	Early  []string // verdict headings seen before the replay's end
}

// recordReplay returns script that records, in window[name], every frame
// until the replay in svg is drawn and the one after (a drawing already
// drawn must first be drawn again): the drawing's height and place once it
// is shown, the place of the Run button runBtn while it can be pressed, and
// a verdict heading in the drawing's playground before the replay's end.
// Recording each frame in the page, the test does not depend on how fast
// it looks.
func recordReplay(name, svg, runBtn string) string {
	return fmt.Sprintf(`(() => {
		const seen = window[%q] = { run: new Set(), height: new Set(), top: new Set(), early: [] };
		let began = false, last = false;
		const tick = () => {
			const svg = document.querySelector(%q), run = document.querySelector(%q);
			if (svg && svg.getBoundingClientRect().height) {
				const r = svg.getBoundingClientRect();
				if (!run.disabled) seen.run.add(Math.round(run.getBoundingClientRect().top + scrollY));
				seen.height.add(Math.round(r.height));
				seen.top.add(Math.round(r.top + scrollY));
				const heading = svg.closest('.lp')?.querySelector('[data-testid=verdict-heading]');
				if (heading && svg.dataset.drawn !== '1') seen.early.push(heading.textContent);
			}
			if (last) { seen.done = true; return; }
			if (svg?.dataset.drawn !== '1') began = true;
			last = began && svg?.dataset.drawn === '1';
			requestAnimationFrame(tick);
		};
		tick();
	})()`, name, svg, runBtn)
}

// replayRecord waits for recordReplay's recording name to end and returns it.
func (b *browser) replayRecord(ctx context.Context, name string) replaySeen {
	b.t.Helper()
	return run(b, ctx, chromedp.Poll[replaySeen](fmt.Sprintf(`(s => s.done && { run: [...s.run], height: [...s.height], top: [...s.top], early: s.early })(window[%q])`, name)))
}
