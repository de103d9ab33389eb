package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/lti"
	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

// startFlakyGrades is startLTIBrowser, with tweak (nil: none), on a tool
// whose reads of the grades fail while the flakyGrades returned says so.
func startFlakyGrades(t *testing.T, tweak func(*web.Config)) (*ltiEnv, *browser, *flakyGrades) {
	t.Helper()
	flaky := &flakyGrades{}
	e, b := startLTIBrowser(t, func(cfg *web.Config) {
		flaky.LTIStore = cfg.LTI.Store()
		cfg.LTI = lti.New(lti.Config{Store: flaky, Now: cfg.Class.Clock, Lessons: catalog(t)})
		t.Cleanup(cfg.LTI.Close)
		if tweak != nil {
			tweak(cfg)
		}
	})
	return e, b, flaky
}

// TestE2EGradesCardSaysAFailedRead: with the dashboard's stream open, a
// read of the class's grades that fails (the database gone a while)
// keeps the card as it was but says so on its status line, for the
// teacher and a screen reader, rather than leaving a card that may be
// out of date with no sign; the next good read draws the card and clears
// the line. Screenshots of the card with the line at 1366x900 and
// 390x844.
func TestE2EGradesCardSaysAFailedRead(t *testing.T) {
	e, b, flaky := startFlakyGrades(t, nil)
	item := e.plat.LineItem("7")
	learner := func(u ltitest.User) {
		p := newPerson(t, e.url)
		e.launchAs(p, u, "link-ex", "exercise:outlive-lease", item)
		checkRight(t, p)
	}
	learner(ltitest.Learner) // Ada's score waits
	grace := newPerson(t, e.url)
	e.launchAs(grace, ltitest.Teacher, "link-ex", "exercise:outlive-lease", item)
	tab := b.tabWith("/class/teacher#key="+grace.cookie(web.TeacherCookie), fastMinute)
	b.waitUntil(tab, `document.querySelector('[data-testid=dashboard]').dataset.live === 'open'`, "the dashboard's stream open")
	b.waitUntil(tab, `document.querySelector('[data-testid=grades-out]').dataset.state === 'waiting'`, "the card saying Ada's score waits")

	flaky.fail.Store(true)
	e.deliver() // Ada's score is sent; the card's read of it fails
	const line = `document.querySelector('[data-testid=grades-state]')`
	b.waitUntil(tab, line+`.textContent === 'Could not read the grades; trying again in 30 s.'`, "the status line saying the grades could not be read")
	if got := run(b, tab, chromedp.Evaluate[[]string](`[`+line+`.getAttribute('role'), document.querySelector('[data-testid=grades-out]').dataset.state]`)); got[0] != "status" || got[1] != "waiting" {
		t.Errorf("the status line's role is %q and the card's state %q; want a status line on the card as it was", got[0], got[1])
	}
	b.shots(tab, "grades-unread", "[data-testid=grades-out]")

	flaky.fail.Store(false)
	learner(ltitest.User{Sub: "user-cy", Name: "Cy Young"}) // Cy's score is queued: the card is read again
	b.waitUntil(tab, `document.querySelector('[data-testid=grades-sent]').textContent === '1 score sent' && document.querySelector('[data-testid=grades-waiting-text]').textContent.startsWith('1 score waiting')`,
		"the card, read again, saying Ada's score was sent and Cy's waits")
	if got := run(b, tab, chromedp.TextContent(chromedp.ID("grades-state"))); got != "" {
		t.Errorf("after a good read the status line still reads %q", got)
	}
}
