package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestE2EArchivedClassChartShowsTheAnswer: on an archived class, which
// takes no reveal (the server answers 409), the predictions chart's
// button only shows and hides the answer's marks: it asks nothing, posts
// nothing and shows no error, and the class's settings stay unrevealed.
// Before, the button posted the reveal and, refused, left the marks off
// with the refusal as an error.
func TestE2EArchivedClassChartShowsTheAnswer(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st}) // skips without PLAYGROUND_E2E=1 or a chromium
	pred := firstPrediction(t)

	tc := b.isolatedTab("/class")
	b.do(tc,
		chromedp.SetValue(chromedp.ID("class-name"), "Week 5"),
		chromedp.Click(chromedp.CSS("[data-testid=create-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=class-code]")))
	code := strings.TrimSpace(run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=class-code]"))))
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=open-dashboard]")), chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")))
	b.waitUntil(tc, `document.getElementById('live-status').textContent.startsWith('Live')`, "the dashboard going live")
	ctx := context.Background()
	for i, v := range []string{"30", "20"} {
		s, err := st.Join(ctx, code, fmt.Sprintf("Learner %d", i+1))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Record(ctx, s.Token, classroom.Attempt{Exercise: pred.ID, Answer: v, Parsed: v, Correct: v == "30", Graded: true}); err != nil {
			t.Fatal(err)
		}
	}
	b.do(tc, chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.ID("archive-class")))
	b.waitUntil(tc, `document.getElementById('lifecycle').dataset.status === 'archived'`, "the dashboard showing the class archived")

	b.do(tc, choose("#poll-exercise", pred.ID))
	b.waitUntil(tc, `document.querySelectorAll('[data-testid=poll-row]').length === 2 && document.getElementById('poll-reveal').textContent === 'Show the answer'`,
		"the archived class's chart, offering to show the answer")
	b.do(tc, chromedp.Evaluate[chromedp.Void](`window.confirm = () => { throw new Error('asked') }`), chromedp.Click(chromedp.CSS("[data-testid=poll-reveal]")))
	b.waitUntil(tc, `document.getElementById('poll-reveal').textContent === 'Hide the answer' && !!document.querySelector('[data-testid=poll-row][data-right=true]')`,
		"Show marking the answer without asking")
	if got := run(b, tc, chromedp.Evaluate[string](`document.getElementById('dash-error').hidden + '|' + document.getElementById('dash-error').textContent + '|' + document.getElementById('poll-state').textContent`)); got != "true||" {
		t.Errorf("after Show on an archived class the dashboard reads %q (error hidden|error|state)", got)
	}
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=poll-reveal]")))
	b.waitUntil(tc, `document.getElementById('poll-reveal').textContent === 'Show the answer' && !document.querySelector('[data-testid=poll-row][data-right=true]')`,
		"Hide taking the marks off")
	// Opened afresh, the chart does not mark the answer by itself: the
	// class's settings have no reveal of it.
	b.do(tc, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")), choose("#poll-exercise", pred.ID))
	b.waitUntil(tc, `document.querySelectorAll('[data-testid=poll-row]').length === 2 && document.getElementById('poll-reveal').textContent === 'Show the answer'`,
		"the chart opened afresh")
	if n := run(b, tc, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=poll-row][data-right=true]').length`)); n != 0 {
		t.Error("showing the answer on an archived class's chart revealed it to the class")
	}
}
