package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// TestE2EClassRevealToldLive: a learner has a prediction's lesson open
// when the teacher reveals it on the projector. The form says, in place
// and before the learner types, that answers now earn nothing. On their
// own page a second reveal marks that exercise revealed, with 0, and
// says why, without a reload. The poll is an hour, so it came by the
// stream.
func TestE2EClassRevealToldLive(t *testing.T) {
	st := openSQLite(t)
	b, _ := liveBrowser(t, web.Config{Classroom: st, Class: web.ClassConfig{Live: web.LearnerLiveConfig{Poll: time.Hour}}})
	var preds []*lessons.Exercise
	for _, ex := range catalog(t).Exercises() {
		if ex.Kind == lessons.KindPredict {
			preds = append(preds, ex)
		}
	}
	if len(preds) < 2 {
		t.Fatal("the catalog has fewer than two predictions")
	}
	first, second := preds[0], preds[1]
	c := createClass(t, b.base, "Week 7")
	owner := teacher(t, b.base, c.TeacherKey)
	lc := joinInBrowser(b, c.Code, "Dee", "/lessons/"+first.Lesson)
	b.waitUntil(lc, `document.getElementById('class-banner').dataset.live === 'stream'`, "the lesson page following the class")
	note := func(id string) string {
		return fmt.Sprintf(`document.querySelector('[data-exercise=%q] [data-testid=class-revealed]')`, id)
	}
	if !run(b, lc, chromedp.Evaluate[bool](note(first.ID)+`.hidden`)) {
		t.Fatal("the form says the answer was shown before the teacher showed it")
	}
	revealToClass(t, owner, c.Code, first.ID)
	b.waitUntil(lc, `!`+note(first.ID)+`.hidden`, "the form saying the answer was shown in class")
	b.shots(lc, "class-reveal-form", "#exercise-"+first.ID)

	b.do(lc, chromedp.Navigate(b.base+"/class/me"), chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
	b.waitUntil(lc, `document.getElementById('class-banner').dataset.live === 'stream'`, "the learner's page following the class")
	item := func(id string) string { return fmt.Sprintf(`document.querySelector('li[data-exercise=%q]')`, id) }
	if run(b, lc, chromedp.Evaluate[string](item(second.ID)+`.dataset.state`)) != "" {
		t.Fatalf("%s is not untried before its reveal", second.ID)
	}
	revealToClass(t, owner, c.Code, second.ID)
	b.waitUntil(lc, `!`+note(second.ID)+`.hidden`, "the learner's page saying the answer was shown in class")
	got := run(b, lc, chromedp.Evaluate[[]string](fmt.Sprintf(`[%[1]s.dataset.state, %[1]s.querySelector('[data-testid=learner-exercise-words]').textContent, %[1]s.querySelector('.mark').textContent]`, item(second.ID))))
	if fmt.Sprint(got) != "[revealed revealed · score 0 ↺]" {
		t.Errorf("the learner's page, live, on the second revealed exercise: %q; want revealed, 0, as after a reload", got)
	}
	b.shots(lc, "class-reveal-learner-page", `li[data-exercise="`+second.ID+`"]`)
	// A reload says the same.
	b.do(lc, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")))
	again := run(b, lc, chromedp.Evaluate[[]string](fmt.Sprintf(`[%[1]s.dataset.state, %[1]s.querySelector('[data-testid=learner-exercise-words]').textContent, %[1]s.querySelector('.mark').textContent]`, item(second.ID))))
	if fmt.Sprint(again) != fmt.Sprint(got) || run(b, lc, chromedp.Evaluate[bool](note(second.ID)+`.hidden`)) {
		t.Errorf("after a reload the page says %q (note hidden: %v); live it said %q", again, run(b, lc, chromedp.Evaluate[bool](note(second.ID)+`.hidden`)), got)
	}
}
