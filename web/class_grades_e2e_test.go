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

// TestE2EGiveUpThenAnswer: a learner in a class asks to be shown an
// answer, then types it: the lesson says it is practice, and the
// teacher's live grid, the learner's own page and the exports say
// revealed, not solved. A second learner who answers on their own is
// solved. Then an open answer written after the model answer: its card
// says so and shows the earlier one. Screenshots of the lesson's
// exercise, the grid, the open-answer card and the learner's page at
// 1366x900 and 390x844.
func TestE2EGiveUpThenAnswer(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st}) // skips without PLAYGROUND_E2E=1 or a chromium

	tc := b.isolatedTab("/class")
	b.do(tc, chromedp.EmulateViewport(1366, 900))
	b.do(tc,
		chromedp.SetValue(chromedp.ID("class-name"), "Week 8"),
		chromedp.Click(chromedp.CSS("[data-testid=create-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=class-code]")))
	code := strings.TrimSpace(run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=class-code]"))))
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=open-dashboard]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")))
	b.waitUntil(tc, `document.getElementById('live-status').textContent.startsWith('Live')`, "the dashboard going live")

	learnerTabs := map[string]context.Context{}
	joinAs := func(name string) {
		lc := b.isolatedTab("/class?code=" + code)
		b.do(lc,
			chromedp.SetValue(chromedp.ID("join-name"), name),
			chromedp.Click(chromedp.CSS("[data-testid=join-submit]")),
			chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
		learnerTabs[name] = lc
	}
	joinAs("Ada")
	joinAs("Bo")
	ada, bo := learnerTabs["Ada"], learnerTabs["Bo"]

	// Ada: "show me", then the shown answer, typed in.
	const id = "outlive-lease"
	form := "#exercise-" + id
	b.do(ada, chromedp.Navigate(b.base+"/lessons/leases"), chromedp.WaitVisible(chromedp.CSS(form)))
	if v := run(b, ada, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).dataset.variant`, form))); v != "0" {
		t.Errorf("the form carries variant %q: a class learner's own stays on the server", v)
	}
	b.showMe(ada, id)
	b.waitUntil(ada, fmt.Sprintf(`document.querySelector(%q) !== null`, form+" [data-testid=expected]"), "the answer shown")
	shown := strings.TrimSpace(run(b, ada, chromedp.Text(chromedp.CSS(form+" [data-testid=expected]"))))
	if shown == "" {
		t.Fatal("show me showed no answer")
	}
	b.answer(ada, id, shown)
	b.waitText(ada, form+" [data-testid=feedback]", "practice and earns no credit")
	b.shots(ada, "grades-lesson-after-reveal", form)

	// Bo works his own numbers out from the prompt: right at the first try.
	b.do(bo, chromedp.Navigate(b.base+"/lessons/leases"), chromedp.WaitVisible(chromedp.CSS(form)))
	prompt := run(b, bo, chromedp.Text(chromedp.CSS(form+" [data-testid=exercise-prompt]")))
	m := regexp.MustCompile(`slowest (\d+)%[\s\S]*?([\d,]+) runs`).FindStringSubmatch(prompt)
	if m == nil {
		t.Fatalf("Bo's prompt %q", prompt)
	}
	pct, _ := strconv.Atoi(m[1])
	runs, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
	b.answer(bo, id, strconv.Itoa(runs*pct/100))
	b.waitText(bo, form+" [data-testid=feedback]", "Correct")

	cell := func(name string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('[data-testid=dash-learner]')].find(r => r.querySelector('[data-testid=learner-name]').textContent === %q)?.querySelector('td[data-exercise=%q]')`, name, id)
	}
	b.waitUntil(tc, fmt.Sprintf(`(%s)?.dataset.status === 'revealed'`, cell("Ada")), "Ada's cell saying revealed")
	b.waitUntil(tc, fmt.Sprintf(`(%s)?.dataset.status === 'solved' && (%s).textContent === '✓ 1'`, cell("Bo"), cell("Bo")), "Bo's cell saying solved")
	if got := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`(%s).textContent`, cell("Ada")))); got != "revealed" {
		t.Errorf("Ada's cell reads %q, want revealed", got)
	}

	// Ada's open answers: the second written after the model answer.
	post := func(body string) {
		js := fmt.Sprintf(`fetch('/api/exercises/sms-twice/check', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: %q}).then(r => r.status)`, body)
		if s := run(b, ada, chromedp.Evaluate[int](js, chromedp.EvalAwaitPromise)); s != 200 {
			t.Fatalf("Ada's open answer: %d", s)
		}
	}
	post(`{"answer":"Lock the sender so only one sends."}`)
	post(`{"answer":"Give each reminder an idempotency key the provider keeps; fencing cannot reach the SMS provider."}`)
	b.waitUntil(tc, `document.querySelector('[data-testid=answer-saw-model]') !== null && document.querySelectorAll('[data-testid=answer-earlier-text]').length === 1`, "the card saying the model answer was seen first")
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=answer-earlier] summary")))
	b.shots(tc, "grades-answer-card", "#dash-answers-heading")
	b.shots(tc, "grades-dashboard-grid", "#dash-learners-heading")
	b.shots(tc, "grades-dashboard-top", "[data-testid=dashboard]")

	b.do(ada, chromedp.Navigate(b.base+"/class/me"), chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
	li := fmt.Sprintf(`[data-testid=learner-exercise][data-exercise=%q]`, id)
	if st := run(b, ada, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).dataset.state`, li))); st != "revealed" {
		t.Errorf("Ada's page says %q for %s, want revealed", st, id)
	}
	b.waitText(ada, li, "revealed: you saw the answer first")
	b.shots(ada, "grades-learner-page-top", "[data-testid=learner-page]")
	b.shots(ada, "grades-learner-page", li)

	body := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`fetch('/api/classes/%s/progress.csv').then(r => r.text())`, code), chromedp.EvalAwaitPromise))
	for _, r := range readCSV(t, body)[1:] {
		if r[1] != id {
			continue
		}
		want := map[string]string{"Ada": "0 0 revealed", "Bo": "1 1 solved"}[r[0]]
		if got := r[3] + " " + r[9] + " " + r[12]; got != want {
			t.Errorf("progress.csv says correct, score, status %q for %s, want %q", got, r[0], want)
		}
	}
}
