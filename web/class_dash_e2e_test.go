package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// TestE2EDashboardFoldsUntriedExercises: early in a class of 30, when the
// learners have tried only three exercises, the teacher's dashboard lists
// those three in lesson order and folds the rest into one line, so the
// open answers to mark are on the first screen at 1366x900; the learners
// grid is headed by the exercises' titles; and when someone tries a new
// exercise it leaves the fold live, without a reload. Screenshots at
// 1366x900 and 390x844, where the exercises are cards above the fold.
func TestE2EDashboardFoldsUntriedExercises(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st}) // skips without PLAYGROUND_E2E=1 or a chromium

	cat, err := lessons.Default()
	if err != nil {
		t.Fatal(err)
	}
	all := cat.Exercises()
	pos := map[string]int{}
	var text *lessons.Exercise
	var graded []*lessons.Exercise
	for i, ex := range all {
		pos[ex.ID] = i
		switch {
		case ex.Kind == "text" && text == nil:
			text = ex
		case ex.Kind == "choice" || ex.Kind == "number":
			graded = append(graded, ex)
		}
	}
	if text == nil || len(graded) < 3 {
		t.Fatalf("the catalog has no text exercise or fewer than three graded ones")
	}
	// Two graded exercises and an open one are tried at first; a third
	// graded one, later in the lessons, is tried while the teacher looks.
	first := []*lessons.Exercise{graded[len(graded)-2], graded[0], text}
	later := graded[len(graded)/2]

	tc := b.isolatedTab("/class")
	b.do(tc,
		chromedp.SetValue(chromedp.ID("class-name"), "Week 2"),
		chromedp.Click(chromedp.CSS("[data-testid=create-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=class-code]")))
	code := strings.TrimSpace(run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=class-code]"))))

	ctx := context.Background()
	var tokens []string
	for i := range 30 {
		s, err := st.Join(ctx, code, fmt.Sprintf("Learner %02d", i+1))
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, s.Token)
	}
	rec := func(token, ex, answer string, correct, graded bool) {
		t.Helper()
		if _, err := st.Record(ctx, token, classroom.Attempt{Exercise: ex, Answer: answer, Correct: correct, Graded: graded}); err != nil {
			t.Fatalf("record %s: %v", ex, err)
		}
	}
	for i, tok := range tokens {
		rec(tok, first[0].ID, "1", i%2 == 0, true)
		if i < 12 {
			rec(tok, first[1].ID, "1", i%3 == 0, true)
		}
		if i < 5 {
			rec(tok, text.ID, fmt.Sprintf("Learner %d's reasons, in a sentence or two.", i+1), false, false)
		}
	}

	b.size(tc, 1366, 900)
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=open-dashboard]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")))
	b.waitUntil(tc, `document.getElementById('live-status').textContent.startsWith('Live')`, "the dashboard going live")
	b.do(tc, chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))

	rows := func() []string {
		return run(b, tc, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid=dash-exercise]')].map(r => r.dataset.exercise)`))
	}
	inLessonOrder := func(ids ...string) []string {
		out := append([]string(nil), ids...)
		for i := 1; i < len(out); i++ {
			for j := i; j > 0 && pos[out[j]] < pos[out[j-1]]; j-- {
				out[j], out[j-1] = out[j-1], out[j]
			}
		}
		return out
	}
	want := inLessonOrder(first[0].ID, first[1].ID, text.ID)
	if got := rows(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the exercises table lists %q, want the tried ones in lesson order %q", got, want)
	}
	folded := func(n int) {
		t.Helper()
		sum := run(b, tc, chromedp.Text(chromedp.CSS("[data-testid=dash-untried-summary]")))
		if w := fmt.Sprintf("%d exercises not tried yet", n); sum != w {
			t.Errorf("the fold reads %q, want %q", sum, w)
		}
		if got := run(b, tc, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=untried-exercise]').length`)); got != n {
			t.Errorf("%d exercises in the fold, want %d", got, n)
		}
	}
	folded(len(all) - 3)
	if run(b, tc, chromedp.Evaluate[bool](`document.getElementById('dash-untried').open || document.querySelector('[data-testid=untried-exercise]').checkVisibility()`)) {
		t.Error("the untried exercises are shown, not folded")
	}

	// What needs marking is on the first screen: the heading and the first
	// answer, with the learners' grid starting on it too.
	b.waitUntil(tc, `document.querySelectorAll('[data-testid=answer-card]').length === 5`, "five open answers to mark")
	b.settle(tc)
	b.shot(tc, "", "dashboard-fold-1366x900")
	tops := run(b, tc, chromedp.Evaluate[[]float64](`['answer-count', 'dash-answers', 'learner-count'].map(id => document.getElementById(id).getBoundingClientRect().top)`))
	if tops[0] > 860 || tops[1] > 860 {
		t.Errorf("at 1366x900 the answers to mark start at y=%.0f (heading) and y=%.0f (first answer): below the first screen", tops[0], tops[1])
	}

	heads := func() []map[string]string {
		return run(b, tc, chromedp.Evaluate[[]map[string]string](`[...document.querySelectorAll('#dash-grid-head th.ex-col')].map(th => ({id: th.dataset.exercise, title: th.title, text: th.textContent.trim(), width: String(th.getBoundingClientRect().width)}))`))
	}
	checkHeads := func(ids []string) {
		t.Helper()
		hs := heads()
		if len(hs) != len(ids) {
			t.Fatalf("the learners grid has %d exercise columns, want %d (the tried ones): %v", len(hs), len(ids), hs)
		}
		for i, h := range hs {
			ex, err := cat.Exercise(ids[i])
			if err != nil {
				t.Fatal(err)
			}
			if h["id"] != ex.ID || h["text"] != ex.Title || h["title"] != ex.Title {
				t.Errorf("grid column %d is headed %q (tooltip %q, data-exercise %q), want the title %q of %s", i, h["text"], h["title"], h["id"], ex.Title, ex.ID)
			}
			var w float64
			fmt.Sscan(h["width"], &w)
			if w > 160 {
				t.Errorf("the grid column of %s is %.0f px wide: a long title is not cut short", ex.ID, w)
			}
		}
	}
	checkHeads(want)

	// Someone tries an exercise later in the lessons: it leaves the fold
	// and takes its place in lesson order, in the table and the grid.
	rec(tokens[7], later.ID, "1", false, true)
	sel := fmt.Sprintf(`[data-testid=dash-exercise][data-exercise=%q]`, later.ID)
	b.waitUntil(tc, fmt.Sprintf(`document.querySelector(%q) !== null`, sel), "the newly tried exercise in the table")
	want = inLessonOrder(first[0].ID, first[1].ID, text.ID, later.ID)
	if got := rows(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after a new try the table lists %q, want %q", got, want)
	}
	folded(len(all) - 4)
	if run(b, tc, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector('[data-testid=untried-exercise][data-exercise=%q]') !== null`, later.ID))) {
		t.Errorf("%s is still in the fold after it was tried", later.ID)
	}
	checkHeads(want)
	b.do(tc, chromedp.Evaluate[chromedp.Void](`document.getElementById('dash-learners-heading').scrollIntoView()`))
	b.shot(tc, "", "dashboard-grid-1366x900")
	if !run(b, tc, chromedp.Evaluate[bool](`window.notReloaded === true`)) {
		t.Error("the dashboard reloaded")
	}

	// Opened, the fold lists the rest with their lessons and stays open
	// through live updates.
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=dash-untried-summary]")))
	rec(tokens[8], later.ID, "2", false, true)
	b.waitUntil(tc, fmt.Sprintf(`document.querySelector(%q)?.textContent === '2'`, sel+` [data-testid=ex-attempted]`), "the second try counted")
	if !run(b, tc, chromedp.Evaluate[bool](`document.getElementById('dash-untried').open && document.querySelector('[data-testid=untried-exercise]').checkVisibility()`)) {
		t.Error("the opened fold closed itself on a live update")
	}
	b.shot(tc, "", "dashboard-fold-open-1366x900")

	// On a phone the tried exercises are cards, the fold a line under them.
	b.size(tc, 390, 844)
	b.do(tc, chromedp.Evaluate[chromedp.Void](`document.getElementById('dash-untried').open = false`))
	b.settle(tc)
	if d := run(b, tc, chromedp.Evaluate[string](fmt.Sprintf(`getComputedStyle(document.querySelector(%q)).display`, sel))); d != "grid" {
		t.Errorf("on a phone an exercise row is displayed %q, not as a card (grid)", d)
	}
	b.do(tc, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	b.shot(tc, "", "dashboard-top-390x844")
	b.do(tc, chromedp.Evaluate[chromedp.Void](`document.getElementById('dash-exercises-heading').scrollIntoView()`))
	b.shot(tc, "", "dashboard-fold-390x844")
	fold := run(b, tc, chromedp.Evaluate[[]float64](`(() => { const r = document.getElementById('dash-untried').getBoundingClientRect(); return [r.left, r.right]; })()`))
	if fold[0] < 0 || fold[1] > 390 {
		t.Errorf("on a phone the fold spans x=%.0f..%.0f, off the screen", fold[0], fold[1])
	}
	b.do(tc, chromedp.Evaluate[chromedp.Void](`document.getElementById('dash-learners-heading').scrollIntoView()`))
	b.shot(tc, "", "dashboard-grid-390x844")
}
