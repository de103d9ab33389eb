package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/lessons"
)

// waitText waits until the element matching sel has text containing want,
// and returns the text.
func (b *browser) waitText(ctx context.Context, sel, want string) string {
	b.t.Helper()
	js := fmt.Sprintf(`(document.querySelector(%q)?.textContent || '').includes(%q)`, sel, want)
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q)?.textContent ?? '(no element)'`, sel)))
		b.t.Fatalf("%s never said %q: it says %q (%v)", sel, want, got, err)
	}
	return run(b, ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).textContent`, sel)))
}

// waitJS waits until the expression is true.
func (b *browser) waitJS(ctx context.Context, js, what string) {
	b.t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		b.t.Errorf("never saw %s (%v)%s", what, err, b.statusLine(ctx))
	}
}

// statusLine reads, for a failure's message, what the page's status line
// says, if it has one.
func (b *browser) statusLine(ctx context.Context) string {
	tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, err := chromedp.Run(tctx, chromedp.Evaluate[string](`(document.getElementById('status') || {}).textContent || ''`))
	if err != nil || s == "" {
		return ""
	}
	return "; the status line says " + strconv.Quote(s)
}

// shot saves a screenshot of one element (or, for "", of the viewport) as name.png in the artifact
// directory: a lesson page is too long for a whole-page picture to be read.
func (b *browser) shot(ctx context.Context, sel, name string) {
	b.t.Helper()
	dir := os.Getenv("PLAYGROUND_E2E_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "e2e-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	// Whatever the state, the page never scrolls sideways: wide content
	// (a timeline, a table) scrolls inside its own box.
	if w := run(b, ctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`)); w[0] > w[1] {
		b.t.Errorf("%s: the page is %d px wide in a %d px window, so it scrolls sideways", name, w[0], w[1])
	}
	var png []byte
	if sel == "" {
		png = run(b, ctx, chromedp.CaptureScreenshot())
	} else {
		png = run(b, ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	}
	file := filepath.Join(dir, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", file)
}

// answer types an answer into an exercise's field and submits it with
// the keyboard.
func (b *browser) answer(ctx context.Context, id, text string) {
	b.t.Helper()
	field := fmt.Sprintf(`#exercise-%s [data-testid=answer]`, id)
	b.do(ctx,
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = ''`, field)),
		chromedp.SendKeys(chromedp.CSS(field), text+"\r"),
	)
}

func TestE2ELessonPlaygroundAndExercises(t *testing.T) {
	b := startBrowser(t)

	// A lesson's embedded playground: its prediction first, then fencing
	// off, run, read the verdict.
	ctx := b.tab("/lessons/fencing-tokens")
	b.do(ctx, chromedp.WaitVisible(chromedp.CSS(`#playground-1 [data-testid=lp-run]`)))
	if n := run(b, ctx, chromedp.Evaluate[int](`document.querySelectorAll('figure.playground.live').length`)); n != 4 {
		t.Errorf("%d live playgrounds, want 4", n)
	}
	b.shot(ctx, "", "lessons-00-top")
	b.choose(ctx, "fence-refuses", "b")
	b.waitText(ctx, `#exercise-fence-refuses [data-testid=feedback]`, "Correct")
	b.waitJS(ctx, `!document.querySelector('#playground-1 [data-testid=lp-run]').disabled`, "the playground opening")
	fencing := `#playground-1 input[data-path=fencing]`
	if run(b, ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).checked`, fencing))) {
		b.do(ctx, chromedp.Click(chromedp.CSS(fencing)))
	}
	b.do(ctx, chromedp.Click(chromedp.CSS(`#playground-1 [data-testid=lp-run]`)))
	v := b.waitText(ctx, `#playground-1 [data-testid=verdict-text]`, "UNSAFE")
	if !strings.Contains(v, "stale write accepted") {
		t.Errorf("fencing off: verdict %q", v)
	}
	// The run replays on the compact timeline in under a second.
	b.waitJS(ctx, `document.querySelectorAll('#playground-1 [data-testid=write-mark]').length >= 2`, "two write marks on the compact timeline")
	open := run(b, ctx, chromedp.Evaluate[string](`document.querySelector('#playground-1 [data-testid=lp-open]').getAttribute('href')`))
	if !strings.HasPrefix(open, "/playground?s=") {
		t.Errorf("open-in-playground link %q", open)
	}
	// Fencing back on, with the keyboard: focus the switch, Space, Enter on Run.
	b.do(ctx, chromedp.Focus(chromedp.CSS(fencing)), chromedp.KeyEvent(" "),
		chromedp.Focus(chromedp.CSS(`#playground-1 [data-testid=lp-run]`)), chromedp.KeyEvent("\r"))
	b.waitText(ctx, `#playground-1 [data-testid=verdict-text]`, "every stale write was refused")
	b.waitJS(ctx, `document.querySelector('#playground-1 [data-testid=lp-timeline]').dataset.drawn === '1'`, "the replay's end")
	b.shot(ctx, `#playground-1`, "lessons-01-playground")

	// A prediction: graded against a real run, whose timeline is shown.
	b.answer(ctx, "nightly-total-predict", "Rs 42,000")
	b.waitText(ctx, `#exercise-nightly-total-predict [data-testid=feedback]`, "Correct")
	b.waitJS(ctx, `document.querySelectorAll('#exercise-nightly-total-predict [data-testid=result-timeline] [data-testid=write-mark]').length > 0`, "the prediction's real timeline")
	b.waitJS(ctx, `document.querySelector('#exercise-nightly-total-predict [data-testid=result-timeline]').dataset.drawn === '1'`, "the replay's end")
	b.shot(ctx, `[data-exercise=nightly-total-predict]`, "lessons-02-predict")

	// An open question: the model answer and the rubric after committing.
	b.do(ctx, chromedp.SendKeys(chromedp.CSS(`#exercise-fencing-token-definition textarea`), "A number that grows with every grant; the storage refuses a write with a lower token than the highest it has seen."),
		chromedp.Click(chromedp.CSS(`#exercise-fencing-token-definition [data-testid=check]`)))
	b.waitText(ctx, `#exercise-fencing-token-definition [data-testid=feedback]`, "Submitted")
	b.waitJS(ctx, `document.querySelectorAll('#exercise-fencing-token-definition [data-testid=rubric] li').length > 0 && !document.querySelector('[data-exercise=fencing-token-definition] details.solution').hidden`, "the rubric and the model answer")
	b.shot(ctx, `[data-exercise=fencing-token-definition]`, "lessons-05-text")
	// The model answer's Markdown code reads as code, not as backticks.
	if got := run(b, ctx, chromedp.Evaluate[string](`(document.querySelector('[data-exercise=fencing-token-definition] .model-answer code') || {}).textContent || ''`)); !strings.Contains(got, "WHERE fence") {
		t.Errorf("the model answer's code reads %q", got)
	}
	if got := run(b, ctx, chromedp.Evaluate[string](`document.querySelector('[data-exercise=fencing-token-definition] .model-answer').textContent`)); strings.Contains(got, "`") {
		t.Errorf("the model answer shows Markdown backticks: %q", got)
	}

	// An exercise wrong, unreadable, then right.
	ctx = b.tab("/lessons/leases")
	b.answer(ctx, "outlive-lease", "4950")
	fb := b.waitText(ctx, `#exercise-outlive-lease [data-testid=feedback]`, "Not yet")
	if !strings.Contains(fb, "finish in time") {
		t.Errorf("wrong answer feedback %q", fb)
	}
	b.waitJS(ctx, `!document.querySelector('#exercise-outlive-lease [data-testid=hints]').hidden`, "the first hint")
	b.answer(ctx, "outlive-lease", "forty")
	b.waitText(ctx, `#exercise-outlive-lease [data-testid=feedback]`, "no try used")
	b.answer(ctx, "outlive-lease", "50 runs")
	b.waitText(ctx, `#exercise-outlive-lease [data-testid=feedback]`, "Correct")
	if !run(b, ctx, chromedp.Evaluate[bool](`document.querySelector('[data-exercise=outlive-lease] details.solution').open`)) {
		t.Error("the worked solution is not shown after a correct answer")
	}
	b.shot(ctx, `[data-exercise=outlive-lease]`, "lessons-03-exercise")

	// Scenario settings: without renewal the job loses its lock, shown
	// with the shortest failing run; renewing every 10 s passes all runs.
	b.waitJS(ctx, `document.querySelector('#exercise-long-job-config textarea').value.includes('"lock.lease":"30s"')`, "the settings JSON")
	b.do(ctx, chromedp.Click(chromedp.CSS(`#exercise-long-job-config [data-testid=check]`)))
	fb = b.waitText(ctx, `#exercise-long-job-config [data-testid=feedback]`, "Not yet")
	if !strings.Contains(fb, "shortest failing run") {
		t.Errorf("scenario feedback %q", fb)
	}
	b.waitJS(ctx, `document.querySelector('#exercise-long-job-config [data-testid=result-timeline]')?.dataset.drawn === '1'`, "the failing run drawn")
	b.shot(ctx, `[data-exercise=long-job-config]`, "lessons-06-scenario-wrong")
	b.do(ctx, chromedp.SendKeys(chromedp.CSS(`#exercise-long-job-config input[data-path="clients[client-1].renew_every"]`), "10s"))
	b.do(ctx, chromedp.Click(chromedp.CSS(`#exercise-long-job-config [data-testid=check]`)))
	b.waitText(ctx, `#exercise-long-job-config [data-testid=feedback]`, "Correct")
	if n := run(b, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#exercise-long-job-config [data-testid=runs] li.pass').length`)); n != 4 {
		t.Errorf("%d runs passed, want 4", n)
	}

	// The index marks it.
	ctx = b.tab("/lessons")
	b.waitText(ctx, `[data-slug=leases] [data-testid=lesson-count]`, "2 of")
	if s := run(b, ctx, chromedp.Evaluate[string](`document.querySelector('[data-exercise=outlive-lease] [data-testid=exercise-state]').textContent`)); s != "(answered correctly)" {
		t.Errorf("index state %q", s)
	}
	if !strings.Contains(run(b, ctx, chromedp.Evaluate[string](`document.getElementById('progress-total').textContent`)), "done 5 of") {
		t.Error("the total does not count the exercise")
	}
	b.screenshot(ctx, "lessons-04-index")
}

// TestE2EEveryLessonPlaygroundRuns opens every lesson and runs each of its
// playgrounds as the lesson sets it up: every control must read into a
// scenario the engine takes.
func TestE2EEveryLessonPlaygroundRuns(t *testing.T) {
	b := startBrowser(t)
	cat := catalog(t)
	sweep(t, b, cat.Lessons(), func(l *lessons.Lesson) string { return l.Slug }, func(b *browser, _ int, l *lessons.Lesson) {
		t := b.t
		ctx := b.tab("/lessons/" + l.Slug)
		for _, pg := range l.Playgrounds {
			fig := "#" + pg.ID
			if pg.Predict != "" {
				// A playground that waits for a prediction: be shown the
				// answer, and it opens.
				b.showMe(ctx, pg.Predict)
				b.waitJS(ctx, fmt.Sprintf(`!document.querySelector(%q).disabled`, fig+" [data-testid=lp-run]"), l.Slug+" "+pg.ID+" opening")
			}
			name := "replay_" + strings.ReplaceAll(pg.ID, "-", "_")
			b.do(ctx, chromedp.Evaluate[chromedp.Void](recordReplay(name, fig+" [data-testid=lp-timeline]", fig+" [data-testid=lp-run]")),
				press(fig+" [data-testid=lp-run]"))
			js := fmt.Sprintf(`(() => { const f = document.querySelector(%q); return !!f.querySelector('[data-testid=verdict-text]') || f.querySelector('.lp-status').classList.contains('error'); })()`, fig)
			b.waitJS(ctx, js, l.Slug+" "+pg.ID+" finished")
			if msg := run(b, ctx, chromedp.Evaluate[string](fmt.Sprintf(`(() => { const s = document.querySelector(%q); return s.classList.contains('error') ? s.textContent : ''; })()`, fig+" .lp-status"))); msg != "" {
				t.Errorf("%s %s (%s): %s", l.Slug, pg.ID, pg.Preset, msg)
			}
			if n := run(b, ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, fig+" [data-testid=lp-control]"))); n != len(pg.Controls) {
				t.Errorf("%s %s: %d controls, want %d", l.Slug, pg.ID, n, len(pg.Controls))
			}
			b.waitJS(ctx, fmt.Sprintf(`document.querySelector(%q).dataset.drawn === '1'`, fig+" [data-testid=lp-timeline]"), "the replay's end")
			// Wherever its verdict is (one line or five), the drawing
			// stays put from Run to the verdict, which waits for the end.
			if got := b.replayRecord(ctx, name); len(got.Top) != 1 || len(got.Height) != 1 || len(got.Early) > 0 {
				t.Errorf("%s %s: from Run to the verdict the drawing stood at y = %v, %v px high, and a verdict came before the end: %q", l.Slug, pg.ID, got.Top, got.Height, got.Early)
			}
			b.shot(ctx, fig, "lessons-pg-"+l.Slug+"-"+pg.ID)
		}
		b.closeTab(ctx)
	})
}

// closeTab closes a tab a sweep is done with, so that its page (a replay
// still drawing, a live run) does not go on beside the next one.
func (b *browser) closeTab(ctx context.Context) {
	b.t.Helper()
	if err := chromedp.Cancel(ctx); err != nil {
		b.t.Errorf("closing the tab: %v", err)
	}
}

// TestE2ELessonOnAPhoneWithReducedMotion: on a narrow screen the contents
// move above the text, and with prefers-reduced-motion a run is drawn at
// once, not replayed.
func TestE2ELessonOnAPhoneWithReducedMotion(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/lessons/leases")
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}, {Name: "prefers-color-scheme", Value: "dark"}},
	}); err != nil {
		t.Fatal(err)
	}
	b.do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#playground-1 [data-testid=lp-run]`)))
	b.shot(ctx, "", "lessons-07-phone-top")
	b.showMe(ctx, "crash-wait-predict")
	b.waitJS(ctx, `!document.querySelector('#playground-1 [data-testid=lp-run]').disabled`, "the playground opening")
	b.do(ctx, chromedp.Click(chromedp.CSS(`#playground-1 [data-testid=lp-run]`)))
	b.waitText(ctx, `#playground-1 [data-testid=verdict-text]`, "SAFE")
	if d := run(b, ctx, chromedp.Evaluate[string](`document.querySelector('#playground-1 [data-testid=lp-timeline]').dataset.drawn`)); d != "1" {
		t.Errorf("with reduced motion the run was not drawn at once (drawn=%q)", d)
	}
	// The lane names are cut to fit a phone, each keeping its number: the
	// run is about which node and which client, and "node…" three times
	// over would not say.
	names := run(b, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#playground-1 [data-testid=lp-timeline] .lane-label')].map(e => e.textContent)`))
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("two lanes are named %q on a phone: %q", n, names)
		}
		seen[n] = true
	}
	if !slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, "…") }) {
		t.Errorf("no lane name was cut on a phone (%q): this check no longer looks at a cut name", names)
	}
	if w := run(b, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("the page is %d px wide on a 390 px screen", w)
	}
	b.do(ctx, chromedp.ScrollIntoView(chromedp.CSS(`#playground-1`)))
	b.shot(ctx, "", "lessons-08-phone-playground")
}
