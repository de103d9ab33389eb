package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/lessons"
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
	// An open answer is a graded link too, its score the teacher's.
	byTeacher := run(b, ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid=lti-choice-by-teacher]'), e => e.closest('label').querySelector('input').value).join(' ')`))
	var open []string
	for _, ex := range catalog(t).Exercises() {
		if ex.Kind == lessons.KindText {
			open = append(open, "exercise:"+ex.ID)
		}
	}
	if want := strings.Join(open, " "); len(open) == 0 || byTeacher != want {
		t.Errorf("choices marked as scored by the teacher: %q, want the open answers %q", byTeacher, want)
	}
	b.shots(ctx, "lti-picker-open-answer", "[data-testid=lti-choice-by-teacher]")
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
	b.do(rctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=roster-link]`)))
	// A new join code, then the roster link: it follows the code.
	b.waitJS(rctx, `document.getElementById('live-status').textContent.startsWith('Live')`, "the dashboard going live")
	b.do(rctx, chromedp.Click(chromedp.ID("rotate-code")))
	b.waitJS(rctx, fmt.Sprintf(`document.querySelector('[data-testid=dash-code]').textContent !== %q`, code), "the new join code")
	b.do(rctx, chromedp.Click(chromedp.CSS(`[data-testid=roster-link]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lti-roster]`)))
	b.shots(rctx, "lti-roster")

	jctx := b.tab("/class")
	b.do(jctx, chromedp.Click(chromedp.CSS(`details.join-ids summary`)), chromedp.WaitVisible(chromedp.CSS(`#join-email`)))
	b.shots(jctx, "join-ids", "[data-testid=join-form]")
}

// TestE2ELTILaunchInPlatformFrame: a course page of another site frames
// the tool; the login, the platform's auto-posted launch and the landing
// page all happen in the iframe, whose third-party session cookie
// (SameSite=None, Partitioned) keeps the learner signed in, and the
// policy lets that site, and only it, frame the tool.
func TestE2ELTILaunchInPlatformFrame(t *testing.T) {
	var b *browser
	e := startLTIWith(t, "sqlite", func(cfg web.Config) string {
		b = startBrowserWith(t, cfg)
		return b.base
	})
	ctx := context.Background()
	// The browser reaches the platform as localhost and the tool as
	// 127.0.0.1: two sites, so the tool is a third party in the frame.
	course := strings.Replace(e.plat.Server.URL, "127.0.0.1", "localhost", 1)
	ps, err := e.lst.LTIPlatforms(ctx)
	if err != nil || len(ps) != 1 {
		t.Fatal(ps, err)
	}
	reg := ps[0]
	if err := e.lst.RemoveLTIPlatform(ctx, reg.ID); err != nil {
		t.Fatal(err)
	}
	reg.FrameOrigins = []string{course}
	if _, err := e.lst.AddLTIPlatform(ctx, reg); err != nil {
		t.Fatal(err)
	}
	e.tool.ForgetFrames()
	e.plat.SetLaunch(ltitest.Launch{User: ltitest.Learner, Link: "link-1"})

	login := e.url + "/lti/login?" + url.Values{"iss": {e.plat.Issuer()}, "login_hint": {"hint"},
		"target_link_uri": {e.url + "/class/me"}, "client_id": {e.plat.ClientID}}.Encode()
	tctx := b.tab("/")
	b.do(tctx, chromedp.Navigate(course+"/course?login="+url.QueryEscape(login)))
	// A cross-site iframe is a target of its own (site isolation): read
	// what it shows. Framing refused by the policy, or a session cookie
	// not kept, would show an error page or the join form.
	frames := newFrames(t, tctx)
	frameText := func() string {
		return frames.eval(`location.href + " " + (document.body ? document.body.innerText : "")`)
	}
	var got string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got = frameText(); strings.Contains(got, "You are Ada Lovelace") {
			break
		}
	}
	if !strings.HasPrefix(got, e.url+"/class/me ") || !strings.Contains(got, "You are Ada Lovelace") {
		b.screenshot(tctx, "lti-framed-launch-failed")
		t.Fatalf("the frame shows %.300q, want the learner's page at /class/me", got)
	}
	if _, learners := e.counts(); learners != 1 {
		t.Errorf("%d learners after the framed launch, want 1", learners)
	}
	b.settle(tctx)
	b.screenshot(tctx, "lti-framed-launch")
}

