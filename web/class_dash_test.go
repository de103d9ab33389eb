package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/leaselab/playground/lessons"
)

// TestDashboardFoldsUntriedExercises: the dashboard as the server renders
// it, before any live update, lists only the exercises someone tried, in
// lesson order, folds the others into one line, and heads the learners
// grid with the tried exercises' titles (ids kept in data-exercise); with
// nothing tried yet it says so instead of showing an empty table.
func TestDashboardFoldsUntriedExercises(t *testing.T) {
	st := openSQLite(t)
	base := startClass(t, st)
	cat, err := lessons.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids := catalogIDs(t)
	c := createClass(t, base, "Fold")
	owner := teacher(t, base, c.TeacherKey)
	page := func() string {
		t.Helper()
		a := owner.get("/class/" + c.Code + "/teacher")
		wantStatus(t, a, http.StatusOK, "dashboard")
		return a.body
	}

	doc := parseHTML(t, page())
	if _, hidden := attr(oneByTestID(t, doc, "dash-none-tried"), "hidden"); hidden {
		t.Error("with nothing tried, the dashboard does not say so")
	}
	if n := len(byTestID(doc, "dash-exercise")); n != 0 {
		t.Errorf("with nothing tried, the table has %d rows", n)
	}
	if got, want := text(oneByTestID(t, doc, "dash-untried-summary")), fmt.Sprintf("%d exercises not tried yet", len(ids)); got != want {
		t.Errorf("the fold reads %q, want %q", got, want)
	}

	p, _ := join(t, base, c.Code, "Ada")
	last, first := ids[len(ids)-1], ids[0]
	record(t, st, p, last, "1", false)
	record(t, st, p, first, "1", true)
	doc = parseHTML(t, page())
	var rows []string
	for _, r := range byTestID(doc, "dash-exercise") {
		id, _ := attr(r, "data-exercise")
		rows = append(rows, id)
	}
	if strings.Join(rows, " ") != first+" "+last {
		t.Errorf("the table lists %q, want the two tried exercises in lesson order [%s %s]", rows, first, last)
	}
	if got, want := text(oneByTestID(t, doc, "dash-untried-summary")), fmt.Sprintf("%d exercises not tried yet", len(ids)-2); got != want {
		t.Errorf("the fold reads %q, want %q", got, want)
	}
	untried := byTestID(doc, "untried-exercise")
	if len(untried) != len(ids)-2 {
		t.Fatalf("%d exercises in the fold, want %d", len(untried), len(ids)-2)
	}
	if id, _ := attr(untried[0], "data-exercise"); id != ids[1] {
		t.Errorf("the fold starts with %s, want %s (lesson order)", id, ids[1])
	}
	if _, hidden := attr(oneByTestID(t, doc, "dash-none-tried"), "hidden"); !hidden {
		t.Error("the dashboard says nothing was tried while two exercises were")
	}

	heads := findAll(doc, func(n *html.Node) bool {
		cl, _ := attr(n, "class")
		return n.Data == "th" && strings.Contains(cl, "ex-col")
	})
	if len(heads) != 2 {
		t.Fatalf("the grid has %d exercise columns, want 2 (the tried ones)", len(heads))
	}
	for i, id := range []string{first, last} {
		ex, err := cat.Exercise(id)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := attr(heads[i], "data-exercise")
		tip, _ := attr(heads[i], "title")
		if got != id || tip != ex.Title || strings.TrimSpace(text(heads[i])) != ex.Title {
			t.Errorf("column %d: data-exercise %q, title %q, text %q; want %s headed %q", i, got, tip, text(heads[i]), id, ex.Title)
		}
	}
	if n := len(findAll(doc, func(n *html.Node) bool {
		cl, _ := attr(n, "class")
		return n.Data == "td" && strings.HasPrefix(cl, "cell")
	})); n != 2 {
		t.Errorf("Ada's row has %d exercise cells, want 2", n)
	}
}
