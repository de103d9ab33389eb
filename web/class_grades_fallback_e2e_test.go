package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

// fastMinute, run in a page before its scripts, has the grades panel's
// minute-long fallback (grades.js: setInterval of 60000 ms) come every
// tenth of a second, counting its turns in window.fallbackTicks, and
// counts the page's reads of the grades (GET .../lti/grades) in
// window.gradesReads.
const fastMinute = `(() => {
	const every = window.setInterval;
	window.fallbackTicks = 0;
	window.setInterval = function (f, ms, ...rest) {
		if (ms !== 60000) return every.call(window, f, ms, ...rest);
		return every.call(window, () => { window.fallbackTicks++; f(); }, 100);
	};
	window.gradesReads = 0;
	const get = window.fetch;
	window.fetch = function (u, o) {
		if (String(u).includes('/lti/grades') && !(o && o.method && o.method !== 'GET')) window.gradesReads++;
		return get.apply(this, arguments);
	};
})()`

// tabWith opens a tab on path, as tab does, with script run in the page
// before its own.
func (b *browser) tabWith(path, script string) context.Context {
	b.t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	b.t.Cleanup(cancel)
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			b.mu.Lock()
			b.errors = append(b.errors, fmt.Sprintf("%s:%d: %s", e.ExceptionDetails.URL, e.ExceptionDetails.LineNumber+1, e.ExceptionDetails.Text))
			b.mu.Unlock()
		}
	}); err != nil {
		b.t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
		b.t.Fatal(err)
	}
	b.size(ctx, 1366, 900)
	b.do(ctx, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.ID("main")))
	b.t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, e := range b.errors {
			b.t.Errorf("uncaught exception in the page: %s", e)
		}
		b.errors = nil
	})
	return ctx
}

// TestE2EGradesCardReadWhileTheStreamIsDown: a dashboard whose stream is
// refused (the teacher key's one stream is taken elsewhere) still shows
// the grades as they go: the card reads them once a minute while the
// stream is down, and says the score was sent once the queue sent it.
func TestE2EGradesCardReadWhileTheStreamIsDown(t *testing.T) {
	e, b := startLTIBrowser(t, func(cfg *web.Config) { cfg.Class.StreamsPerKey = 1 })
	item := e.plat.LineItem("7")
	ada := newPerson(t, e.url)
	e.launchAs(ada, ltitest.Learner, "link-ex", "exercise:outlive-lease", item)
	checkRight(t, ada)
	e.plat.FailScores(1)
	e.deliver() // the first try fails: it waits
	grace := newPerson(t, e.url)
	a := e.launchAs(grace, ltitest.Teacher, "link-ex", "exercise:outlive-lease", item)
	key := grace.cookie(web.TeacherCookie)
	code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")
	openGradesStream(t, e.url, code, key) // the key's one stream, taken

	tab := b.tabWith("/class/teacher#key="+key, fastMinute)
	b.waitUntil(tab, `document.querySelector('[data-testid=dashboard]').dataset.live === 'lost'`, "the dashboard's stream refused")
	b.waitUntil(tab, `document.querySelector('[data-testid=grades-out]').dataset.state === 'waiting'`, "the card saying Ada's score waits")
	e.clock.Advance(time.Minute)
	e.deliver()
	b.waitUntil(tab, `document.querySelector('[data-testid=grades-sent]').textContent === '1 score sent' && document.querySelector('[data-testid=grades-out]').dataset.state === 'sent'`,
		"the card, read while the stream is down, saying the score was sent")
	if n := run(b, tab, chromedp.Evaluate[int](`window.gradesReads`)); n < 1 {
		t.Errorf("the page read the grades %d times with its stream down", n)
	}
}
