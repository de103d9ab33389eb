package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/web"
)

// TestE2EClassCreationKeyForm: on a server with a class creation key, the
// /class form asks for it; a wrong key is shown the error beside the
// field, the right one creates the class.
func TestE2EClassCreationKeyForm(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st, Class: web.ClassConfig{CreationKey: "open sesame"}}) // skips without PLAYGROUND_E2E=1 or a chromium
	tc := b.isolatedTab("/class")
	b.do(tc, chromedp.WaitVisible(chromedp.CSS("[data-testid=creation-key]")))
	b.shots(tc, "class-creation-key", "[data-testid=create-form]")
	b.do(tc,
		chromedp.SetValue(chromedp.ID("class-name"), "Distributed systems, spring"),
		chromedp.SetValue(chromedp.ID("creation-key"), "a guess"),
		chromedp.Click(chromedp.CSS("[data-testid=create-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=create-error]")))
	b.shots(tc, "class-creation-key-wrong", "[data-testid=create-form]")
	b.do(tc,
		chromedp.SetValue(chromedp.ID("creation-key"), "open sesame"),
		chromedp.Click(chromedp.CSS("[data-testid=create-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=class-code]")))
}
