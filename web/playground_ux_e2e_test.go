package web_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
)

// regexpStopped is the heading of a run stopped before its end.
var regexpStopped = regexp.MustCompile(`^■ Stopped at \d+(\.\d+)?s: the run was stopped before its end`)

// scrubAt is the playhead's time in ms, as the scrubber shows it.
const scrubAt = `+document.getElementById('scrub').value`

// scrubLabel is the time shown beside the scrubber, in ms (under a minute).
const scrubLabel = `(() => { const s = document.getElementById('scrub-time').textContent; return s.endsWith('ms') ? +s.slice(0, -2) : parseFloat(s) * 1000; })()`

// stateBadge is the run's badge beside the controls: LIVE, PAUSED, REPLAY.
const stateBadge = `(document.querySelector('#status .state-badge')?.textContent || '')`

// TestE2ESpaceAfterAMouseClickPausesAndResumes: Run clicked with the
// mouse keeps the focus; Space then pauses the live run where it stands
// (it does not press Run again, which would restart it from 0 s), and
// Space again plays it on.
func TestE2ESpaceAfterAMouseClickPausesAndResumes(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=paused-holder")
	b.do(ctx, setSpeed(4), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ctx, scrubAt+` >= 2000`, "the live run passing 2 s")
	if id := run(b, ctx, chromedp.Evaluate[string](`document.activeElement.id`)); id != "run" {
		t.Fatalf("after a click on Run the focus is on %q, want run: the test no longer presses Space on the button", id)
	}
	b.do(ctx, chromedp.KeyEvent(" "))
	b.waitJS(ctx, stateBadge+` === 'PAUSED'`, "Space pausing the run")
	// The badge says PAUSED at once; the slider follows at the next frame,
	// which a busy machine may paint late.
	b.settle(ctx)
	at := run(b, ctx, chromedp.Evaluate[float64](scrubAt))
	if at < 2000 {
		t.Fatalf("Space sent the playhead back to %v ms: it restarted the run", at)
	}
	// The slider stands where its time says: a live run paused past its
	// last event is not shown at that event (one step of 50 ms apart at most).
	if label := run(b, ctx, chromedp.Evaluate[float64](scrubLabel)); label-at > 50 || at-label > 50 {
		t.Errorf("paused: the slider is at %v ms, its time says %v ms", at, label)
	}
	time.Sleep(400 * time.Millisecond) // a paused run must not move meanwhile
	if now := run(b, ctx, chromedp.Evaluate[float64](scrubAt)); now != at {
		t.Errorf("paused at %v ms, the playhead moved on to %v", at, now)
	}
	// A drag back a second and then to the slider's end comes back to
	// where the run was paused, or later (events sent before the pause
	// arrive after it), not to an earlier event.
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('scrub');
	  s.value = +s.value - 1000; s.dispatchEvent(new Event('input'));
	  s.value = s.max; s.dispatchEvent(new Event('input')); })()`))
	if end := run(b, ctx, chromedp.Evaluate[float64](scrubAt)); end < at-50 {
		t.Errorf("paused at %v ms, a drag back and to the slider's end stops at %v", at, end)
	}
	b.do(ctx, chromedp.KeyEvent(" "))
	b.waitJS(ctx, stateBadge+` === 'LIVE'`, "Space playing the run on")
	b.waitJS(ctx, scrubAt+` > `+strconv.FormatFloat(at, 'f', 0, 64), "the playhead moving on from the pause")
	if n := count(b, ctx, "#event-log tbody tr"); n == 0 {
		t.Error("the resumed run has lost its events")
	}
	b.do(ctx, chromedp.Click(chromedp.ID("stop")))
}

// phoneFit lists what runs wider than a 390 px phone: the page itself and
// each lesson timeline wider than its box or than the screen.
const phoneFit = `(() => {
  const bad = [], doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth) bad.push('the page is ' + doc.scrollWidth + ' px wide');
  for (const svg of document.querySelectorAll('svg.mini')) {
    if (!svg.dataset.drawn && !svg.closest('.fb-timeline')) continue;
    const wrap = svg.closest('.svg-wrap'), r = svg.getBoundingClientRect();
    if (wrap.scrollWidth > wrap.clientWidth + 1) bad.push((svg.closest('figure')?.id || 'a timeline') + ' scrolls: ' + wrap.scrollWidth + ' px in ' + wrap.clientWidth);
    if (r.right > doc.clientWidth + 1) bad.push((svg.closest('figure')?.id || 'a timeline') + ' ends at ' + Math.round(r.right) + ' px');
  }
  return bad;
})()`

// TestE2EEveryLessonFitsAPhone opens every lesson on a 390 px phone and
// runs each of its playgrounds: no page scrolls sideways (inline command
// lines wrap) and every timeline is drawn at the width of its box, so the
// whole run is on screen.
func TestE2EEveryLessonFitsAPhone(t *testing.T) {
	b := startBrowser(t)
	cat := catalog(t)
	sweep(t, b, cat.Lessons(), func(l *lessons.Lesson) string { return l.Slug }, func(b *browser, _ int, l *lessons.Lesson) {
		t := b.t
		ctx := b.tab("/lessons/" + l.Slug)
		b.size(ctx, 390, 844)
		b.do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("main")))
		for _, pg := range l.Playgrounds {
			fig := "#" + pg.ID
			if pg.Predict != "" {
				b.showMe(ctx, pg.Predict)
				b.waitJS(ctx, fmt.Sprintf(`!document.querySelector(%q).disabled`, fig+" [data-testid=lp-run]"), l.Slug+" "+pg.ID+" opening")
			}
			b.do(ctx, press(fig+" [data-testid=lp-run]"))
			b.waitJS(ctx, fmt.Sprintf(`document.querySelector(%q).dataset.drawn === '1'`, fig+" [data-testid=lp-timeline]"), l.Slug+" "+pg.ID+" drawn")
			if w := run(b, ctx, chromedp.Evaluate[float64](fmt.Sprintf(`document.querySelector(%q).getBoundingClientRect().width`, fig+" [data-testid=lp-timeline]"))); w > 390 || w < 250 {
				t.Errorf("%s %s: the timeline is %v px wide on a 390 px phone", l.Slug, pg.ID, w)
			}
		}
		if bad := run(b, ctx, chromedp.Evaluate[[]string](phoneFit)); len(bad) > 0 {
			t.Errorf("%s at 390 px: %v", l.Slug, bad)
		}
		if len(l.Playgrounds) > 0 {
			b.do(ctx, chromedp.ScrollIntoView(chromedp.CSS("#"+l.Playgrounds[0].ID+" [data-testid=lp-timeline]")))
			b.shot(ctx, "", "lesson-phone-"+l.Slug)
		}
		b.closeTab(ctx)
	})
}

// TestE2ERunsWhereNothingGotDoneAreNotHeadedSafe: lock-server-down writes
// nothing in a 36 s outage and is headed by that, not by a green Safe; a
// run stopped at 8 s is headed "Stopped at", not Safe.
func TestE2ERunsWhereNothingGotDoneAreNotHeadedSafe(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=lock-server-down")
	b.do(ctx, setSpeed(0), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ctx, `!!document.querySelector('[data-testid=verdict-heading]')`, "the verdict")
	head := run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=verdict-heading]")))
	want := "– Unavailable for 36s: no write happened; client-2 never got the lock"
	if head != want {
		t.Errorf("lock-server-down is headed %q, want %q", head, want)
	}
	if line := run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=verdict-line]"))); line != want {
		t.Errorf("the verdict line beside the controls says %q, want %q", line, want)
	}
	if v := run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=verdict-text]"))); v == "" || v[:4] == "SAFE" {
		t.Errorf("the verdict's text still says %q", v)
	}
	b.shots(ctx, "heading-lock-server-down")

	ph := b.tab("/playground?preset=paused-holder")
	b.do(ph, setSpeed(2), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ph, scrubAt+` >= 8000`, "the live run passing 8 s")
	b.do(ph, chromedp.Click(chromedp.ID("stop")))
	b.waitJS(ph, `!!document.querySelector('[data-testid=verdict-heading]')`, "the stopped run's verdict")
	if head := run(b, ph, chromedp.TextContent(chromedp.CSS("[data-testid=verdict-heading]"))); !regexpStopped.MatchString(head) {
		t.Errorf("a run stopped before its failure is headed %q, want Stopped at 8s or so", head)
	}
}

// TestE2EASharedLinkWaitsWithItsOutcomeFolded: a link shared from
// paused-holder with fencing switched on opens at 0 s, waiting: the
// question is asked, the note says fencing was changed from the preset,
// and the preset's outcome (which says fencing is off) stays folded until
// the link's first run.
func TestE2EASharedLinkWaitsWithItsOutcomeFolded(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=paused-holder")
	b.fencing(ctx, true)
	b.do(ctx, chromedp.Click(chromedp.ID("share")))
	link := run(b, ctx, chromedp.Value(chromedp.ID("share-link")))
	if strings.Contains(link, "run=1") || !strings.Contains(link, "&from=paused-holder") {
		t.Errorf("the share link %q runs at once or does not name its preset", link)
	}
	shared := b.tab(strings.TrimPrefix(link, b.base))
	time.Sleep(500 * time.Millisecond) // a waiting link must not start meanwhile
	if n := count(b, shared, "#event-log tbody tr"); n != 0 {
		t.Errorf("the shared link ran by itself: %d events", n)
	}
	if n := count(b, shared, "[data-testid=verdict-text]"); n != 0 {
		t.Error("the shared link shows a verdict before it ran")
	}
	if at := run(b, shared, chromedp.Evaluate[string](`document.getElementById('scrub-time').textContent || '0s'`)); at != "0s" {
		t.Errorf("the shared link opens at %s, want 0s", at)
	}
	p, _ := engine.LoadPreset("paused-holder")
	if q := run(b, shared, chromedp.Evaluate[string](`document.getElementById('question').innerText`)); q != p.Question {
		t.Errorf("the shared link asks %q, want the preset's question", q)
	}
	if run(b, shared, chromedp.Evaluate[bool](`document.getElementById('outcome').open`)) {
		t.Error("the shared link opens with its outcome unfolded")
	}
	note := run(b, shared, chromedp.Evaluate[string](`document.querySelector('[data-testid=changes]')?.innerText || ''`))
	if !strings.Contains(note, "fencing: true (the preset has false)") {
		t.Errorf("the note of changes says %q, want fencing switched on", note)
	}
	b.shots(shared, "share-waiting")
	b.do(shared, setSpeed(0), chromedp.Click(chromedp.ID("run")))
	b.waitVerdict(shared, "every stale write was refused")
	b.waitJS(shared, `document.getElementById('outcome').open`, "the outcome opening after the first run")
}

// focusedLane is the lane whose name has the focus, "" if none.
const focusedLane = `(document.activeElement?.closest?.('#timeline .lane-name')?.dataset.lane || '')`

// TestE2EALaneNameKeepsFocusInALiveRun: a live run redraws its timeline
// every frame; a lane's name given the focus keeps it 2 s into the run,
// Enter opens its menu, and Escape brings the focus back to it.
func TestE2EALaneNameKeepsFocusInALiveRun(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=paused-holder")
	b.do(ctx, setSpeed(1), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ctx, `document.querySelectorAll('#event-log tbody tr').length > 0`, "the live run's first event")
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('#timeline .lane-name[data-lane="client-2"]').focus()`))
	from := run(b, ctx, chromedp.Evaluate[float64](scrubAt))
	b.waitJS(ctx, scrubAt+` >= `+strconv.FormatFloat(from+2000, 'f', 0, 64), "the live run going 2 s on")
	if lane := run(b, ctx, chromedp.Evaluate[string](focusedLane)); lane != "client-2" {
		t.Fatalf("2 s into the live run the focus is on lane %q (%s), want client-2", lane,
			run(b, ctx, chromedp.Evaluate[string](`document.activeElement.tagName`)))
	}
	b.do(ctx, chromedp.KeyEvent(kb.Enter))
	b.waitJS(ctx, `!document.getElementById('actor-menu').hidden`, "Enter opening client-2's menu")
	if title := run(b, ctx, chromedp.Evaluate[string](`document.getElementById('actor-menu').innerText`)); !strings.Contains(title, "client-2") {
		t.Errorf("Enter opened a menu that does not name client-2: %q", title)
	}
	b.do(ctx, chromedp.KeyEvent(kb.Escape))
	b.waitJS(ctx, focusedLane+` === 'client-2'`, "Escape bringing the focus back to client-2's name")
	b.do(ctx, chromedp.Click(chromedp.ID("stop")))
}

