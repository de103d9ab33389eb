package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

// TestE2EGradesCardLiveByKeyboard: a teacher watching the dashboard's
// "Grades to <course>" card after a day of a failing platform works it
// with the keyboard alone: Tab reaches the link at the top that says a
// score was given up, Enter on it leads to the card, Tab to "Send
// again" and on to the folded error, which Enter and Space open and
// close; back on Send again, Enter sends again and the status line says
// so, the focus staying in the card as the button goes. Once the queue
// has sent the score, the card says so at once, from the dashboard's
// stream: no reload, and no read of the grades by the page, whose
// once-a-minute read is for a stream that is down. Screenshots
// of the dashboard with the card at 1366x900, 1280x720 and 390x844, its
// point and Send again in the first screen at each.
func TestE2EGradesCardLiveByKeyboard(t *testing.T) {
	e, b := startLTIBrowser(t, nil)
	item := e.plat.LineItem("7")
	learner := func(u ltitest.User) {
		p := newPerson(t, e.url)
		e.launchAs(p, u, "link-ex", "exercise:outlive-lease", item)
		checkRight(t, p)
	}
	learner(ltitest.User{Sub: "user-cy", Name: "Cy Young"})
	e.deliver() // Cy's score is sent
	learner(ltitest.Learner)
	e.plat.FailScores(1000)
	for range 24 { // a day of the queue's passes: Ada's is given up
		e.deliver()
		e.clock.Advance(time.Hour)
	}

	grace := newPerson(t, e.url)
	e.launchAs(grace, ltitest.Teacher, "link-ex", "exercise:outlive-lease", item)
	tab := b.tabWith("/class/teacher#key="+grace.cookie(web.TeacherCookie), fastMinute)
	b.size(tab, 1366, 900)
	b.do(tab, chromedp.WaitVisible(chromedp.CSS(`[data-testid=grades-out]`)))
	b.waitUntil(tab, `document.querySelector('[data-testid=dashboard]').dataset.live === 'open'`, "the dashboard's stream open")
	// Until the stream first opened, the fallback (its minute made a
	// tenth of a second) may have read the grades: that is its job. From
	// here on it must not.
	b.do(tab, chromedp.Evaluate[chromedp.Void](`window.gradesReads = 0`))

	for _, sz := range [][2]int{{1366, 900}, {1280, 720}, {390, 844}} {
		b.size(tab, sz[0], sz[1])
		b.settle(tab)
		b.do(tab, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		b.settle(tab)
		b.shot(tab, "", fmt.Sprintf("grades-live-top-%dx%d", sz[0], sz[1]))
		// The card's point, its given-up line and Send again, is in the
		// first screen, above the class's tools, on a phone too.
		if r := run(b, tab, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('[data-testid=grades-retry]').getBoundingClientRect(); return [r.left, r.right, r.bottom, innerWidth, innerHeight]; })()`)); r[0] < 0 || r[1] > r[3] || r[2] > r[4] {
			t.Errorf("at %dx%d Send again is at %v (left, right, bottom): below the fold or off the screen", sz[0], sz[1], r[:3])
		}
		b.do(tab, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=grades-out]').scrollIntoView()`))
		b.settle(tab)
		b.shot(tab, "", fmt.Sprintf("grades-live-card-%dx%d", sz[0], sz[1]))
	}
	b.size(tab, 1366, 900)
	b.settle(tab)
	b.do(tab, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.activeElement.blur()`))

	active := func() string {
		return run(b, tab, chromedp.Evaluate[string](`(() => { const a = document.activeElement; return a ? (a.id || a.tagName + (a.closest('[id]') ? ' in #' + a.closest('[id]').id : '')) : ''; })()`))
	}
	key := func(k string, opts ...chromedp.KeyOption) { b.do(tab, chromedp.KeyEvent(k, opts...)) }
	tabTo := func(id string) {
		t.Helper()
		for range 80 {
			if active() == id {
				return
			}
			key(kb.Tab)
		}
		t.Fatalf("Tab never reached #%s", id)
	}
	tabTo("jump-to-grades")
	if got := run(b, tab, chromedp.TextContent(chromedp.ID("jump-to-grades"))); got != "Grades: 1 given up" {
		t.Errorf("the link at the top reads %q; want it to say 1 given up", got)
	}
	key(kb.Enter)
	b.waitUntil(tab, `location.hash === '#grades-out'`, "Enter on the link leading to the card")
	key(kb.Tab)
	if got := active(); got != "grades-retry" {
		t.Fatalf("Tab after the link to the card focuses %q; want Send again", got)
	}
	key(kb.Tab)
	if got := active(); got != "SUMMARY in #grades-out" {
		t.Fatalf("Tab after Send again focuses %q; want the folded error", got)
	}
	open := `document.querySelector('[data-testid=grades-error]').open`
	key(kb.Enter)
	b.waitUntil(tab, open, "Enter opening the folded error")
	if got := run(b, tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=grades-error-text]').innerText`)); !strings.Contains(got, "503") {
		t.Errorf("the error, opened, reads %q; want the platform's 503", got)
	}
	key(" ")
	b.waitUntil(tab, "!"+open, "Space folding the error")
	key(" ")
	b.waitUntil(tab, open, "Space opening the error again")
	b.shots(tab, "grades-live-error-open", "[data-testid=grades-out]")
	key(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift))
	if got := active(); got != "grades-retry" {
		t.Fatalf("Shift+Tab from the error focuses %q; want Send again", got)
	}

	e.plat.FailScores(0)
	key(kb.Enter)
	b.waitUntil(tab, `document.querySelector('[data-testid=grades-state]').textContent === '1 score to be sent again now.'`, "the status line saying Send again was heard")
	if got := active(); got != "grades-out-heading" {
		t.Errorf("with Send again gone the focus is on %q; want the card's heading, so Tab goes on in the card", got)
	}
	e.deliver() // the queue sends Ada's score
	b.waitUntil(tab, `document.querySelector('[data-testid=grades-sent]').textContent === '2 scores sent' && document.querySelector('[data-testid=grades-out]').dataset.state === 'sent'`,
		"the card saying the score was sent")
	if got := run(b, tab, chromedp.TextContent(chromedp.ID("grades-state"))); got != "2 scores sent: nothing waits and nothing is given up." {
		t.Errorf("the status line after the score was sent reads %q", got)
	}
	if got := run(b, tab, chromedp.TextContent(chromedp.ID("jump-to-grades"))); got != "Grades sent" {
		t.Errorf("the link at the top reads %q once the score was sent", got)
	}
	// Three of the fallback's minutes (made short) pass with the stream
	// open: it reads nothing.
	b.waitUntil(tab, `window.fallbackTicks >= 3`, "three turns of the fallback's minute")
	if n := run(b, tab, chromedp.Evaluate[int](`window.gradesReads`)); n != 0 {
		t.Errorf("the page read the grades %d times; want the card drawn from the dashboard's stream alone", n)
	}
	b.shots(tab, "grades-live-sent", "[data-testid=grades-out]")
	if got := e.plat.Scores(); len(got) != 2 {
		t.Errorf("the course got %d scores; want Cy's and Ada's", len(got))
	}
}
