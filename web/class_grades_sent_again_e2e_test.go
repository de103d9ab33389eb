package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

// noMinuteHeldShort, run in a page before its scripts, has the grades
// card's once-a-minute read (grades.js: setInterval of 60000 ms) never
// come, and holds each of the page's 3-second timeouts in
// window.heldShort for the test to run when it chooses, rather than
// waiting for them.
const noMinuteHeldShort = `(() => {
	const every = window.setInterval, after = window.setTimeout;
	window.setInterval = function (f, ms, ...rest) {
		if (ms === 60000) return 0;
		return every.call(window, f, ms, ...rest);
	};
	window.heldShort = [];
	window.setTimeout = function (f, ms, ...rest) {
		if (ms !== 3000) return after.call(window, f, ms, ...rest);
		window.heldShort.push(() => f(...rest));
		return 0;
	};
})()`

// TestE2EGradesCardSaysHowSendAgainWentWithTheStreamDown: with the
// dashboard's stream down (the teacher key's one stream taken
// elsewhere), Send again's outcome shows shortly after, as the card
// reads the grades once a few seconds on, not at its next
// once-a-minute read.
func TestE2EGradesCardSaysHowSendAgainWentWithTheStreamDown(t *testing.T) {
	e, b := startLTIBrowser(t, func(cfg *web.Config) { cfg.Class.StreamsPerKey = 1 })
	item := e.plat.LineItem("7")
	ada := newPerson(t, e.url)
	e.launchAs(ada, ltitest.Learner, "link-ex", "exercise:outlive-lease", item)
	checkRight(t, ada)
	e.plat.FailScores(1000)
	for range 24 { // a day of the queue's passes: Ada's is given up
		e.deliver()
		e.clock.Advance(time.Hour)
	}
	grace := newPerson(t, e.url)
	a := e.launchAs(grace, ltitest.Teacher, "link-ex", "exercise:outlive-lease", item)
	key := grace.cookie(web.TeacherCookie)
	code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")
	openGradesStream(t, e.url, code, key) // the key's one stream, taken

	tab := b.tabWith("/class/teacher#key="+key, noMinuteHeldShort)
	b.waitUntil(tab, `document.querySelector('[data-testid=dashboard]').dataset.live === 'lost'`, "the dashboard's stream refused")
	b.waitUntil(tab, `document.querySelector('[data-testid=grades-out]').dataset.state === 'given-up'`, "the card saying Ada's score was given up")
	e.plat.FailScores(0)
	b.do(tab, chromedp.Click(chromedp.CSS("[data-testid=grades-retry]")))
	b.waitUntil(tab, `document.querySelector('[data-testid=grades-state]').textContent === '1 score to be sent again now.'`, "the status line saying Send again was heard")
	e.deliver() // the queue sends Ada's score at once

	b.waitUntil(tab, `window.heldShort.length === 1`, "the card's read a few seconds after Send again")
	b.do(tab, chromedp.Evaluate[chromedp.Void](`window.heldShort.shift()()`))
	b.waitUntil(tab, `document.querySelector('[data-testid=grades-out]').dataset.state === 'sent'`, "the card saying the score was sent")
	if got := run(b, tab, chromedp.TextContent(chromedp.ID("grades-state"))); got != "1 score sent: nothing waits and nothing is given up." {
		t.Errorf("the status line after the score was sent reads %q", got)
	}
}