// storageOnScreen says whether the timeline's storage lane is wholly in
// the window.
const storageOnScreen = `(() => { const r = document.querySelector('#timeline rect[data-lane=storage]').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`

// TestE2EFailureOnTheFirstScreenAndTheProjector: after a run at 1280x720
// (a projector) the question and the outcome take a line each, the
// storage lane, where the stale write lands, is on screen, and the line
// under the timeline says in the log's words what happens at the
// playhead. The projector view (V, or its button) drops the settings and
// the site's header, and its words are larger.
func TestE2EFailureOnTheFirstScreenAndTheProjector(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=paused-holder")
	b.size(ctx, 1280, 720)
	b.do(ctx, setSpeed(0), chromedp.Click(chromedp.ID("run")))
	b.waitVerdict(ctx, "stale write accepted")
	b.settle(ctx)
	if h := run(b, ctx, chromedp.Evaluate[float64](`document.getElementById('question').getBoundingClientRect().height`)); h > 30 {
		t.Errorf("after the run the question is %v px high, want one line", h)
	}
	if !run(b, ctx, chromedp.Evaluate[bool](storageOnScreen)) {
		t.Error("at 1280x720 after the run the storage lane is not on screen")
	}
	last := run(b, ctx, chromedp.Evaluate[string](`[...document.querySelector('#event-log tbody tr:last-child').cells].map(c => c.textContent).join(' · ')`))
	if got := run(b, ctx, chromedp.TextContent(chromedp.ID("now-caption"))); got != last {
		t.Errorf("the caption under the timeline says %q, want the log's last line %q", got, last)
	}
	b.shot(ctx, "", "first-screen-1280x720")
	// Back one event: the caption follows the playhead.
	b.do(ctx, chromedp.Focus(chromedp.ID("zoom-in")), chromedp.KeyEvent(kb.ArrowLeft))
	if got := run(b, ctx, chromedp.TextContent(chromedp.ID("now-caption"))); got == last || got == "" {
		t.Errorf("one event back the caption still says %q", got)
	}
	// A click on the folded question shows it whole.
	b.do(ctx, chromedp.Click(chromedp.ID("question")))
	if h := run(b, ctx, chromedp.Evaluate[float64](`document.getElementById('question').getBoundingClientRect().height`)); h <= 30 {
		t.Error("a click on the folded question did not unfold it")
	}

	font := `parseFloat(getComputedStyle(document.getElementById('now-caption')).fontSize)`
	before := run(b, ctx, chromedp.Evaluate[float64](font))
	b.do(ctx, chromedp.KeyEvent("v"))
	b.waitJS(ctx, `document.getElementById('projector').getAttribute('aria-pressed') === 'true'`, "V turning the projector view on")
	b.settle(ctx)
	if run(b, ctx, chromedp.Evaluate[bool](`!!document.querySelector('.settings').offsetParent || !!document.querySelector('header.site').offsetParent`)) {
		t.Error("the projector view still shows the settings or the site's header")
	}
	if after := run(b, ctx, chromedp.Evaluate[float64](font)); after < before*1.3 {
		t.Errorf("the projector's caption is %v px, the page's %v: want larger", after, before)
	}
	if !run(b, ctx, chromedp.Evaluate[bool](storageOnScreen)) {
		t.Error("in the projector view the storage lane is not on screen")
	}
	if run(b, ctx, chromedp.Evaluate[float64](`document.getElementById('now-caption').getBoundingClientRect().bottom`)) > 720 {
		t.Error("in the projector view the caption is below the screen")
	}
	if bad := run(b, ctx, chromedp.Evaluate[[]string](labelTrouble)); len(bad) > 0 {
		t.Errorf("in the projector view labels collide: %v", bad)
	}
	b.shot(ctx, "", "projector-1280x720")
	b.do(ctx, chromedp.Click(chromedp.ID("projector")))
	b.waitJS(ctx, `!!document.querySelector('.settings').offsetParent`, "the projector button bringing the settings back")
}

