package web_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/leaselab/playground/lti/ltitest"
)

// TestLTILessonScoreIsTheGradebooksLessonColumn: the score a lesson's
// link sends to the course's gradebook is the lesson's column of
// gradebook.csv?by=lesson, given and possible, and the line item the
// picker makes for the lesson is worth what that column is. Lesson 09
// has a prediction, a scenario and an open answer: Ada predicts right
// and the teacher scores her open answer 0.5, which is 1.5 of 3 in the
// gradebook. Before, the lesson's link left the open answer out and sent
// 1 of 2. While the open answer waits for the teacher, the lesson's score
// and the open answer's own are sent as partial ("PendingManual"), so the
// course's gradebook shows them as needing grading.
func TestLTILessonScoreIsTheGradebooksLessonColumn(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		lineItem := e.plat.LineItem("9")
		ada := newPerson(t, e.url)
		e.launchAs(ada, ltitest.Learner, "link-09", "lesson:side-effects", lineItem)
		openItem := e.plat.LineItem("10")
		e.launchAs(ada, ltitest.Learner, "link-sms-twice", "exercise:sms-twice", openItem)
		grace := newPerson(t, e.url)
		a := e.launchAs(grace, ltitest.Teacher, "link-09", "lesson:side-effects", lineItem)
		code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")

		if res := answerAs(t, ada, "sms-fencing-predict", "2"); res["correct"] != true {
			t.Fatalf("the right prediction: %v", res)
		}
		answerAs(t, ada, "sms-twice", "Give each text an idempotency key the provider keeps.")
		// Until the teacher scores it, the lesson's grade is partial: the
		// points so far, marked as needing grading.
		e.deliver()
		if s := lastScore(e.plat, lineItem); s == nil || !s.Given || s.ScoreGiven != 1 || s.ScoreMaximum != 3 || s.Grading != "PendingManual" || s.Activity != "Submitted" {
			t.Errorf("with the open answer waiting, the lesson's link was sent %+v; want 1 of 3, PendingManual", s)
		}
		// Nothing earned on it yet: no score, only that it awaits grading
		// (the gradebook export leaves the cell blank, not 0).
		if s := lastScore(e.plat, openItem); s == nil || s.Given || s.Grading != "PendingManual" {
			t.Errorf("the open answer's own link was sent %+v; want no score, PendingManual", s)
		}
		var me struct {
			Learner struct {
				ID int64 `json:"id"`
			} `json:"learner"`
		}
		ada.get("/api/me").decode(t, &me)
		wantStatus(t, grace.postJSON("/api/classes/"+code+"/reviews",
			fmt.Sprintf(`{"learner_id":%d,"exercise":"sms-twice","score":0.5}`, me.Learner.ID)), http.StatusOK, "the teacher's review")
		e.deliver()

		// The gradebook's lesson column: Ada's points, and the points
		// possible (Canvas's second row).
		plain := readCSV(t, grace.get("/api/classes/"+code+"/gradebook.csv?format=plain&by=lesson").body)
		canvas := readCSV(t, grace.get("/api/classes/"+code+"/gradebook.csv?format=canvas&by=lesson").body)
		given, err := strconv.ParseFloat(plain[1][colOf(t, plain[0], "side-effects")], 64)
		if err != nil {
			t.Fatalf("Ada's side-effects cell: %v (%v)", err, plain)
		}
		possible, err := strconv.ParseFloat(canvas[1][colOf(t, canvas[0], "side-effects")], 64)
		if err != nil {
			t.Fatalf("side-effects' points possible: %v (%v)", err, canvas)
		}
		if given != 1.5 || possible != 3 {
			t.Errorf("gradebook: %v of %v, want 1.5 of 3", given, possible)
		}

		if last := lastScore(e.plat, lineItem); last == nil || last.ScoreGiven != given || last.ScoreMaximum != possible || last.Grading != "FullyGraded" {
			t.Errorf("the lesson's link was sent %+v; the gradebook says %v of %v, fully graded", last, given, possible)
		}
		if s := lastScore(e.plat, openItem); s == nil || s.ScoreGiven != 0.5 || s.ScoreMaximum != 1 || s.Grading != "FullyGraded" {
			t.Errorf("the open answer's own link after the review was sent %+v; want 0.5 of 1, FullyGraded", s)
		}
		for _, c := range e.tool.Choices() {
			if c.Target == "lesson:side-effects" && (!c.Graded || c.Points != possible) {
				t.Errorf("the picker's lesson is %+v; the gradebook's column is worth %v", c, possible)
			}
			if c.Target == "exercise:sms-twice" && (!c.Graded || c.Points != 1) {
				t.Errorf("the open answer's link is %+v: the teacher's score has a column to go to", c)
			}
		}
	})
}

// colOf is the index of a CSV column by its header.
func colOf(t *testing.T, header []string, name string) int {
	t.Helper()
	for i, h := range header {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, header)
	return -1
}

// lastScore is the last score the platform got for a line item, or nil.
func lastScore(p *ltitest.Platform, lineItem string) *ltitest.Score {
	var last *ltitest.Score
	for _, s := range p.Scores() {
		if s.LineItem == lineItem {
			last = &s
		}
	}
	return last
}
