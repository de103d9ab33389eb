package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/web"
)

// liveBrowser serves cfg on a server of its own (the test needs to see
// its connections) to the browser of startBrowser.
func liveBrowser(t *testing.T, cfg web.Config) (*browser, *web.Server) {
	t.Helper()
	bb := startBrowser(t) // skips without PLAYGROUND_E2E=1 or a chromium
	srv, err := web.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		ts.Close()
	})
	return &browser{t: t, base: ts.URL, ctx: bb.ctx}, srv
}

// joinInBrowser joins the class in a browser of the learner's own and
// opens path there.
func joinInBrowser(b *browser, code, name, path string) context.Context {
	lc := b.isolatedTab("/class?code=" + code)
	b.do(lc,
		chromedp.SetValue(chromedp.ID("join-name"), name),
		chromedp.Click(chromedp.CSS("[data-testid=join-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")),
		chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.ID("main")))
	return lc
}

// apiMeReads counts the page's reads of /api/me (fetches are in its
// resource timing).
const apiMeReads = `performance.getEntriesByType('resource').filter(e => new URL(e.name).pathname === '/api/me').length`

// TestE2ELearnerStream: a learner on a lesson page follows the class over
// one stream. The server tells pages to poll once an hour, so what
// reaches the page within the test came by the stream: the teacher's
// push shows its banner, quiz mode hides "show me", the deadline is
// given, the page never read
// /api/me and was never reloaded, and the tab holds one stream.
func TestE2ELearnerStream(t *testing.T) {
	st := openSQLite(t)
	b, srv := liveBrowser(t, web.Config{Classroom: st, Class: web.ClassConfig{Live: web.LearnerLiveConfig{Poll: time.Hour}}})
	cat := catalog(t)
	first, second := cat.Lessons()[0], cat.Lessons()[1]
	c := createClass(t, b.base, "Week 6")
	lc := joinInBrowser(b, c.Code, "Ada", "/lessons/"+first.Slug)
	b.waitUntil(lc, `document.getElementById('class-banner').dataset.live === 'stream'`, "the page following the class by its stream")
	b.do(lc, chromedp.Evaluate[chromedp.Void](`window.stayed = true`))

	owner := teacher(t, b.base, c.TeacherKey)
	wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/push", `{"lesson":"`+second.Slug+`"}`), http.StatusOK, "push a lesson")
	b.waitUntil(lc, `!!document.querySelector('[data-testid=class-banner-link]')`, "the pushed lesson's banner")
	if href := run(b, lc, chromedp.Evaluate[string](`document.querySelector('[data-testid=class-banner-link]').getAttribute('href')`)); href != "/lessons/"+second.Slug {
		t.Errorf("the banner links to %q", href)
	}
	wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/settings", `{"show_me":false}`), http.StatusOK, "quiz mode")
	b.waitUntil(lc, `document.documentElement.hasAttribute('data-class-quiz')`, "quiz mode on the learner's page")
	wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/settings", `{"deadline":"2031-03-04T17:00:00Z"}`), http.StatusOK, "a deadline")
	b.waitUntil(lc, `document.querySelector('[data-testid=class-deadline]')?.dataset.at === '2031-03-04T17:00:00Z'`, "the deadline on the learner's page")
	if n := run(b, lc, chromedp.Evaluate[int](apiMeReads)); n != 0 {
		t.Errorf("the page read /api/me %d times beside its stream", n)
	}
	if !run(b, lc, chromedp.Evaluate[bool](`window.stayed === true && location.pathname === '/lessons/`+first.Slug+`'`)) {
		t.Error("the push moved the learner off their page")
	}
	waitConnections(t, srv, 1)
	b.roomShots(lc, "learner-live-banner", "[data-testid=class-banner]")
}

// TestE2ELearnerStreamReconnects: streams end at their age (one second
// here) and the browser opens the next by itself; a push made after one
// such turn still arrives by the stream, and the page never polled.
func TestE2ELearnerStreamReconnects(t *testing.T) {
	st := openSQLite(t)
	b, srv := liveBrowser(t, web.Config{Classroom: st, Class: web.ClassConfig{Live: web.LearnerLiveConfig{Poll: time.Hour, MaxAge: time.Second}}})
	c := createClass(t, b.base, "Week 6")
	lc := joinInBrowser(b, c.Code, "Ada", "/playground")
	b.waitUntil(lc, `document.getElementById('class-banner').dataset.live === 'stream'`, "the page following the class by its stream")
	// The stream ends at its age, then the browser reconnects.
	waitConnections(t, srv, 0)
	waitConnections(t, srv, 1)
	wantStatus(t, teacher(t, b.base, c.TeacherKey).postJSON("/api/classes/"+c.Code+"/push", `{"preset":"`+presetName(t)+`"}`), http.StatusOK, "push")
	b.waitUntil(lc, `!!document.querySelector('[data-testid=class-banner-link]')`, "the push after a reconnection")
	if n := run(b, lc, chromedp.Evaluate[int](apiMeReads)); n != 0 {
		t.Errorf("the page read /api/me %d times beside its stream", n)
	}
}