// TestE2EScreenshotsOfEveryPreset runs every preset and photographs it at
// a laptop's, a projector's and a phone's size, after the run and in the
// projector view: no page scrolls sideways, no label collides, and the
// run is headed (the pictures are for looking at, and for
// docs/playground.md).
func TestE2EScreenshotsOfEveryPreset(t *testing.T) {
	b := startBrowser(t)
	sizes := [][2]int{{1366, 900}, {1280, 720}, {390, 844}}
	sweep(t, b, engine.Presets(), func(p engine.Preset) string { return p.Name }, func(b *browser, i int, p engine.Preset) {
		t := b.t
		ctx := b.tab("/playground?preset=" + p.Name)
		b.do(ctx, setSpeed(0), chromedp.Click(chromedp.ID("run")))
		b.waitJS(ctx, `!!document.querySelector('[data-testid=verdict-heading]')`, p.Name+"'s verdict")
		for _, projector := range []bool{false, true} {
			if projector {
				b.size(ctx, 1366, 900)
				b.do(ctx, chromedp.KeyEvent("v"))
				b.waitJS(ctx, `document.body.classList.contains('projector')`, "the projector view")
			}
			for _, sz := range sizes {
				b.size(ctx, sz[0], sz[1])
				b.settle(ctx)
				if !projector {
					// The run's controls at the top, as after a Run on this screen.
					b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('.runbar').scrollIntoView({block: 'start'})`))
				}
				if bad := run(b, ctx, chromedp.Evaluate[[]string](labelTrouble)); len(bad) > 0 {
					t.Errorf("%s at %dx%d (projector %v): labels collide or run off: %v", p.Name, sz[0], sz[1], projector, bad)
				}
				view := "run"
				if projector {
					view = "projector"
				}
				b.shot(ctx, "", fmt.Sprintf("every-%02d-%s-%s-%dx%d", i+1, p.Name, view, sz[0], sz[1]))
			}
		}
		b.closeTab(ctx)
	})
}

// causalLabels are the timeline's words that say why (a grant ended early,
// a clock jumped, a server dropped a client, a violation).
const causalLabels = `[...document.querySelectorAll('#timeline text.label-strong, #timeline text.early-label, #timeline text.jump-label, #timeline text.violation-label')].map(t => t.textContent)`

// TestE2EPhonesKeepTheWhy: what the timeline says about why, at 1366 px,
// is still said at 390 px: drawn, or, where the picture has no room,
// listed under it with its time.
func TestE2EPhonesKeepTheWhy(t *testing.T) {
	b := startBrowser(t)
	for _, name := range []string{"async-failover", "restart-forgets", "redlock-clock-jump", "clock-jump"} {
		ctx := b.tab("/playground?preset=" + name)
		b.do(ctx, setSpeed(0), chromedp.Click(chromedp.ID("run")))
		b.waitJS(ctx, `!!document.querySelector('[data-testid=verdict-heading]')`, name+"'s verdict")
		b.settle(ctx)
		wide := run(b, ctx, chromedp.Evaluate[[]string](causalLabels))
		if len(wide) == 0 {
			t.Fatalf("%s: no causal label at 1366 px", name)
		}
		b.size(ctx, 390, 844)
		b.settle(ctx)
		said := strings.Join(run(b, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#timeline text, #tl-notes li')].map(t => t.textContent)`)), "\n")
		for _, w := range wide {
			if !strings.Contains(said, w) {
				t.Errorf("%s at 390 px: %q is neither drawn nor listed under the timeline", name, w)
			}
		}
		b.do(ctx, chromedp.ScrollIntoView(chromedp.ID("now-caption")))
		b.shot(ctx, "", "why-on-a-phone-"+name)
	}
}

// TestE2EHomeSaysWhereToStart: the home page's first screen says where to
// start (the first lesson, the first failure to break, its fix), and the
// lessons, in order, come before the seventeen scenario cards.
func TestE2EHomeSaysWhereToStart(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/")
	for _, sz := range [][2]int{{1366, 900}, {390, 844}} {
		b.size(ctx, sz[0], sz[1])
		b.settle(ctx)
		if !run(b, ctx, chromedp.Evaluate[bool](`(() => { const r = document.querySelector('[data-testid=start-lesson]').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`)) {
			t.Errorf("at %dx%d the first lesson's link under Start here is not on the first screen", sz[0], sz[1])
		}
		b.shot(ctx, "", fmt.Sprintf("home-start-here-%dx%d", sz[0], sz[1]))
	}
	if !run(b, ctx, chromedp.Evaluate[bool](`!!(document.querySelector('[data-testid=lessons]').compareDocumentPosition(document.querySelector('[data-testid=preset-cards]')) & Node.DOCUMENT_POSITION_FOLLOWING)`)) {
		t.Error("the lessons come after the scenario cards")
	}
	b.do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=start-preset]`)))
	b.do(ctx, chromedp.WaitVisible(chromedp.ID("preset")))
	if loc := run(b, ctx, chromedp.Evaluate[string](`location.pathname + location.search`)); loc != "/playground?preset=paused-holder" {
		t.Errorf("Start here's scenario opened %s", loc)
	}
}

// TestE2ECompareOpensOnScreenWithTheServersHeadings: Compare's result
// comes to the top of the window at 1366x900, and each run is headed by
// the server's heading, so lock-server-down's two runs say Unavailable,
// not SAFE.
func TestE2ECompareOpensOnScreenWithTheServersHeadings(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=lock-server-down")
	b.do(ctx, chromedp.KeyEvent("c"))
	b.waitJS(ctx, `!!document.getElementById('compare-run') && !document.getElementById('compare-view').hidden`, "Compare opening")
	b.do(ctx, chromedp.Click(chromedp.ID("compare-run")))
	b.waitJS(ctx, `!!document.querySelector('[data-testid=compare-b]')`, "both runs")
	b.settle(ctx)
	if top := run(b, ctx, chromedp.Evaluate[float64](`document.getElementById('compare-view').getBoundingClientRect().top`)); top < -1 || top > 100 {
		t.Errorf("the comparison's top is at %v px: not at the top of the window", top)
	}
	if a := run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=compare-a]"))); !strings.HasPrefix(a, "Unavailable for 36s") {
		t.Errorf("run A of lock-server-down is headed %q", a)
	}
	b.shot(ctx, "", "compare-on-screen-1366x900")
}

// TestE2EARestartedNodeSaysSo: restart-forgets crashes the lock server
// and brings it back; the lane says where it restarted.
func TestE2EARestartedNodeSaysSo(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=restart-forgets")
	b.do(ctx, setSpeed(0), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ctx, `!!document.querySelector('[data-testid=verdict-heading]')`, "the verdict")
	for _, w := range []int{1366, 390} {
		b.size(ctx, w, 900)
		b.settle(ctx)
		said := run(b, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#timeline text, #tl-notes li')].map(t => t.textContent).join('\n')`))
		if !strings.Contains(said, "↻ restarted") {
			t.Errorf("at %d px the restarted node does not say it restarted", w)
		}
	}
}

// TestE2EEveryRedlockLeaseIsLabelled: under Redlock no lease has a token,
// and a lease too short for its words inside still says its end beside it
// (client-2's in redlock-clock-jump had no label at all).
func TestE2EEveryRedlockLeaseIsLabelled(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=redlock-clock-jump")
	b.do(ctx, setSpeed(0), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ctx, `!!document.querySelector('[data-testid=verdict-heading]')`, "the verdict")
	b.settle(ctx)
	said := run(b, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#timeline text, #tl-notes li')].map(t => t.textContent).join('\n')`))
	if n := strings.Count(said, "no token · until"); n < 2 {
		t.Errorf("%d Redlock leases say when they end, want both clients':\n%s", n, said)
	}
}
