package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

// TestE2ELTIGradesPanel: the dashboard of a class of a course shows, in a
// real browser, one score sent, one waiting and one given up after a day
// of a failing platform, with why in plain words, at a desk and on a
// phone; "Send again" re-arms the one given up and, once the queue has
// sent them, the panel and its status line say every score was sent, and
// it offers nothing more.
func TestE2ELTIGradesPanel(t *testing.T) {
	e, b := startLTIBrowser(t, nil)
	item := e.plat.LineItem("7")
	learner := func(u ltitest.User) *person {
		p := newPerson(t, e.url)
		state, nonce := e.login(p)
		a := e.launch(p, e.plat.Sign(e.plat.ResourceLinkClaims(u, nonce, "link-ex", "exercise:outlive-lease", item)), state)
		wantStatus(t, a, http.StatusSeeOther, "launch as "+u.Name)
		carryCookies(p, a)
		return p
	}
	cy := learner(ltitest.User{Sub: "user-cy", Name: "Cy Young"})
	checkRight(t, cy)
	e.deliver() // Cy's score is sent

	ada := learner(ltitest.Learner)
	checkRight(t, ada)
	e.plat.FailScores(1000)
	for range 24 { // a day of the queue's passes: Ada's is given up
		e.deliver()
		e.clock.Advance(time.Hour)
	}
	bo := learner(ltitest.User{Sub: "user-bo", Name: "Bo Diddley"})
	checkRight(t, bo)
	e.deliver() // Bo's first try fails: it waits for the next

	grace := newPerson(t, e.url)
	a := e.launchAs(grace, ltitest.Teacher, "link-ex", "exercise:outlive-lease", item)
	var key string
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == web.TeacherCookie {
			key = c.Value
		}
	}
	tab := b.tab("/class/teacher#key=" + key)
	b.do(tab, chromedp.WaitVisible(chromedp.CSS(`[data-testid=grades-out]`)))
	panel := run(b, tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=grades-out]').innerText`))
	for _, want := range []string{"Grades to Distributed Systems 101", "1 score sent", "1 score waiting, next try in under a minute",
		"Last try: the course's gradebook was not working (it answered 503 Service Unavailable).",
		"1 score given up after the last try", "Send again"} {
		if !strings.Contains(panel, want) {
			t.Errorf("the panel reads %q; want %q in it", panel, want)
		}
	}
	b.shots(tab, "lti-grades-given-up", "[data-testid=grades-out]")
	// On a phone the panel's point is in view with the page at its top:
	// the given-up line and its button are not pushed below the fold.
	b.size(tab, 390, 844)
	b.settle(tab)
	b.do(tab, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	b.shot(tab, "", "lti-grades-top-390x844")
	if got := run(b, tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=jump-to-grades]').textContent`)); got != "Grades: 1 given up" {
		t.Errorf("the dashboard's links at the top read %q for the grades; want it to say 1 given up", got)
	}
	if r := run(b, tab, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('[data-testid=grades-retry]').getBoundingClientRect(); return [r.left, r.right, r.bottom, innerWidth, innerHeight]; })()`)); r[0] < 0 || r[1] > r[3] || r[2] > r[4]*2 {
		t.Errorf("on a phone Send again is at %v (left, right, bottom; window %v x %v): off the screen or two screens down", r[:3], r[3], r[4])
	}

	e.plat.FailScores(0)
	b.do(tab, chromedp.Click(chromedp.CSS(`[data-testid=grades-retry]`)))
	b.waitJS(tab, `document.querySelector('[data-testid=grades-state]').textContent === '1 score to be sent again now.'`, "Send again answered")
	e.clock.Advance(time.Minute) // Bo's next try is due too
	e.deliver()
	// The dashboard's stream redraws the panel as the queue sends them.
	b.waitJS(tab, `document.querySelector('[data-testid=grades-sent]').textContent === '3 scores sent'`, "the panel saying every score was sent")
	b.waitJS(tab, `document.querySelector('[data-testid=grades-retry]').hidden && document.querySelector('[data-testid=grades-given-up]').hidden && document.querySelector('[data-testid=grades-waiting]').hidden`,
		"the given-up and waiting lines and Send again gone")
	b.waitJS(tab, `document.querySelector('[data-testid=jump-to-grades]').textContent === 'Grades sent'`, "the link at the top saying the grades were sent")
	b.waitJS(tab, `document.querySelector('[data-testid=grades-state]').textContent === '3 scores sent: nothing waits and nothing is given up.'`,
		"the status line saying how Send again went")
	b.shots(tab, "lti-grades-sent", "[data-testid=grades-out]")
	if got := e.plat.Scores(); len(got) != 3 {
		t.Errorf("the course got %d scores; want Cy's, Ada's and Bo's", len(got))
	}
}
