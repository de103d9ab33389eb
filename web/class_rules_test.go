package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// The class's two rules over a learner's answers, quiz mode and the
// deadline, each decided in one place (asker.quizMode on the web side,
// classroom.HeldLate and classroom.Solves in the store) and held on every
// path a learner or a teacher can take.

// refusedInQuizMode fails unless a is quiz mode's 403.
func refusedInQuizMode(t *testing.T, a answer, what string) {
	t.Helper()
	var e struct{ Code string }
	a.decode(t, &e)
	if a.status != http.StatusForbidden || e.Code != "quiz_mode" {
		t.Errorf("%s in quiz mode: %d %s, want 403 quiz_mode", what, a.status, a.body)
	}
}

// TestQuizModeHoldsOnEveryPath: in quiz mode no path shows Ada an
// answer. A check that uses her third wrong try keeps the answer and the
// worked solution back, and so reveals nothing and costs her no credit (a
// right answer after it earns 0.25, not the 0 of a revealed exercise); a
// right choice and a submitted open answer come back without solution or
// model answer; giving up ("show me") and the solution answer 403; the
// exercise served again, as JSON or in the lesson page, does not say its
// answer is earned. Once the teacher ends quiz mode the solution opens.
// Before, the check's third wrong try answered with the expected answer
// and the solution, and an open answer with the model answer.
func TestQuizModeHoldsOnEveryPath(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Quiz")
		owner := teacher(t, base, c.TeacherKey)
		settings := "/api/classes/" + c.Code + "/settings"
		wantStatus(t, owner.postJSON(settings, `{"show_me":false}`), http.StatusOK, "quiz mode")
		ada, adaID := join(t, base, c.Code, "Ada")
		const id = "outlive-lease"

		// check: three wrong tries.
		var res map[string]any
		for i := 0; i < 3; i++ {
			res = answerAs(t, ada, id, "1")
		}
		for _, k := range []string{"expected", "solution", "solution_html", "timeline"} {
			if _, ok := res[k]; ok {
				t.Errorf("check, the third wrong try: the answer carries %q: %v", k, res)
			}
		}
		if res["revealed"] != false || strings.Contains(res["feedback"].(string), "here is the answer") {
			t.Errorf("check, the third wrong try: %v, want nothing revealed", res)
		}
		// show me: the lesson page's offer, and "give up" behind it.
		refusedInQuizMode(t, ada.postJSON("/api/exercises/"+id+"/give-up", `{"variant":0}`), "give up")
		page := parseHTML(t, ada.get("/lessons/leases").body)
		found := false
		for _, f := range byTestID(page, "exercise") {
			if ex, _ := attr(f, "data-exercise"); ex == id {
				found = true
				if earned, _ := attr(f, "data-earned"); earned != "false" {
					t.Errorf("show me: the lesson page says %s is earned (%q): it would fetch the solution", id, earned)
				}
			}
		}
		if !found {
			t.Errorf("show me: the lesson page has no form for %s", id)
		}
		// solution.
		refusedInQuizMode(t, ada.get("/api/exercises/"+id+"/solution"), "the solution")
		// review: the exercise served again.
		if s := getExercise(t, ada, id, 0); s.Earned {
			t.Errorf("review: the exercise JSON says earned after three tries in quiz mode")
		}
		// A fourth try: the third wrong one would have shown the answer
		// and ended the credit, so quiz mode takes no more (a guess could
		// only earn what a learner shown the answer cannot), and says
		// nothing of the answer.
		fourth := ada.postJSON("/api/exercises/"+id+"/check", `{"answer":`+jsonString(expected(t, id, classVariant(t, st, c, adaID)))+`}`)
		wantStatus(t, fourth, http.StatusConflict, "check, a fourth try in quiz mode")
		if strings.Contains(fourth.body, "correct") || !strings.Contains(fourth.body, "quiz_tries_used") {
			t.Errorf("check, a fourth try in quiz mode: %s, want quiz_tries_used and no verdict", fourth.body)
		}
		choice := answerAs(t, ada, "four-failures", expected(t, "four-failures", classVariant(t, st, c, adaID)))
		if choice["correct"] != true || choice["solution_html"] != nil {
			t.Errorf("check, a right choice: %v, want no solution", choice)
		}
		open := answerAs(t, ada, "sms-twice", "Give each reminder an idempotency key the provider keeps.")
		if open["submitted"] != true || open["model_answer"] != nil || open["solution"] != nil || open["revealed"] != false {
			t.Errorf("check, an open answer: %v, want submitted, no model answer", open)
		}

		// Quiz mode over: the answer earned is hers.
		wantStatus(t, owner.postJSON(settings, `{"show_me":true}`), http.StatusOK, "quiz mode off")
		wantStatus(t, ada.get("/api/exercises/"+id+"/solution"), http.StatusOK, "the solution after quiz mode")
		if s := getExercise(t, ada, id, 0); !s.Earned {
			t.Errorf("after quiz mode the exercise is not earned")
		}
	})
}

