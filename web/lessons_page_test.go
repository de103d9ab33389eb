package web_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

var paragraphRE = regexp.MustCompile(`(?s)<(p|li)>(.*?)</(p|li)>`)

// secrets are the pieces of an exercise's worked solution (or model
// answer) long enough to be its own, and the caption of the playground it
// opens: none may be in a page before the answer is earned.
func secrets(t *testing.T, cat *lessons.Catalog, ex *lessons.Exercise, variant int) []string {
	t.Helper()
	_, sol, err := ex.Solution(variant)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range paragraphRE.FindAllStringSubmatch(sol, -1) {
		if len(m[2]) >= 40 {
			out = append(out, m[2])
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no paragraph of its solution to look for", ex.ID)
	}
	if c := cat.GateCaption(ex.ID); c != "" {
		out = append(out, html.EscapeString(c))
	}
	return out
}

// TestNoSolutionInAnyLessonPage: before a learner tries, no lesson page
// holds any exercise's worked solution or model answer, nor the caption
// of a playground that waits for a prediction, and the solution boxes are
// empty and hidden. Checked for every exercise of every lesson, for an
// anonymous learner on the lesson's numbers and for a class learner on
// their own.
func TestNoSolutionInAnyLessonPage(t *testing.T) {
	cat := catalog(t)
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Week 10")
		learner, id := join(t, base, c.Code, "Ada")
		mine := classVariant(t, st, c, id)
		for _, who := range []struct {
			name    string
			p       *person
			variant int
		}{{"anonymous", newPerson(t, base), 0}, {"class learner", learner, mine}} {
			for _, l := range cat.Lessons() {
				page := who.p.get("/lessons/" + l.Slug)
				wantStatus(t, page, http.StatusOK, l.Slug)
				for _, ex := range cat.LessonExercises(l) {
					for _, secret := range secrets(t, cat, ex, who.variant) {
						if strings.Contains(page.body, secret) {
							t.Errorf("%s, %s: the page holds part of %s's answer: %q", who.name, l.Slug, ex.ID, secret)
						}
					}
				}
				doc := parseHTML(t, page.body)
				for _, sol := range byTestID(doc, "solution") {
					if _, hidden := attr(sol, "hidden"); !hidden || text(oneByTestID(t, sol, "solution-body")) != "" {
						t.Errorf("%s, %s: a solution box is shown or filled before any try", who.name, l.Slug)
					}
				}
			}
		}
	})
}

// TestEveryLessonOpensWithAPrediction: each lesson's first playground
// waits for a prediction (a choice or a number) placed just before it, and
// no prediction of a lesson waits for the end of the lesson.
func TestEveryLessonOpensWithAPrediction(t *testing.T) {
	cat := catalog(t)
	ts, _ := startServer(t, web.Config{})
	for _, l := range cat.Lessons() {
		if len(l.Playgrounds) == 0 {
			t.Errorf("%s has no playground", l.Slug)
			continue
		}
		first := l.Playgrounds[0]
		if first.Predict == "" {
			t.Errorf("%s: the first playground (%s) asks for no prediction", l.Slug, first.Preset)
			continue
		}
		ex, err := cat.Exercise(first.Predict)
		if err != nil || ex.Kind != lessons.KindPredict {
			t.Errorf("%s: the first playground waits for %q, not a prediction", l.Slug, first.Predict)
		}
		doc := parseHTML(t, mustGet(t, ts.URL+"/lessons/"+l.Slug))
		fig := byTestID(doc, "playground")[0]
		if got, _ := attr(fig, "data-predict"); got != first.Predict {
			t.Errorf("%s: the first figure waits for %q", l.Slug, got)
		}
		forms := byTestID(oneByTestID(t, doc, "lesson-body"), "exercise")
		if len(forms) == 0 {
			t.Fatalf("%s: no exercise in the text", l.Slug)
		}
		if got, _ := attr(forms[0], "data-gate"); got != "true" {
			t.Errorf("%s: the first exercise in the text does not open a playground", l.Slug)
		}
	}
}

// TestExerciseFormsFitTheirKind: each kind gets the inputs it needs, from
// the exercise as served: options as checkboxes or radios, a scenario's
// fields with their starting values and ranges, a text area for an open
// answer, a text field for a number.
func TestExerciseFormsFitTheirKind(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	form := func(slug, id string) *xhtml.Node {
		t.Helper()
		doc := parseHTML(t, mustGet(t, ts.URL+"/lessons/"+slug))
		for _, f := range byTestID(doc, "exercise") {
			if got, _ := attr(f, "data-exercise"); got == id {
				return f
			}
		}
		t.Fatalf("no form for %s on %s", id, slug)
		return nil
	}
	boxes := findAll(form("four-failures", "four-failures"), func(n *xhtml.Node) bool { v, _ := attr(n, "type"); return v == "checkbox" })
	if len(boxes) != 7 {
		t.Errorf("four-failures: %d checkboxes, want 7", len(boxes))
	}
	var paths []string
	settings := byTestID(form("where-the-lock-lives", "duplicate-token-backend"), "setting")
	for _, s := range settings {
		p, _ := attr(s, "data-path")
		paths = append(paths, p)
	}
	if strings.Join(paths, ",") != "lock.backend,lock.nodes,lock.replication_lag,lock.persist_every" {
		t.Errorf("duplicate-token-backend settings %q", paths)
	}
	lj := form("leases", "long-job-config")
	if v, _ := attr(byTestID(lj, "setting")[0], "value"); v != "30s" {
		t.Errorf("the lease field starts at %q, want 30s", v)
	}
	if !strings.Contains(text(lj), "from 1s to 10m") {
		t.Error("the scenario form does not say a field's range")
	}
	if len(findAll(form("side-effects", "sms-twice"), func(n *xhtml.Node) bool { return n.Data == "textarea" })) != 1 {
		t.Error("sms-twice has no text area")
	}
	if len(byTestID(form("side-effects", "sms-twice"), "show-me")) != 0 {
		t.Error("an open question offers to show its answer before one is written")
	}
	ol := form("leases", "outlive-lease")
	if !strings.Contains(text(oneByTestID(t, ol, "exercise-prompt")), "5,000 runs") {
		t.Error("the outlive-lease prompt does not show the notes' numbers")
	}
	if len(byTestID(ol, "new-numbers")) != 1 || len(byTestID(ol, "show-me")) != 1 {
		t.Error("outlive-lease offers neither other numbers nor show me")
	}
}
