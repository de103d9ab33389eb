package web_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/web"
)

// TestE2ETeacherReadsMistakesAndScoresAnswers: learners answer on their
// own numbers; the teacher's dashboard shows the mistake they share with
// each learner's own answer, and their open answers, live; the teacher
// scores one, and the learner sees the score on the lesson page and on
// their own page. Screenshots of the dashboard, the learner's page and the
// class home at 1366x900 and 390x844.
func TestE2ETeacherReadsMistakesAndScoresAnswers(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st}) // skips without PLAYGROUND_E2E=1 or a chromium

	tc := b.isolatedTab("/class")
	b.do(tc, chromedp.EmulateViewport(1366, 900))
	b.shot(tc, "", "class-home-wide")
	b.do(tc,
		chromedp.SetValue(chromedp.ID("class-name"), "Week 7"),
		chromedp.Click(chromedp.CSS("[data-testid=create-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=class-code]")))
	code := strings.TrimSpace(run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=class-code]"))))
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=open-dashboard]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")))
	b.waitUntil(tc, `document.getElementById('live-status').textContent.startsWith('Live')`, "the dashboard going live")

	post := func(ctx context.Context, path, body string) int {
		js := fmt.Sprintf(`fetch(%q, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: %q}).then(r => r.status)`, path, body)
		return run(b, ctx, chromedp.Evaluate[int](js, chromedp.EvalAwaitPromise))
	}
	learners := map[string]context.Context{}
	for _, name := range []string{"Ada", "Bo", "Cy"} {
		lc := b.isolatedTab("/class?code=" + code)
		b.do(lc,
			chromedp.SetValue(chromedp.ID("join-name"), name),
			chromedp.Click(chromedp.CSS("[data-testid=join-submit]")),
			chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
		learners[name] = lc
		// The same slip on each one's own numbers: the share of slow runs,
		// in percent, for their number.
		share := run(b, lc, chromedp.Evaluate[string](`fetch('/api/exercises/outlive-lease').then(r => r.json()).then(e => e.prompt_text.match(/slowest (\d+)%/)[1])`, chromedp.EvalAwaitPromise))
		if s := post(lc, "/api/exercises/outlive-lease/check", fmt.Sprintf(`{"answer":"%s%%"}`, share)); s != 200 {
			t.Fatalf("%s's check: %d", name, s)
		}
	}
	ada := learners["Ada"]
	answer := "Fencing cannot help with the SMS provider; give each reminder an idempotency key."
	if s := post(ada, "/api/exercises/sms-twice/check", fmt.Sprintf(`{"answer":%q}`, answer)); s != 200 {
		t.Fatalf("Ada's open answer: %d", s)
	}
	post(learners["Bo"], "/api/exercises/sms-twice/check", `{"answer":"A longer lease would stop the second text."}`)

	sel := `[data-testid=dash-exercise][data-exercise="outlive-lease"] [data-testid=mistake]`
	b.waitUntil(tc, fmt.Sprintf(`document.querySelectorAll(%q).length === 1 && document.querySelectorAll(%q).length === 3`, sel, sel+` [data-testid=mistake-learner]`), "one mistake with three learners")
	if got := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).textContent`, sel))); !strings.Contains(got, "share in percent") || !strings.Contains(got, "3 learners") {
		t.Errorf("the mistake reads %q", got)
	}
	b.waitUntil(tc, `document.querySelectorAll('[data-testid=answer-card]').length === 2`, "two open answers to score")
	// What to mark them against arrives with them: one key per exercise,
	// folded, with the rubric and the model answer.
	key := `[data-testid=answer-key][data-exercise="sms-twice"]`
	b.waitUntil(tc, fmt.Sprintf(`document.querySelectorAll('[data-testid=answer-key]').length === 1 && document.querySelector(%q) !== null`, key), "the answer key of sms-twice")
	b.do(tc, chromedp.Click(chromedp.CSS(key+` summary`)))
	if got := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).innerText`, key))); !strings.Contains(got, "idempotency key") || !strings.Contains(got, "SMS provider does not check it") {
		t.Errorf("the answer key reads %q", got)
	}
	keyCode := func(when string) {
		t.Helper()
		code := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ''`, key+` .model-answer code`)))
		text := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).textContent`, key+` .model-answer`)))
		if !strings.Contains(code, "UPDATE reminders") || strings.Contains(text, "`") {
			t.Errorf("%s, the model answer's code reads %q in %q: Markdown backticks, not code", when, code, text)
		}
	}
	keyCode("live")
	for _, size := range []struct {
		name string
		w, h int64
	}{{"wide", 1366, 900}, {"phone", 390, 844}} {
		b.do(tc, chromedp.EmulateViewport(size.w, size.h), chromedp.ScrollIntoView(chromedp.CSS(`[data-testid=dash-exercises]`)))
		b.shot(tc, "", "dashboard-"+size.name+"-mistakes")
		// The mistakes, the table's point, are on the screen at every
		// width, not scrolled off to the right.
		if right := run(b, tc, chromedp.Evaluate[float64](fmt.Sprintf(`document.querySelector(%q).getBoundingClientRect().right`, sel))); right > float64(size.w) {
			t.Errorf("at %dx%d the mistake ends at x=%.0f, off the screen", size.w, size.h, right)
		}
		// Wide tables scroll inside their own box; the page itself never
		// scrolls sideways.
		if w := run(b, tc, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); w > float64(size.w) {
			t.Errorf("at %dx%d the dashboard is %.0f px wide: the page scrolls sideways", size.w, size.h, w)
		}
		b.do(tc, chromedp.ScrollIntoView(chromedp.CSS(`[data-testid=dash-answers]`)))
		b.shot(tc, "", "dashboard-"+size.name+"-answers")
	}

	// Score Ada's answer from the dashboard.
	b.do(tc,
		chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('[data-testid=answer-card]')].find(c => c.textContent.includes('Ada')).id = 'ada-card'`),
		chromedp.SetValue(chromedp.CSS(`#ada-card [data-testid=review-score]`), "0.75"),
		chromedp.SetValue(chromedp.CSS(`#ada-card [data-testid=review-comment]`), "Good; say why a longer lease would not help."),
		chromedp.Click(chromedp.CSS(`#ada-card [data-testid=review-save]`)))
	b.waitUntil(tc, `[...document.querySelectorAll('[data-testid=answer-card]')].some(c => c.textContent.includes('Ada') && c.querySelector('[data-testid=review-state]').textContent === 'scored 0.75')`, "the review saved")
	// A live update keeps the key the teacher opened open.
	if !run(b, tc, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).open`, key))) {
		t.Error("the answer key folded itself after the review was saved")
	}
	// The page as the server renders it has the key too.
	b.do(tc, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=dashboard]`)))
	if n := run(b, tc, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=answer-key] li').length`)); n != 4 {
		t.Errorf("the reloaded dashboard's answer key has %d rubric points, want 4", n)
	}
	keyCode("reloaded")

	// Ada sees it on the lesson page and on her own page.
	b.do(ada, chromedp.Navigate(b.base+"/lessons/side-effects"), chromedp.WaitVisible(chromedp.CSS(`#exercise-sms-twice [data-testid=review]`)))
	if got := run(b, ada, chromedp.Text(chromedp.CSS(`#exercise-sms-twice [data-testid=review]`))); !strings.Contains(got, "0.75") || !strings.Contains(got, "longer lease") {
		t.Errorf("the lesson page shows the review as %q", got)
	}
	b.do(ada, chromedp.Navigate(b.base+"/class/me"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=learner-review]`)))
	// An open answer scored below full marks is answered, not solved (the
	// dashboard's Solved counts the same); its score (0.75 here) counts in
	// the learner's score.
	if got := run(b, ada, chromedp.Text(chromedp.CSS(`[data-testid=learner-done]`))); !regexp.MustCompile(`^0 of \d+ exercises solved \(an open question counts as solved when your teacher gives it full marks\)\. 1 of \d+ open questions answered\. Your score: 0\.75 of \d+\.$`).MatchString(got) {
		t.Errorf("Ada's count reads %q", got)
	}
	if got := run(b, ada, chromedp.Text(chromedp.CSS(`[data-testid=learner-exercise][data-exercise="sms-twice"] .mark`))); got != "✎" {
		t.Errorf("Ada's scored open answer is marked %q, want ✎ (answered)", got)
	}
	for _, size := range []struct {
		name string
		w, h int64
	}{{"wide", 1366, 900}, {"phone", 390, 844}} {
		b.do(ada, chromedp.EmulateViewport(size.w, size.h), chromedp.ScrollIntoView(chromedp.CSS(`[data-testid=learner-review]`)))
		b.shot(ada, "", "learner-"+size.name+"-review")
	}
	// Ada answers again: her card, live, says the 0.75 was the earlier
	// answer's, and it is an answer to mark again.
	post(ada, "/api/exercises/sms-twice/check", `{"answer":"An idempotency key, kept by the provider for a day."}`)
	b.waitUntil(tc, `[...document.querySelectorAll('[data-testid=answer-card]')].some(c => c.textContent.includes('Ada') && c.textContent.includes('kept by the provider') && c.querySelector('[data-testid=review-state]').textContent === 'not scored yet: 0.75 was for an earlier answer')`, "Ada's new answer to mark again")
	if got := run(b, tc, chromedp.Text(chromedp.ID("jump-to-mark"))); got != "2 answers to mark" {
		t.Errorf("with Bo's answer and Ada's new one, the header says %q", got)
	}
	b.do(tc, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('[data-testid=answer-card]')].find(c => c.textContent.includes('kept by the provider')).id = 'ada-again'`))
	for _, size := range []struct {
		name string
		w, h int64
	}{{"wide", 1366, 900}, {"phone", 390, 844}} {
		b.do(tc, chromedp.EmulateViewport(size.w, size.h), chromedp.ScrollIntoView(chromedp.CSS(`#ada-again`)))
		b.shot(tc, "", "dashboard-"+size.name+"-answered-again")
	}
	b.do(tc, chromedp.Navigate(b.base+"/class"), chromedp.EmulateViewport(390, 844))
	b.shot(tc, "", "class-home-phone")
}
