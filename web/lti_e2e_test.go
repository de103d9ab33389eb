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

// TestE2ELTIPickerRosterAndJoin: a teacher picks content in a real
// browser and the page posts the signed answer to the platform (which
// the page's policy must allow); the roster page and the join form's
// identifiers, at a desk and on a phone.
func TestE2ELTIPickerRosterAndJoin(t *testing.T) {
	var b *browser
	e := startLTIWith(t, "sqlite", func(cfg web.Config) string {
		b = startBrowserWith(t, cfg)
		return b.base
	})

	grace := newPerson(t, e.url)
	state, nonce := e.login(grace)
	a := e.launch(grace, e.plat.Sign(e.plat.DeepLinkingClaims(ltitest.Teacher, nonce)), state)
	wantStatus(t, a, http.StatusSeeOther, "deep linking launch")
	ctx := b.tab(a.header.Get("Location"))
	b.shots(ctx, "lti-picker")
	b.do(ctx,
		chromedp.Click(chromedp.CSS(`input[value="exercise:outlive-lease"]`)),
		chromedp.Click(chromedp.CSS(`input[value="lesson:leases"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=lti-pick-submit]`)),
	)
	// The answer page sends itself to the platform, which checks it (a
	// browser event, so waited for with a deadline).
	for deadline := time.Now().Add(20 * time.Second); len(e.plat.DeepLinkAnswers()) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the browser did not post the deep linking answer to the platform")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(e.plat.DeepLinkAnswers()); n != 1 {
		t.Fatalf("platform got %d answers", n)
	}

	// The roster, with the teacher's session from an instructor launch.
	ada := newPerson(t, e.url)
	e.launchAs(ada, ltitest.Learner, "link-1", "", "")
	tl := newPerson(t, e.url)
	a = e.launchAs(tl, ltitest.Teacher, "link-1", "", "")
	code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")
	var key string
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == web.TeacherCookie {
			key = c.Value
		}
	}
	e.plat.SetMembers(ltitest.Learner, ltitest.Teacher,
		ltitest.User{Sub: "u-3", Name: "Barbara Liskov", Email: "barbara.liskov@uni.example.edu", StudentID: "s1939"},
		ltitest.User{Sub: "u-4", Name: "Edsger Dijkstra", Email: "edsger@uni.example.edu", StudentID: "s1930"})
	rctx := b.tab("/class/teacher#key=" + key)
	b.do(rctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=roster-link]`)),
		chromedp.Navigate(b.base+"/class/"+code+"/roster"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lti-roster]`)))
	b.shots(rctx, "lti-roster")

	jctx := b.tab("/class")
	b.do(jctx, chromedp.Click(chromedp.CSS(`details.join-ids summary`)), chromedp.WaitVisible(chromedp.CSS(`#join-email`)))
	b.shots(jctx, "join-ids", "[data-testid=join-form]")
}
