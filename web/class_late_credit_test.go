package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

// postLateCredit sends the teacher's late credit for a learner.
func postLateCredit(t *testing.T, owner *person, code string, learnerID int64, ex string, credit bool) map[string]any {
	t.Helper()
	a := owner.postJSON("/api/classes/"+code+"/late-credit", fmt.Sprintf(`{"learner_id":%d,"exercise":%q,"credit":%v}`, learnerID, ex, credit))
	wantStatus(t, a, http.StatusOK, "late credit")
	var out map[string]any
	a.decode(t, &out)
	return out
}

// TestLateCreditThroughHTTP: in a class whose deadline has passed, Ada
// answers a number wrong then right, Bo gets two of the four right options
// of a choose-several, Cy answers right: all late, all worth nothing. The
// teacher credits Ada's and Bo's late work: Ada earns what the second try
// earns on time (0.75), Bo his share (0.5), each change is passed on as
// any new best is (OnScoreChange, what feeds the LTI queue), and every
// view agrees; Cy still has 0. Withdrawing the credit takes it back. Bad
// bodies are refused naming the field.
func TestLateCreditThroughHTTP(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		var mu sync.Mutex
		var changes []classroom.ScoreChange
		ts, _ := startServer(t, web.Config{Classroom: st, OnScoreChange: func(_ context.Context, ch classroom.ScoreChange) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, ch)
		}})
		base := ts.URL
		c := createClass(t, base, "Late work")
		owner := teacher(t, base, c.TeacherKey)
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/settings", `{"deadline":"2001-01-01T00:00:00Z"}`), http.StatusOK, "a past deadline")
		ada, adaID := join(t, base, c.Code, "Ada")
		bo, boID := join(t, base, c.Code, "Bo")
		cy, cyID := join(t, base, c.Code, "Cy")
		_, deeID := join(t, base, c.Code, "Dee")
		answerAs(t, ada, "outlive-lease", "1")
		if res := answerAs(t, ada, "outlive-lease", expected(t, "outlive-lease", classVariant(t, st, c, adaID))); res["correct"] != true || res["score"] != float64(0) {
			t.Fatalf("a late right answer: %v, want right and 0", res)
		}
		keys := strings.Split(expected(t, "four-failures", classVariant(t, st, c, boID)), ", ")
		answerAs(t, bo, "four-failures", strings.Join(keys[:2], ", "))
		answerAs(t, cy, "outlive-lease", expected(t, "outlive-lease", classVariant(t, st, c, cyID)))

		path := "/api/classes/" + c.Code + "/late-credit"
		for body, field := range map[string]string{
			`{}`:                                  "learner_id",
			`{"learner_id":-3,"exercise":"x"}`:    "learner_id",
			`{"learner_id":1}`:                    "exercise",
			`{"learner_id":1,"exercise":"nope"}`:  "exercise",
			`{"learner_id":"one","exercise":"x"}`: "learner_id",
			`{"learner_id":1,"exercise":"outlive-lease","credit":"yes"}`:      "credit",
			`{"learner_id":1,"exercise":"` + strings.Repeat("x", 5000) + `"}`: "exercise",
		} {
			var e struct{ Field string }
			a := owner.postJSON(path, body)
			a.decode(t, &e)
			if a.status != http.StatusBadRequest || e.Field != field {
				t.Errorf("late credit %.60s: %d %s, want 400 naming %s", body, a.status, a.body, field)
			}
		}
		if a := newPerson(t, base).postJSON(path, fmt.Sprintf(`{"learner_id":%d,"exercise":"outlive-lease"}`, adaID)); a.status != http.StatusUnauthorized {
			t.Errorf("late credit without the key: %d", a.status)
		}
		if a := owner.postJSON(path, fmt.Sprintf(`{"learner_id":%d,"exercise":"outlive-lease"}`, deeID)); a.status != http.StatusNotFound {
			t.Errorf("late credit for a learner who never answered: %d %s, want 404", a.status, a.body)
		}

		if out := postLateCredit(t, owner, c.Code, adaID, "outlive-lease", true); out["changed"] != true || out["score"] != 0.75 || out["previous"] != float64(0) {
			t.Errorf("credit Ada's late work: %v, want 0 to 0.75", out)
		}
		if out := postLateCredit(t, owner, c.Code, boID, "four-failures", true); out["score"] != 0.5 {
			t.Errorf("credit Bo's late work: %v, want his share, 0.5", out)
		}
		mu.Lock()
		if len(changes) != 2 || changes[0].LearnerID != adaID || changes[0].Score != 0.75 || changes[0].ClassCode != c.Code ||
			changes[1].LearnerID != boID || changes[1].Score != 0.5 {
			t.Errorf("score changes passed on: %+v", changes)
		}
		mu.Unlock()

		people := map[string]*person{"Ada": ada, "Bo": bo, "Cy": cy}
		got := viewsAgree(t, owner, c.Code, people)
		for k, want := range map[[2]string]string{{"Ada", "outlive-lease"}: "0.75", {"Bo", "four-failures"}: "0.5", {"Cy", "outlive-lease"}: "0"} {
			if got[k] != want {
				t.Errorf("%s on %s: every view says %q, want %s", k[0], k[1], got[k], want)
			}
		}
		rows := readCSV(t, owner.get("/api/classes/"+c.Code+"/attempts.csv").body)
		var ada2 []string
		for _, r := range rows[1:] {
			if r[0] == "Ada" {
				ada2 = append(ada2, r[6]+" "+r[7]+" late="+r[10])
			}
		}
		if strings.Join(ada2, ", ") != "wrong 0 late=1, right 0.75 late=1" {
			t.Errorf("Ada's attempts: %v, want both still late, the right one 0.75", ada2)
		}
		if page := ada.get("/class/me"); !strings.Contains(page.body, "late, counted by your teacher") {
			t.Errorf("Ada's page does not say her late work was counted")
		}
		d := readDashboard(t, owner, c.Code)
		if cell := d.cells[[2]string{"Ada", "outlive-lease"}]; cell["late"] != true || cell["late_credit"] != true || cell["status"] != "solved" {
			t.Errorf("Ada's cell: %v", cell)
		}
		if cell := d.cells[[2]string{"Cy", "outlive-lease"}]; cell["late"] != true || cell["late_credit"] != false || cell["status"] != "late" {
			t.Errorf("Cy's cell: %v", cell)
		}
		doc := parseHTML(t, owner.get("/class/"+c.Code+"/teacher").body)
		buttons := map[string]string{}
		for _, b := range byTestID(doc, "late-credit") {
			l, _ := attr(b, "data-learner")
			v, _ := attr(b, "data-credit")
			buttons[l] = v + " " + strings.TrimSpace(text(b))
		}
		if buttons[fmt.Sprint(cyID)] != "true Credit" || buttons[fmt.Sprint(adaID)] != "false Undo" {
			t.Errorf("the grid's late-credit buttons: %v", buttons)
		}

		if out := postLateCredit(t, owner, c.Code, adaID, "outlive-lease", false); out["score"] != float64(0) || out["previous"] != 0.75 {
			t.Errorf("withdraw Ada's credit: %v", out)
		}
		if got := viewsAgree(t, owner, c.Code, people); got[[2]string{"Ada", "outlive-lease"}] != "0" {
			t.Errorf("after withdrawing, the views say %q", got[[2]string{"Ada", "outlive-lease"}])
		}
	})
}

