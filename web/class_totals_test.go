package web_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// learnerTotals reads the learner's own page: how many exercises it says
// they solved, of how many, and their score, of how much.
func learnerTotals(t *testing.T, p *person) (solved, of int, score, outOf string) {
	t.Helper()
	page := p.get("/class/me")
	wantStatus(t, page, http.StatusOK, "the learner's page")
	text := text(oneByTestID(t, parseHTML(t, page.body), "learner-done"))
	m := regexp.MustCompile(`(\d+) of (\d+) exercises solved[\s\S]*Your score: (\d+(?:\.\d+)?) of (\d+(?:\.\d+)?)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the learner's totals %q", text)
	}
	solved, _ = strconv.Atoi(m[1])
	of, _ = strconv.Atoi(m[2])
	return solved, of, m[3], m[4]
}

// TestLearnerTotalsAreTheDashboards: the learner's own page gives the
// same "solved" count and score as the teacher's row for them (and the
// wide CSV's score), whatever the work: a checked exercise solved, an
// open answer the teacher gave full marks (solved, as the dashboard
// counts it), and an exercise the lessons no longer have (kept, and
// counted in every view, and listed on the learner's page). Before, the
// learner's page said 1 solved and a score of 2, the dashboard 3 and 3.
func TestLearnerTotalsAreTheDashboards(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		ts, _ := startServer(t, web.Config{Classroom: st})
		c := createClass(t, ts.URL, "Totals")
		ada, id := join(t, ts.URL, c.Code, "Ada")
		answerAs(t, ada, "outlive-lease", expected(t, "outlive-lease", classVariant(t, st, c, id)))
		answerAs(t, ada, "sms-twice", "An idempotency key the provider keeps.")
		owner := teacher(t, ts.URL, c.TeacherKey)
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/reviews",
			fmt.Sprintf(`{"learner_id":%d,"exercise":"sms-twice","score":1}`, id)), http.StatusOK, "review")
		record(t, st, ada, "a-retired-exercise", "x", true)

		d := readDashboard(t, owner, c.Code)
		wide := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body, "")
		solved, of, score, outOf := learnerTotals(t, ada)
		if d.solved["Ada"] != 3 || d.score["Ada"] != "3" {
			t.Errorf("the dashboard's row: %v solved, score %s; want 3 and 3", d.solved["Ada"], d.score["Ada"])
		}
		if float64(solved) != d.solved["Ada"] || score != d.score["Ada"] || wide[[2]string{"Ada", ""}]["score"] != score {
			t.Errorf("the learner's page says %d solved, score %s; the dashboard %v and %s; the wide CSV %s",
				solved, score, d.solved["Ada"], d.score["Ada"], wide[[2]string{"Ada", ""}]["score"])
		}
		want := len(catalog(t).Exercises()) + 1
		if of != want || outOf != strconv.Itoa(want) {
			t.Errorf("the learner's page counts %d exercises worth %s; want %d (the catalog's and the retired one)", of, outOf, want)
		}
		if got := learnerPageScores(t, ada)["a-retired-exercise"]; got != [2]string{classroom.StatusSolved, "1"} {
			t.Errorf("the retired exercise on the learner's page: %q, want solved, scored 1", got)
		}
	})
}
