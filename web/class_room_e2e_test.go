package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// roomShots saves the viewport with sel at the top at 1366x900, 1280x720
// (a projector) and 390x844 (a phone), as name-WxH.png, and leaves the tab
// at 1366x900.
func (b *browser) roomShots(ctx context.Context, name, sel string) {
	b.t.Helper()
	for _, sz := range [][2]int{{390, 844}, {1280, 720}, {1366, 900}} {
		b.size(ctx, sz[0], sz[1])
		b.settle(ctx)
		b.do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).scrollIntoView()`, sel)))
		b.settle(ctx)
		b.shot(ctx, "", fmt.Sprintf("%s-%dx%d", name, sz[0], sz[1]))
	}
}

// TestE2ERoom: a live class run from the dashboard with one click each.
// The teacher pushes a lesson and a learner already on another page gets
// the banner without a reload, and stays where they were; quiz mode and
// one open lesson reach the learner's page live (show-me hidden, "not
// open yet"); the predictions chart counts the class's first answers
// without marking the right one until Reveal.
func TestE2ERoom(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st}) // skips without PLAYGROUND_E2E=1 or a chromium
	cat, err := lessons.Default()
	if err != nil {
		t.Fatal(err)
	}
	ls := cat.Lessons()
	first, second := ls[0], ls[1]
	pred := firstPrediction(t)

	tc := b.isolatedTab("/class")
	b.do(tc,
		chromedp.SetValue(chromedp.ID("class-name"), "Week 5"),
		chromedp.Click(chromedp.CSS("[data-testid=create-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=class-code]")))
	code := strings.TrimSpace(run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=class-code]"))))
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=open-dashboard]")), chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")))
	b.waitUntil(tc, `document.getElementById('live-status').textContent.startsWith('Live')`, "the dashboard going live")

	lc := b.isolatedTab("/class?code=" + code)
	b.do(lc,
		chromedp.SetValue(chromedp.ID("join-name"), "Ada"),
		chromedp.Click(chromedp.CSS("[data-testid=join-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=learner-page]")),
		chromedp.Navigate(b.base+"/lessons/"+first.Slug), chromedp.WaitVisible(chromedp.CSS("[data-testid=lesson]")))
	b.do(lc, chromedp.Evaluate[chromedp.Void](`window.stayed = true`))

	// Three learners predict; one changes her mind later (not counted).
	// The first had run the prediction's scenario in the playground.
	ctx := context.Background()
	for i, v := range []string{"30", "20", "30"} {
		s, err := st.Join(ctx, code, fmt.Sprintf("Learner %d", i+1))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := st.NoteRun(ctx, s.Token, []string{pred.ID}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.Record(ctx, s.Token, classroom.Attempt{Exercise: pred.ID, Answer: v, Parsed: v, Correct: v == "30", Graded: true}); err != nil {
			t.Fatal(err)
		}
	}

	// Push a lesson: one pick, one click.
	b.do(tc, choose("#push-lesson", second.Slug), chromedp.Click(chromedp.CSS("[data-testid=push-submit]")))
	b.waitUntil(tc, fmt.Sprintf(`document.getElementById('push-current').textContent.includes(%q)`, second.Title), "the pushed lesson on the dashboard")
	b.waitUntil(lc, `!!document.querySelector('[data-testid=class-banner-link]')`, "the banner on the learner's lesson page")
	if href := run(b, lc, chromedp.Evaluate[string](`document.querySelector('[data-testid=class-banner-link]').getAttribute('href')`)); href != "/lessons/"+second.Slug {
		t.Errorf("the banner links to %q", href)
	}
	if !run(b, lc, chromedp.Evaluate[bool](`window.stayed === true && location.pathname === '/lessons/`+first.Slug+`'`)) {
		t.Error("the push moved the learner off their page")
	}
	b.roomShots(lc, "room-learner-banner", "[data-testid=class-banner]")
	b.roomShots(tc, "room-push", "#push-form")

	// Quiz mode, and only the first lesson open.
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=set-show-me]")),
		chromedp.Click(chromedp.CSS(fmt.Sprintf("[data-testid=set-open][value=%q]", first.Slug))),
		chromedp.Click(chromedp.CSS("[data-testid=settings-save]")))
	b.waitUntil(tc, `document.getElementById('settings-state').textContent === 'saved'`, "the settings saved")
	b.roomShots(tc, "room-settings", "#settings-form")
	b.waitUntil(lc, `document.documentElement.hasAttribute('data-class-quiz')`, "quiz mode on the learner's page")
	if n := run(b, lc, chromedp.Evaluate[int](`[...document.querySelectorAll('[data-action=show-me]')].filter(e => e.offsetParent !== null).length`)); n != 0 {
		t.Errorf("%d show-me buttons still visible in quiz mode", n)
	}
	b.do(lc, chromedp.Navigate(b.base+"/lessons/"+second.Slug), chromedp.WaitVisible(chromedp.CSS("[data-testid=lesson]")))
	b.waitUntil(lc, `document.getElementById('class-banner').textContent.includes('Not open yet')`, "not open yet on a closed lesson")
	b.roomShots(lc, "room-not-open", "[data-testid=class-banner]")

	// The pushed lesson is now closed: the dashboard says so beside the
	// push, and its one click opens the lesson, which the learner sees live.
	b.waitUntil(tc, `!!document.querySelector('[data-testid=push-closed]')`, "the dashboard saying the pushed lesson is not open")
	b.roomShots(tc, "room-push-closed", "#push-form")
	b.do(lc, chromedp.Navigate(b.base+"/lessons/"+first.Slug), chromedp.WaitVisible(chromedp.CSS("[data-testid=lesson]")))
	b.waitUntil(lc, `document.getElementById('class-banner').textContent.includes('(not open yet: you can read it')`, "the banner saying the pushed lesson is not open yet")
	b.roomShots(lc, "room-push-closed-learner", "[data-testid=class-banner]")
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=push-open-it]")))
	b.waitUntil(tc, `!document.querySelector('[data-testid=push-closed]')`, "Open it clearing the warning")
	b.waitUntil(tc, fmt.Sprintf(`document.querySelector('[data-testid=set-open][value=%q]').checked && document.querySelector('[data-testid=set-open][value=%q]').checked`, first.Slug, second.Slug),
		"both lessons ticked open in the settings")
	b.waitUntil(lc, `!document.getElementById('class-banner').textContent.toLowerCase().includes('not open yet')`, "the pushed lesson opening live on the learner's banner")
	if quiz := run(b, lc, chromedp.Evaluate[bool](`document.documentElement.hasAttribute('data-class-quiz')`)); !quiz {
		t.Error("opening the pushed lesson turned quiz mode off")
	}

	// The predictions chart, before and after the reveal.
	b.do(tc, choose("#poll-exercise", pred.ID))
	b.waitUntil(tc, `document.querySelectorAll('[data-testid=poll-row]').length === 2`, "two bars")
	if got := run(b, tc, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid=poll-row]')].map(r => r.textContent + '|' + r.dataset.right).join(';')`)); got != "302|;201|" {
		t.Errorf("before the reveal the chart is %q", got)
	}
	if got := run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=poll-total]"))); got != "3 learners answered; 1 had run this very scenario before predicting" {
		t.Errorf("the chart's total reads %q", got)
	}
	b.roomShots(tc, "room-predictions", "#predictions")
	// Live: a fourth learner's prediction moves the bar without a click
	// (before the reveal: an answer after it is no prediction).
	s, err := st.Join(ctx, code, "Learner 4")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Record(ctx, s.Token, classroom.Attempt{Exercise: pred.ID, Answer: "20", Parsed: "20", Graded: true}); err != nil {
		t.Fatal(err)
	}
	b.waitUntil(tc, `[...document.querySelectorAll('[data-testid=poll-count]')].map(e => e.textContent).join(',') === '2,2'`, "the chart following a new prediction")
	// The reveal ends the class's credit for good, so it is asked first:
	// declined, nothing is revealed, even to a dashboard opened afresh.
	b.do(tc, chromedp.Evaluate[chromedp.Void](`window.confirm = () => false`), chromedp.Click(chromedp.CSS("[data-testid=poll-reveal]")))
	reopenChart := func(why string) {
		b.do(tc, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")), choose("#poll-exercise", pred.ID))
		b.waitUntil(tc, `document.querySelectorAll('[data-testid=poll-row]').length === 2`, why)
	}
	reopenChart("the chart after the reveal was declined")
	if got := run(b, tc, chromedp.Evaluate[string](`document.querySelectorAll('[data-testid=poll-row][data-right=true]').length + '|' + document.getElementById('poll-state').textContent + '|' + document.getElementById('poll-reveal').textContent`)); got != "0||Reveal the answer" {
		t.Errorf("after declining the reveal the chart reads %q (right marks|state|button)", got)
	}
	b.do(tc, chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("[data-testid=poll-reveal]")))
	b.waitUntil(tc, `document.querySelector('[data-testid=poll-row][data-right=true]') !== null`, "the reveal")
	b.roomShots(tc, "room-predictions-revealed", "#predictions")
	// A dashboard opened afresh shows the class's reveal as it stands: the
	// answer marked, the credit said to be over, nothing left to confirm.
	reopenChart("the chart after the reveal, opened afresh")
	b.waitUntil(tc, `document.querySelector('[data-testid=poll-row][data-right=true]') !== null`, "the revealed answer marked again")
	if got := run(b, tc, chromedp.Evaluate[string](`document.getElementById('poll-state').textContent + '|' + document.getElementById('poll-reveal').textContent`)); got != "Revealed to the class: answers to this exercise now earn nothing.|Hide the answer" {
		t.Errorf("the revealed chart opened afresh reads %q (state|button)", got)
	}
	b.do(tc, chromedp.Evaluate[chromedp.Void](`window.confirm = () => { throw new Error('asked again') }`), chromedp.Click(chromedp.CSS("[data-testid=poll-reveal]")))
	b.waitUntil(tc, `document.getElementById('poll-reveal').textContent === 'Show the answer' && !document.querySelector('[data-testid=poll-row][data-right=true]')`, "Hide taking the marks off")
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=poll-reveal]")))
	b.waitUntil(tc, `document.getElementById('poll-reveal').textContent === 'Hide the answer' && !!document.querySelector('[data-testid=poll-row][data-right=true]')`, "Show putting them back without asking")
	// After those clicks the button still answers the keyboard: Enter on
	// it hides the marks and Enter again shows them, never asking.
	b.do(tc, chromedp.Focus(chromedp.CSS("[data-testid=poll-reveal]")), chromedp.KeyEvent(kb.Enter))
	b.waitUntil(tc, `document.getElementById('poll-reveal').textContent === 'Show the answer' && !document.querySelector('[data-testid=poll-row][data-right=true]')`, "Enter hiding the marks")
	b.do(tc, chromedp.KeyEvent(kb.Enter))
	b.waitUntil(tc, `document.getElementById('poll-reveal').textContent === 'Hide the answer' && !!document.querySelector('[data-testid=poll-row][data-right=true]')`, "Enter showing them again")

	// Three wrong tries on an exercise: that learner is flagged, at the top.
	for range 3 {
		if _, err := st.Record(ctx, s.Token, classroom.Attempt{Exercise: pred.ID, Answer: "20", Parsed: "20", Graded: true}); err != nil {
			t.Fatal(err)
		}
	}
	b.waitUntil(tc, `document.querySelector('[data-testid=dash-learner] [data-testid=learner-stuck]') !== null`, "the stuck learner flagged")
	if got := run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=dash-learner] [data-testid=learner-name]"))); got != "Learner 4" {
		t.Errorf("the first learner in the grid is %q, want the stuck one", got)
	}
	b.roomShots(tc, "room-stuck", "#dash-learners-heading")
	if href := run(b, tc, chromedp.Evaluate[string](`document.getElementById('gradebook-canvas').getAttribute('href')`)); href != "/api/classes/"+code+"/gradebook.csv?format=canvas" {
		t.Errorf("the Canvas gradebook button links to %q", href)
	}
	// Every format is a click away, by exercise and by lesson, not only in
	// a tooltip a tablet cannot show.
	b.do(tc, chromedp.Click(chromedp.CSS(`[data-testid=gradebook-menu] summary`)), chromedp.WaitVisible(chromedp.ID("gradebook-moodle-lessons")))
	if href := run(b, tc, chromedp.Evaluate[string](`document.getElementById('gradebook-moodle-lessons').getAttribute('href')`)); href != "/api/classes/"+code+"/gradebook.csv?format=moodle&by=lesson" {
		t.Errorf("the Moodle by-lesson gradebook links to %q", href)
	}
	b.roomShots(tc, "room-gradebook-menu", "[data-testid=gradebook-menu]")
	// It closes as a menu does: a click elsewhere, and Escape.
	open := `document.querySelector('[data-testid=gradebook-menu]').open`
	b.do(tc, chromedp.Click(chromedp.ID("dash-exercises-heading")))
	b.waitUntil(tc, "!"+open, "the Gradebook menu closing on a click elsewhere")
	b.do(tc, chromedp.Click(chromedp.CSS(`[data-testid=gradebook-menu] summary`)), chromedp.WaitVisible(chromedp.ID("gradebook-moodle-lessons")))
	b.do(tc, chromedp.KeyEvent(kb.Escape))
	b.waitUntil(tc, "!"+open+` && document.activeElement === document.querySelector('[data-testid=gradebook-menu] summary')`, "the Gradebook menu closing on Escape, its button focused")
}