// TestLateCreditReachesTheLMS: a learner launched from the LMS answers
// right after the deadline, which earns nothing: the line item gets the
// 0 the gradebook export shows for it (attempted, nothing earned); the
// instructor credits the late work and the new best goes through the
// durable queue to the line item; withdrawn, the credit is taken back
// there too.
func TestLateCreditReachesTheLMS(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		ctx := context.Background()
		ada := newPerson(t, e.url)
		lineItem := e.plat.LineItem("9")
		e.launchAs(ada, ltitest.Learner, "link-ex", "exercise:outlive-lease", lineItem)
		var me struct {
			Learner classroom.Learner `json:"learner"`
			Class   struct{ Code string }
		}
		ada.get("/api/me").decode(t, &me)
		grace := newPerson(t, e.url)
		e.launchAs(grace, ltitest.Teacher, "link-ex", "exercise:outlive-lease", lineItem)
		code := me.Class.Code
		wantStatus(t, grace.postJSON("/api/classes/"+code+"/settings", `{"deadline":"2001-01-01T00:00:00Z"}`), http.StatusOK, "a past deadline")
		checkRight(t, ada)
		if sent, err := e.tool.Deliver(ctx); sent != 1 || err != nil {
			t.Fatalf("a late answer sent %d scores (%v); want its 0, as the gradebook export has it", sent, err)
		}
		postLateCredit(t, grace, code, me.Learner.ID, "outlive-lease", true)
		if sent, err := e.tool.Deliver(ctx); sent != 1 || err != nil {
			t.Fatalf("after the credit: %d sent, %v; want the new best sent", sent, err)
		}
		if got := e.plat.Scores(); len(got) != 2 || got[0].ScoreGiven != 0 || got[1].LineItem != lineItem || got[1].ScoreGiven != 1 || got[1].UserID != ltitest.Learner.Sub {
			t.Fatalf("the platform got %+v, want 0 and then 1 for Ada on the line item", got)
		}
		// Withdrawn, the credit leaves the course's gradebook too: the
		// platform keeps the last score posted, so the 0 is sent.
		postLateCredit(t, grace, code, me.Learner.ID, "outlive-lease", false)
		if sent, err := e.tool.Deliver(ctx); sent != 1 || err != nil {
			t.Fatalf("after withdrawing the credit: %d sent, %v; want the lowered score sent", sent, err)
		}
		if got := e.plat.Scores(); len(got) != 3 || got[2].ScoreGiven != 0 || got[2].UserID != ltitest.Learner.Sub {
			t.Fatalf("the platform got %+v, want Ada's 0, 1 and then her 0", got)
		}
	})
}