// TestDeadlineHoldsOnEveryPath: the deadline rule (late attempts kept,
// marked, earning nothing unless the teacher credits them) holds on a
// check, on a give-up and a right answer after it, on a regrade after a
// key is fixed, and on the teacher's credit. Bo answers in time, Ada and
// Cy after the deadline.
func TestDeadlineHoldsOnEveryPath(t *testing.T) {
	const id = "redlock-pause"
	broken := brokenChoiceKey(t)
	eachStore(t, func(t *testing.T, st classroom.Store) {
		tsBroken, _ := startServer(t, web.Config{Classroom: st, Lessons: broken})
		c := createClass(t, tsBroken.URL, "Deadline")
		ada, adaID := join(t, tsBroken.URL, c.Code, "Ada")
		bo, boID := join(t, tsBroken.URL, c.Code, "Bo")
		cy, cyID := join(t, tsBroken.URL, c.Code, "Cy")
		settings := "/api/classes/" + c.Code + "/settings"
		owner := teacher(t, tsBroken.URL, c.TeacherKey)
		// Option b is right; the broken key says c. Each answers b by the
		// letter their variant shows it under.
		b := func(lid int64) string { return letterOf(t, broken, id, classVariant(t, st, c, lid), "option-b") }
		answerAs(t, bo, id, b(boID))
		wantStatus(t, owner.postJSON(settings, `{"deadline":"2001-01-01T00:00:00Z"}`), http.StatusOK, "a past deadline")
		// check: late, kept, nothing earned.
		if res := answerAs(t, ada, id, b(adaID)); res["score"] != float64(0) {
			t.Errorf("check after the deadline: %v", res)
		}
		// give-up, then the shown answer: late and revealed, nothing.
		wantStatus(t, cy.postJSON("/api/exercises/outlive-lease/give-up", `{"variant":0}`), http.StatusOK, "give up")
		if res := answerAs(t, cy, "outlive-lease", expected(t, "outlive-lease", classVariant(t, st, c, cyID))); res["score"] != float64(0) {
			t.Errorf("a right answer after giving up, late: %v", res)
		}

		// regrade: the fixed key makes Bo's and Ada's b right; Bo's was in
		// time (1), Ada's late (still 0).
		var changes []classroom.ScoreChange
		tsFixed, _ := startServer(t, web.Config{Classroom: st, OnScoreChange: func(_ context.Context, ch classroom.ScoreChange) {
			changes = append(changes, ch)
		}})
		owner = teacher(t, tsFixed.URL, c.TeacherKey)
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/regrade", `{"exercise":"`+id+`"}`), http.StatusOK, "regrade")
		people := map[string]*person{"Ada": ada, "Bo": bo, "Cy": cy}
		got := viewsAgree(t, owner, c.Code, people)
		if got[[2]string{"Bo", id}] != "1" || got[[2]string{"Ada", id}] != "0" || got[[2]string{"Cy", "outlive-lease"}] != "0" {
			t.Errorf("after the regrade the views agree on %v: want Bo 1, Ada 0 (late), Cy 0", got)
		}
		long := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress.csv").body, "exercise")
		if s := long[[2]string{"Ada", id}]["status"]; s != classroom.StatusLate {
			t.Errorf("Ada's status after the regrade: %q, want late", s)
		}
		if len(changes) != 1 || changes[0].LearnerID != boID {
			t.Errorf("the regrade passed on %+v, want Bo's change only", changes)
		}
		// The teacher's credit: Ada's late b counts, as the fixed key reads it.
		if out := postLateCredit(t, owner, c.Code, adaID, id, true); out["score"] != float64(1) {
			t.Errorf("credit for Ada's late work after the regrade: %v", out)
		}
		if got := viewsAgree(t, owner, c.Code, people); got[[2]string{"Ada", id}] != "1" {
			t.Errorf("after the credit the views say %q for Ada", got[[2]string{"Ada", id}])
		}
	})
}
