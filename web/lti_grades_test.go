package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/lti/ltitest"
)

// gradesBody is GET /api/classes/{code}/lti/grades.
type gradesBody struct {
	Course      string `json:"course"`
	Sent        int    `json:"sent"`
	Waiting     int    `json:"waiting"`
	GivenUp     int    `json:"given_up"`
	State       string `json:"state"`
	SentText    string `json:"sent_text"`
	WaitingText string `json:"waiting_text"`
	GivenUpText string `json:"given_up_text"`
	Problem     string `json:"problem"`
	LastError   string `json:"last_error"`
}

// TestLTIGradesGivenUpShownAndSentAgain: a score the queue gave up on
// after a day of a failing platform is on the teacher's dashboard and in
// the teacher API, in plain words; "Send again" (teacher key, same site
// only) has it sent, and the panel says so. A class with no course shows
// no panel and its API answers 404.
func TestLTIGradesGivenUpShownAndSentAgain(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		ctx := context.Background()
		e := startLTI(t, kind)
		course := e.gradedCourse()
		ada, grace, code := course.ada, course.grace, course.code
		api := "/api/classes/" + code + "/lti/grades"

		checkRight(t, ada)
		e.plat.FailScores(1000)
		for range 24 { // a day of the queue's passes, an hour apart
			e.deliver()
			e.clock.Advance(time.Hour)
		}
		var g gradesBody
		a := grace.get(api)
		wantStatus(t, a, http.StatusOK, "the class's grades")
		a.decode(t, &g)
		if g.Course != "Distributed Systems 101" || g.Sent != 0 || g.Waiting != 0 || g.GivenUp != 1 || g.State != "given-up" ||
			g.GivenUpText != "1 score given up after the last try" ||
			g.Problem != "The course's gradebook was not working (it answered 503 Service Unavailable)." ||
			!strings.Contains(g.LastError, "503") {
			t.Errorf("the grades after a day of a failing platform: %s", a.body)
		}
		page := grace.get("/class/" + code + "/teacher")
		wantStatus(t, page, http.StatusOK, "the dashboard")
		doc := parseHTML(t, page.body)
		if got := text(oneByTestID(t, doc, "grades-out")); !strings.Contains(got, "Grades to Distributed Systems 101") ||
			!strings.Contains(got, "1 score given up after the last try") || !strings.Contains(got, "not working (it answered 503") {
			t.Errorf("the dashboard's panel reads %q", got)
		}
		if _, hidden := attr(oneByTestID(t, doc, "grades-retry"), "hidden"); hidden {
			t.Error("the dashboard hides Send again with a score given up")
		}

		// Only the class's teacher, from this site, sends again.
		wantStatus(t, newPerson(t, e.url).postJSON(api+"/retry", `{}`), http.StatusUnauthorized, "Send again without the teacher key")
		wantStatus(t, grace.postJSON(api+"/retry", `{}`, "Origin", "https://elsewhere.example", "Sec-Fetch-Site", "cross-site"),
			http.StatusForbidden, "Send again from another site")

		e.plat.FailScores(0)
		var r struct {
			Scores  int        `json:"scores"`
			Reveals int        `json:"reveals"`
			Grades  gradesBody `json:"grades"`
		}
		a = grace.postJSON(api+"/retry", `{}`)
		wantStatus(t, a, http.StatusOK, "Send again")
		a.decode(t, &r)
		if r.Scores != 1 || r.Reveals != 0 || r.Grades.GivenUp != 0 || r.Grades.Waiting != 1 || r.Grades.WaitingText != "1 score waiting, next try now" {
			t.Errorf("Send again answered %s; want 1 score re-armed and waiting, next try now", a.body)
		}
		if sent, err := e.tool.Deliver(ctx); err != nil || sent != 1 {
			t.Fatalf("the queue after Send again sent %d (%v); want the score", sent, err)
		}
		if got := e.plat.Scores(); len(got) != 1 || got[0].UserID != ltitest.Learner.Sub || got[0].ScoreGiven != 1 {
			t.Errorf("the course got %+v; want Ada's 1", got)
		}
		grace.get(api).decode(t, &g)
		if g.Sent != 1 || g.GivenUp != 0 || g.Waiting != 0 || g.State != "sent" || g.SentText != "1 score sent" {
			t.Errorf("the grades once sent: %+v", g)
		}

		// A class with no course on the same server: no panel, and 404.
		c := createClass(t, e.url, "No course")
		owner := teacher(t, e.url, c.TeacherKey)
		wantStatus(t, owner.get("/api/classes/"+c.Code+"/lti/grades"), http.StatusNotFound, "the grades of a class with no course")
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/lti/grades/retry", `{}`), http.StatusNotFound, "Send again for a class with no course")
		if n := byTestID(parseHTML(t, owner.get("/class/"+c.Code+"/teacher").body), "grades-out"); len(n) != 0 {
			t.Error("the dashboard of a class with no course shows a grades panel")
		}
	})
}
