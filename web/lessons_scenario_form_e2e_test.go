package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestE2EScenarioFormShowsWhatItRuns: the stale-write exercise's form
// starts each setting at what the scenario runs (client-1 renews every
// 3 s, its pause starts at 4 s), not empty beside "empty: never renews";
// a known wrong answer made on the form gets its own feedback; and a
// renewal field cleared by the learner runs as never renewing.
func TestE2EScenarioFormShowsWhatItRuns(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/lessons/fencing-tokens")
	form := "#exercise-make-stale-write-land"
	input := func(path string) string {
		return fmt.Sprintf(`%s input[data-path=%q]`, form, path)
	}
	value := func(path string) string {
		return run(b, ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).value`, input(path))))
	}
	if got := value("clients[client-1].renew_every"); got != "3s" {
		t.Errorf("client-1 renews every %q on the form, but the scenario renews every 3s", got)
	}
	if got := value("faults[0].at"); got != "4s" {
		t.Errorf("the pause starts at %q on the form, but the scenario pauses at 4s", got)
	}
	set := func(path, v string) {
		b.do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
			`(() => { const i = document.querySelector(%q); i.value = %q; i.dispatchEvent(new Event('input', {bubbles: true})); })()`, input(path), v)))
	}
	check := func(want string) string {
		b.do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector('%s [data-testid=feedback]').textContent = ''`, form)))
		b.do(ctx, chromedp.Click(chromedp.CSS(form+` [data-testid=check]`)))
		return b.waitText(ctx, form+` [data-testid=feedback]`, want)
	}

	// Fencing off, the pause left at 2 s: the file's named mistake.
	set("fencing", "off")
	if fb := check("Not yet"); !strings.Contains(fb, "With a 2 s pause client-1 wakes long before") {
		t.Errorf("fencing off with a short pause: the feedback %q is not the mistake's own", fb)
	}

	// A 7 s pause with no renewal outlasts the lease: the write lands.
	set("faults[0].for", "7s")
	set("clients[client-1].renew_every", "")
	if !strings.Contains(run(b, ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('%s textarea').value`, form))), `"clients[client-1].renew_every":""`) {
		t.Error("the cleared renewal is not in the settings sent")
	}
	check("Correct")
	b.shots(ctx, "lessons-scenario-form-cleared", form)
}
