package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/leaselab/playground/web"
)

// TestE2EContinueInAnotherBrowser: in a real browser, Ada joins, presses
// "Get a code" on her class page and sees the code; a second browser opens
// the code's link, presses "Continue here", and is Ada on her class page.
// The first is then signed out. Both forms are driven from the keyboard
// (focus and Enter), as a learner without a mouse would.
func TestE2EContinueInAnotherBrowser(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st}) // skips without PLAYGROUND_E2E=1 or a chromium
	c := createClass(t, b.base, "Week 6")

	phone := b.isolatedTab("/class?code=" + c.Code)
	b.shots(phone, "device-class-home", "[data-testid=join-form]")
	b.do(phone,
		chromedp.SetValue(chromedp.ID("join-name"), "Ada"),
		chromedp.Click(chromedp.CSS("[data-testid=join-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
	b.roomShots(phone, "device-offer", "[data-testid=device]")
	b.do(phone, chromedp.Focus(chromedp.CSS("[data-testid=device-get]")), chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("[data-testid=device-code]")))
	b.roomShots(phone, "device-code", "[data-testid=device]")
	code := strings.TrimSpace(run(b, phone, chromedp.Text(chromedp.CSS("[data-testid=device-code]"))))
	link := run(b, phone, chromedp.Evaluate[string](`document.querySelector('[data-testid=device-link]').href`))

	laptop := b.isolatedTab("/")
	b.do(laptop, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("[data-testid=continue-form]")))
	if got := run(b, laptop, chromedp.Evaluate[string](`document.getElementById('continue-code').value`)); got != code {
		t.Errorf("the continue form holds %q, want %q", got, code)
	}
	b.roomShots(laptop, "device-continue", "[data-testid=continue-form]")
	b.do(laptop, chromedp.Focus(chromedp.ID("continue-code")), chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
	if got := run(b, laptop, chromedp.Text(chromedp.CSS("[data-testid=learner-name]"))); got != "Ada" {
		t.Errorf("the laptop's class page names %q", got)
	}
	b.do(phone, chromedp.Reload())
	b.waitUntil(phone, `document.body.textContent.toLowerCase().includes('your class session has ended (you went on in another browser')`, "the phone told it was signed out, and why")
}

// TestE2EContinueSentTwiceStillContinues: "Continue here" pressed twice
// before the page moves sends the form once, so the code is spent by the
// first press and the learner lands on their page, not on "used or has
// expired" (which would also count as a wrong code against the address).
func TestE2EContinueSentTwiceStillContinues(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st}) // skips without PLAYGROUND_E2E=1 or a chromium
	c := createClass(t, b.base, "Week 7")
	ada, _ := join(t, b.base, c.Code, "Ada")
	code := deviceCode(t, ada)

	laptop := b.isolatedTab("/class/continue?code=" + code)
	b.do(laptop, chromedp.WaitVisible(chromedp.CSS("[data-testid=continue-form]")))
	b.do(laptop, chromedp.Evaluate[chromedp.Void](`(() => { const f = document.querySelector('[data-testid=continue-form]'); f.requestSubmit(); setTimeout(() => f.requestSubmit(), 20); })()`))
	b.do(laptop, chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page], [data-testid=continue-error]")))
	if msg := run(b, laptop, chromedp.Evaluate[string](`(document.querySelector('[data-testid=continue-error]') || {}).textContent || ''`)); msg != "" {
		t.Fatalf("a second press was sent too: the page says %q", msg)
	}
}