// TestE2ELTIDynamicRegistration: a platform's administrator page frames
// the tool's registration URL (another site, as in production); the
// administrator confirms in the frame, the tool registers, and its page
// tells the platform to close the window, which only works if the page's
// policy lets that platform frame it and its script runs. The page on
// its own, at a desk and on a phone, before and after.
func TestE2ELTIDynamicRegistration(t *testing.T) {
	var b *browser
	e := startLTIWith(t, "sqlite", func(cfg web.Config) string {
		b = startBrowserWith(t, cfg)
		return b.base
	})
	plat := ltitest.New(t, e.clock.Now)
	key, err := e.tool.RegistrationKey(context.Background(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	register := e.url + "/lti/register?key=" + url.QueryEscape(key)

	// The platform's administrator page, reached as localhost: the tool,
	// at 127.0.0.1, is a third party in its frame.
	admin := strings.Replace(plat.Server.URL, "127.0.0.1", "localhost", 1) + "/admin/register-tool?tool=" + url.QueryEscape(register)
	tctx := b.tab("/")
	b.do(tctx, chromedp.Navigate(admin))
	frames := newFrames(t, tctx)
	clicked := false
	for deadline := time.Now().Add(20 * time.Second); !clicked && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		clicked = frames.eval(`(() => { const b = document.querySelector("[data-testid=lti-register-submit]"); if (!b) return ""; b.click(); return "clicked"; })()`) == "clicked"
	}
	if !clicked {
		b.screenshot(tctx, "lti-register-framed-failed")
		t.Fatal("the registration page never showed in the platform's frame")
	}
	for deadline := time.Now().Add(20 * time.Second); plat.Closed() == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.screenshot(tctx, "lti-register-framed-failed")
			t.Fatalf("the platform got no close message (%d registrations)", len(plat.Registrations()))
		}
	}
	if n := len(plat.Registrations()); n != 1 {
		t.Fatalf("%d registrations reached the platform, want 1", n)
	}
	ps, err := e.lst.LTIPlatforms(context.Background())
	if err != nil || len(ps) != 2 || ps[1].ClientID != "dynamic-client-1" {
		t.Fatalf("recorded platforms: %+v %v", ps, err)
	}

	// The pages on their own, as an administrator sees them.
	own := register + "&" + url.Values{"openid_configuration": {plat.ConfigURL()}, "registration_token": {ltitest.RegistrationToken}}.Encode()
	pctx := b.tab("/")
	b.do(pctx, chromedp.Navigate(own), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lti-register]`)))
	b.shots(pctx, "lti-register")
	b.do(pctx, chromedp.Click(chromedp.CSS(`[data-testid=lti-register-submit]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lti-registered]`)))
	b.shots(pctx, "lti-registered")
}

// frames reads the cross-site iframes of a tab, each a target of its own
// (site isolation). Each is attached once: cancelling an attached context
// would close the frame, so the attachments end with the browser.
type frames struct {
	t        *testing.T
	tab      context.Context
	attached map[target.ID]context.Context
}

func newFrames(t *testing.T, tab context.Context) *frames {
	return &frames{t: t, tab: tab, attached: map[target.ID]context.Context{}}
}

// eval evaluates js, an expression giving a string, in the tab's
// iframes, and returns the first answer, "" if none answers within 5 s.
func (f *frames) eval(js string) string {
	ts, err := chromedp.Targets(f.tab)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, ti := range ts {
		if ti.Type != "iframe" {
			continue
		}
		fctx, ok := f.attached[ti.TargetID]
		if !ok {
			fctx, _ = chromedp.NewContext(f.tab, chromedp.WithTargetID(ti.TargetID))
			f.attached[ti.TargetID] = fctx
		}
		ectx, cancel := context.WithTimeout(fctx, 5*time.Second)
		got, err := chromedp.Run(ectx, chromedp.Evaluate[string](js))
		cancel()
		if err == nil {
			return got
		}
	}
	return ""
}