// TestE2ELearnerStreamRefusedPolls: with the learners' pool full the
// page's stream is refused, and the page polls /api/me instead; the push
// reaches it that way.
func TestE2ELearnerStreamRefusedPolls(t *testing.T) {
	st := openSQLite(t)
	b, _ := liveBrowser(t, web.Config{Classroom: st, Class: web.ClassConfig{Live: web.LearnerLiveConfig{MaxStreams: 1, Poll: 200 * time.Millisecond}}})
	c := createClass(t, b.base, "Full")
	other, _ := join(t, b.base, c.Code, "Bob")
	mustOpen(t, other).next(t, "Bob's stream, the only place")
	lc := joinInBrowser(b, c.Code, "Ada", "/playground")
	b.waitUntil(lc, `document.getElementById('class-banner').dataset.live === 'poll'`, "the page polling after its stream was refused")
	wantStatus(t, teacher(t, b.base, c.TeacherKey).postJSON("/api/classes/"+c.Code+"/push", `{"preset":"`+presetName(t)+`"}`), http.StatusOK, "push")
	b.waitUntil(lc, `!!document.querySelector('[data-testid=class-banner-link]')`, "the push by the poll")
	if n := run(b, lc, chromedp.Evaluate[int](apiMeReads)); n < 1 {
		t.Errorf("the banner came without a read of /api/me (%d)", n)
	}
}

// TestE2ELearnerPollsThenStreamsAgain: a page refused a stream polls,
// and once a place frees it goes back to one stream (and one only), by
// which the next push comes without another read of /api/me.
func TestE2ELearnerPollsThenStreamsAgain(t *testing.T) {
	st := openSQLite(t)
	// Polls every 200 ms: the page tries the stream again after 1.2 s,
	// then 2.4 s, 4.8 s, ...
	b, srv := liveBrowser(t, web.Config{Classroom: st, Class: web.ClassConfig{Live: web.LearnerLiveConfig{MaxStreams: 1, Poll: 200 * time.Millisecond}}})
	c := createClass(t, b.base, "Full, then not")
	other, _ := join(t, b.base, c.Code, "Bob")
	bob := mustOpen(t, other)
	bob.next(t, "Bob's stream, the only place")
	lc := joinInBrowser(b, c.Code, "Ada", "/playground")
	b.waitUntil(lc, `document.getElementById('class-banner').dataset.live === 'poll'`, "the page polling after its stream was refused")
	bob.res.Body.Close()
	bob.waitEnd(t, "Bob's stream, closed")
	b.waitUntil(lc, `document.getElementById('class-banner').dataset.live === 'stream'`, "the page back on a stream once a place is free")
	waitConnections(t, srv, 1)
	reads := run(b, lc, chromedp.Evaluate[int](apiMeReads))
	wantStatus(t, teacher(t, b.base, c.TeacherKey).postJSON("/api/classes/"+c.Code+"/push", `{"preset":"`+presetName(t)+`"}`), http.StatusOK, "push")
	b.waitUntil(lc, `!!document.querySelector('[data-testid=class-banner-link]')`, "the push by the stream")
	if n := run(b, lc, chromedp.Evaluate[int](apiMeReads)); n != reads {
		t.Errorf("the page read /api/me %d more times after it had its stream back", n-reads)
	}
	if n := srv.Connections(); n != 1 {
		t.Errorf("%d streams open for one tab, want 1", n)
	}
}

// TestE2ELearnerOwnPageLive: a learner who joined and waits on their own
// page (/class/me) sees the push there too, live. After a reload the
// page itself says what was pushed, and the banner does not say it again;
// a newer push replaces the page's line with the banner.
func TestE2ELearnerOwnPageLive(t *testing.T) {
	st := openSQLite(t)
	b, _ := liveBrowser(t, web.Config{Classroom: st, Class: web.ClassConfig{Live: web.LearnerLiveConfig{Poll: time.Hour}}})
	cat := catalog(t)
	c := createClass(t, b.base, "Week 6")
	owner := teacher(t, b.base, c.TeacherKey)
	lc := joinInBrowser(b, c.Code, "Ada", "/class/me")
	b.waitUntil(lc, `document.getElementById('class-banner').dataset.live === 'stream'`, "the learner's page following the class")
	first, second := cat.Lessons()[0], cat.Lessons()[1]
	wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/push", `{"lesson":"`+first.Slug+`"}`), http.StatusOK, "push")
	b.waitUntil(lc, `!!document.querySelector('[data-testid=class-banner-link]')`, "the push on the learner's own page")

	b.do(lc, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("[data-testid=pushed-scenario-link]")))
	b.waitUntil(lc, `document.getElementById('class-banner').dataset.live === 'stream'`, "the reloaded page following the class")
	if run(b, lc, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid=class-banner-link]') || document.querySelector('[data-testid=pushed-scenario]').hidden`)) {
		t.Error("after a reload the push is said twice, or not by the page")
	}
	wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/push", `{"lesson":"`+second.Slug+`"}`), http.StatusOK, "a newer push")
	b.waitUntil(lc, `document.querySelector('[data-testid=class-banner-link]')?.getAttribute('href') === '/lessons/`+second.Slug+`'`, "the newer push in the banner")
	if !run(b, lc, chromedp.Evaluate[bool](`document.querySelector('[data-testid=pushed-scenario]').hidden`)) {
		t.Error("the page's out-of-date line about the first push is still shown")
	}
	// Opening one lesson marks the others on the page, live.
	wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/settings", `{"open_lessons":["`+first.Slug+`"]}`), http.StatusOK, "one lesson open")
	marked := `[...document.querySelectorAll('[data-testid=lesson-not-open]')].filter(e => !e.hidden).map(e => e.closest('li').dataset.lesson)`
	b.waitUntil(lc, fmt.Sprintf(`%s.length === %d && !%s.includes(%q)`, marked, len(cat.Lessons())-1, marked, first.Slug), "the other lessons marked not open yet")
	b.shots(lc, "learner-own-page-live", "[data-testid=class-banner]")
	wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/settings", `{"open_lessons":[]}`), http.StatusOK, "all open")
	b.waitUntil(lc, marked+`.length === 0`, "every lesson open again")
}
