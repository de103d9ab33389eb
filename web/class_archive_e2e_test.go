package web_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/web"
)

// TestE2EClassArchiveButton: the teacher archives the class with the
// dashboard's button; the page says so without a reload and turns the
// other actions off, the learner's page says the class takes no more
// answers, and the same button restores it. Screenshots at a laptop's and
// a phone's size.
func TestE2EClassArchiveButton(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st}) // skips without PLAYGROUND_E2E=1 or a chromium

	tc := b.isolatedTab("/class")
	b.do(tc,
		chromedp.EmulateViewport(1366, 900),
		chromedp.SetValue(chromedp.ID("class-name"), "Distributed systems, spring"),
		chromedp.Click(chromedp.CSS("[data-testid=create-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=class-code]")))
	code := run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=class-code]")))
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=open-dashboard]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")))
	b.waitUntil(tc, `document.getElementById('live-status').textContent.startsWith('Live')`, "the dashboard going live")
	lc := b.isolatedTab("/class?code=" + code)
	b.do(lc,
		chromedp.SetValue(chromedp.ID("join-name"), "Ada"),
		chromedp.Click(chromedp.CSS("[data-testid=join-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
	b.waitUntil(tc, `document.querySelectorAll('[data-testid=dash-learner]').length === 1`, "Ada on the dashboard")

	// A new join code reaches Ada's page as it stands: read out to a
	// latecomer, it is the one that works.
	b.do(tc, chromedp.Click(chromedp.ID("rotate-code")))
	b.waitUntil(tc, fmt.Sprintf(`document.querySelector('[data-testid=dash-code]').textContent !== %q`, code), "the new code on the dashboard")
	code = run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=dash-code]")))
	b.waitUntil(lc, fmt.Sprintf(`document.querySelector('[data-testid=learner-class-code]').textContent === %q`, code), "the new code on Ada's page without a reload")

	// Archive, accepting the confirmation.
	b.do(tc, chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.ID("archive-class")))
	b.waitUntil(tc, `document.getElementById('lifecycle').dataset.status === 'archived'`, "the dashboard showing the class archived")
	b.waitUntil(tc, `document.getElementById('rotate-code').disabled && document.getElementById('toggle-joining').disabled && document.getElementById('toggle-joining').hidden
		&& document.querySelector('[data-testid=push-submit]').disabled && document.querySelector('[data-testid=settings-save]').disabled`, "the other actions turned off")
	if got := run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=dash-joining]"))); got != "closed" {
		t.Errorf("an archived class's dashboard says joining is %q", got)
	}
	if got := run(b, tc, chromedp.Text(chromedp.ID("archive-class"))); got != "Restore class" {
		t.Errorf("the archive button says %q", got)
	}
	b.screenshot(tc, "class-archived-1366")
	b.do(tc, chromedp.EmulateViewport(390, 844))
	b.screenshot(tc, "class-archived-390")

	b.waitUntil(lc, `document.getElementById('class-banner').textContent.includes('no more answers')`, "Ada's page saying the class is closed without a reload")
	b.do(lc, chromedp.EmulateViewport(1366, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("[data-testid=class-closed]")))
	b.screenshot(lc, "class-learner-archived-1366")
	b.do(lc, chromedp.EmulateViewport(390, 844))
	b.screenshot(lc, "class-learner-archived-390")

	// Restore, from a dashboard opened while the class was archived: every
	// action comes back on without a reload.
	b.do(tc, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")))
	b.waitUntil(tc, `document.getElementById('live-status').textContent.startsWith('Live')`, "the archived class's dashboard going live")
	b.do(tc, chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.ID("archive-class")))
	b.waitUntil(tc, `document.getElementById('lifecycle').dataset.status === 'open' && !document.getElementById('rotate-code').disabled`, "the class restored")
	b.waitUntil(tc, `!document.querySelector('[data-testid=push-submit]').disabled && !document.querySelector('[data-testid=settings-save]').disabled`, "push and settings turned back on")
	b.waitUntil(tc, `document.querySelector('[data-testid=dash-joining]').textContent === 'open' && !document.getElementById('toggle-joining').hidden`, "joining open again, its switch back")
	b.waitUntil(lc, `document.querySelector('[data-testid=class-closed]').hidden && !document.getElementById('class-banner').textContent.includes('no more answers')`,
		"Ada's page, opened while the class was archived, no longer saying so")
	b.do(lc, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
	if n := run(b, lc, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=class-closed]').length`)); n != 0 {
		t.Error("the learner page still says the class is closed after the restore")
	}

	// Removed, Ada's open page says she is no longer in a class, and
	// nothing of the class's.
	// First a push, so the page has a class's line to drop.
	b.do(tc, choose("#push-preset", "paused-holder"), chromedp.Click(chromedp.CSS("[data-testid=push-submit]")))
	b.waitUntil(lc, `!!document.querySelector('[data-testid=class-banner-link]')`, "the push on Ada's page")
	b.do(tc, chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("button.remove")))
	b.waitUntil(lc, `document.getElementById('class-banner').textContent.includes('no longer in a class')`, "Ada's page saying she was removed")
	if n := run(b, lc, chromedp.Evaluate[int](`document.getElementById('class-banner').children.length`)); n != 1 {
		t.Errorf("the removed learner's banner has %d lines, want only the one saying so: %q", n,
			run(b, lc, chromedp.Evaluate[string](`document.getElementById('class-banner').textContent`)))
	}
	b.screenshot(lc, "class-learner-removed-390")
}
