package web_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/web"
)

// TestE2ELateCreditOneClick: the deadline has passed; Ada answers right
// and Bo wrong, both late: their cells say late, each with a Credit
// button. The teacher presses Ada's: her cell turns solved with her score
// and an Undo button, progress.csv agrees, and her own page says her late
// work was counted. Screenshots of the grid and of Ada's page at
// 1366x900 and 390x844.
func TestE2ELateCreditOneClick(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st}) // skips without PLAYGROUND_E2E=1 or a chromium

	tc := b.isolatedTab("/class")
	b.do(tc, chromedp.EmulateViewport(1366, 900))
	b.do(tc,
		chromedp.SetValue(chromedp.ID("class-name"), "Week 9"),
		chromedp.Click(chromedp.CSS("[data-testid=create-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=class-code]")))
	code := strings.TrimSpace(run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=class-code]"))))
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=open-dashboard]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")))
	b.waitUntil(tc, `document.getElementById('live-status').textContent.startsWith('Live')`, "the dashboard going live")
	settings := fmt.Sprintf(`fetch('/api/classes/%s/settings', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"deadline":"2001-01-01T00:00:00Z"}'}).then(r => r.status)`, code)
	if s := run(b, tc, chromedp.Evaluate[int](settings, chromedp.EvalAwaitPromise)); s != 200 {
		t.Fatalf("setting a past deadline: %d", s)
	}

	const id = "outlive-lease"
	form := "#exercise-" + id
	var adaTab context.Context
	answerOn := func(name string, right bool) {
		lc := b.isolatedTab("/class?code=" + code)
		b.do(lc,
			chromedp.SetValue(chromedp.ID("join-name"), name),
			chromedp.Click(chromedp.CSS("[data-testid=join-submit]")),
			chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")),
			chromedp.Navigate(b.base+"/lessons/leases"), chromedp.WaitVisible(chromedp.CSS(form)))
		answer := "1"
		if right {
			prompt := run(b, lc, chromedp.Text(chromedp.CSS(form+" [data-testid=exercise-prompt]")))
			m := regexp.MustCompile(`slowest (\d+)%[\s\S]*?([\d,]+) runs`).FindStringSubmatch(prompt)
			if m == nil {
				t.Fatalf("%s's prompt %q", name, prompt)
			}
			pct, _ := strconv.Atoi(m[1])
			runs, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
			answer = strconv.Itoa(runs * pct / 100)
		}
		b.answer(lc, id, answer)
		b.waitUntil(lc, fmt.Sprintf(`(document.querySelector(%q)?.textContent || '') !== ''`, form+" [data-testid=feedback]"), name+"'s feedback")
		if name == "Ada" {
			b.do(lc, chromedp.Navigate(b.base+"/class/me"), chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
			adaTab = lc
		}
	}
	answerOn("Ada", true)
	answerOn("Bo", false)

	cell := func(name string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('[data-testid=dash-learner]')].find(r => r.querySelector('[data-testid=learner-name]').textContent === %q)?.querySelector('td[data-exercise=%q]')`, name, id)
	}
	for _, n := range []string{"Ada", "Bo"} {
		b.waitUntil(tc, fmt.Sprintf(`(%s)?.dataset.status === 'late' && (%s).querySelector('button.late-credit')?.textContent === 'Credit'`, cell(n), cell(n)), n+"'s cell saying late, with a Credit button")
	}
	b.shots(tc, "late-credit-grid-before", "#dash-learners-heading")
	adaRow := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`(%s).closest('tr').dataset.learner`, cell("Ada"))))
	b.do(tc, chromedp.Click(chromedp.CSS(fmt.Sprintf(`tr[data-learner=%q] td[data-exercise=%q] button.late-credit`, adaRow, id))))
	b.waitUntil(tc, fmt.Sprintf(`(%s)?.dataset.status === 'solved' && (%s).dataset.score === '1' && (%s).querySelector('button.late-credit')?.textContent === 'Undo'`, cell("Ada"), cell("Ada"), cell("Ada")), "Ada's cell turning solved, 1, with Undo")
	// The redrawn button keeps its name for a screen reader.
	if label := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`(%s).querySelector('button.late-credit').getAttribute('aria-label') || ''`, cell("Ada")))); !strings.HasPrefix(label, "Withdraw the credit for Ada") {
		t.Errorf("the live Undo button's aria-label is %q", label)
	}
	if st := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`(%s).dataset.status`, cell("Bo")))); st != "late" {
		t.Errorf("Bo's cell says %q after Ada's credit, want late", st)
	}
	if e := run(b, tc, chromedp.Evaluate[string](`document.getElementById('dash-error').textContent`)); e != "" {
		t.Errorf("the dashboard shows an error: %q", e)
	}
	b.shots(tc, "late-credit-grid", "#dash-learners-heading")

	body := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`fetch('/api/classes/%s/progress.csv').then(r => r.text())`, code), chromedp.EvalAwaitPromise))
	for _, r := range readCSV(t, body)[1:] {
		if r[1] != id {
			continue
		}
		want := map[string]string{"Ada": "1 solved", "Bo": "0 late"}[r[0]]
		if got := r[9] + " " + r[12]; got != want {
			t.Errorf("progress.csv says score, status %q for %s, want %q", got, r[0], want)
		}
	}

	b.do(adaTab, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
	li := fmt.Sprintf(`[data-testid=learner-exercise][data-exercise=%q]`, id)
	b.waitText(adaTab, li, "late, counted by your teacher")
	b.shots(adaTab, "late-credit-learner-page", li)
}
