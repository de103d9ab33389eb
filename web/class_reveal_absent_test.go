package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

// TestClassRevealStandsForLearnersWhoNeverAnswered: the teacher reveals
// an exercise to the class. Dee, who had not answered it, and Eve, who
// joins after, stand at "revealed" with 0 in every view: the grid and
// its total, the gradebook, progress.csv, the grid CSV and their own
// page. Before, they read "not tried" and a blank, which a course's
// gradebook leaves out of the total, though the exercise can earn them
// nothing now, while Ada, wrong before the reveal, had her 0 counted.
func TestClassRevealStandsForLearnersWhoNeverAnswered(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		ts, _ := startServer(t, web.Config{Classroom: st})
		c := createClass(t, ts.URL, "Reveal, absent")
		owner := teacher(t, ts.URL, c.TeacherKey)
		ada, _ := join(t, ts.URL, c.Code, "Ada")
		dee, _ := join(t, ts.URL, c.Code, "Dee")
		const ex = "outlive-lease"
		answerAs(t, ada, ex, "1")
		revealToClass(t, owner, c.Code, ex)
		eve, _ := join(t, ts.URL, c.Code, "Eve")

		d := readDashboard(t, owner, c.Code)
		book := csvBy(t, owner.get("/api/classes/"+c.Code+"/gradebook.csv?format=plain").body, "")
		long := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress.csv").body, "exercise")
		wide := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body, "")
		for _, l := range []struct {
			name string
			p    *person
		}{{"Ada", ada}, {"Dee", dee}, {"Eve", eve}} {
			cell := d.cells[[2]string{l.name, ex}]
			status, _ := cell["status"].(string)
			got := []string{status, d.score[l.name], book[[2]string{l.name, ""}][ex],
				long[[2]string{l.name, ex}]["status"], long[[2]string{l.name, ex}]["score"], long[[2]string{l.name, ex}]["revealed"],
				wide[[2]string{l.name, ""}][ex]}
			want := []string{classroom.StatusRevealed, "0", "0", classroom.StatusRevealed, "0", "1", "0"}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s: grid, total, gradebook, progress.csv status, score, revealed, grid CSV = %q; want %q", l.name, got, want)
			}
			if own := learnerPageScores(t, l.p)[ex]; own != [2]string{classroom.StatusRevealed, "0"} {
				t.Errorf("%s's own page: %q, want revealed, 0", l.name, own)
			}
		}
		if stats := d.stats[ex]; stats["attempted"] != 1.0 || stats["gave_up"] != 0.0 {
			t.Errorf("the exercise's row: %v; want 1 attempted (Ada), none gave up", stats)
		}
	})
}

// TestClassRevealReachesTheCourse: a learner who came by a graded link
// and had not answered stands at 0 once the teacher reveals the exercise
// to the class, in the course's gradebook as in the export.
func TestClassRevealReachesTheCourse(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		item := e.plat.LineItem("12")
		const ex = "outlive-lease"
		ada := newPerson(t, e.url)
		e.launchAs(ada, ltitest.Learner, "link-outlive", "exercise:"+ex, item)
		grace := newPerson(t, e.url)
		a := e.launchAs(grace, ltitest.Teacher, "link-outlive", "exercise:"+ex, item)
		code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")
		revealToClass(t, grace, code, ex)
		if _, err := e.tool.Deliver(context.Background()); err != nil {
			t.Fatal(err)
		}
		book := readCSV(t, grace.get("/api/classes/"+code+"/gradebook.csv?format=plain").body)
		cell := book[1][colOf(t, book[0], ex)]
		s := lastScore(e.plat, item)
		if cell != "0" || s == nil || s.UserID != ltitest.Learner.Sub || !s.Given || s.ScoreGiven != 0 {
			t.Errorf("after the reveal the gradebook says %q and the course was sent %+v; want 0 in both", cell, s)
		}
	})
}
