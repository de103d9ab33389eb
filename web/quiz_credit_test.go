package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// TestQuizModeTakesNoGuessesAfterTheLastTry: in quiz mode the answer is
// never shown, so the wrong try that would have shown it is the last one
// taken: a learner cannot guess on until something scores. Their third
// wrong try says so; a fourth check is refused (409, quiz_tries_used,
// naming the exercise); once the class leaves quiz mode a right answer is
// practice, as after the answer was shown, and every view says revealed,
// with no credit.
func TestQuizModeTakesNoGuessesAfterTheLastTry(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Quiz")
		ada, adaID := join(t, base, c.Code, "Ada")
		owner := teacher(t, base, c.TeacherKey)
		settings := "/api/classes/" + c.Code + "/settings"
		wantStatus(t, owner.postJSON(settings, `{"show_me":false}`), http.StatusOK, "quiz mode on")
		id := "lock-writes-per-second"
		right := expected(t, id, classVariant(t, st, c, adaID))

		for i := 1; i <= classroom.CreditTries; i++ {
			res := answerAs(t, ada, id, "1")
			if res["correct"] == true {
				t.Fatalf("1 is right for %s: pick a wrong answer", id)
			}
			last := strings.Contains(res["feedback"].(string), "the last this exercise takes in quiz mode")
			if last != (i == classroom.CreditTries) {
				t.Errorf("wrong try %d says it is the last: %v (%q)", i, last, res["feedback"])
			}
		}
		a := ada.postJSON("/api/exercises/"+id+"/check", `{"answer":`+jsonString(right)+`}`)
		wantStatus(t, a, http.StatusConflict, "a fourth try in quiz mode")
		if !strings.Contains(a.body, `"code":"quiz_tries_used"`) || !strings.Contains(a.body, `"field":"exercise"`) {
			t.Errorf("a fourth try in quiz mode: %s, want quiz_tries_used naming exercise", a.body)
		}

		wantStatus(t, owner.postJSON(settings, `{"show_me":true}`), http.StatusOK, "quiz mode off")
		res := answerAs(t, ada, id, right)
		if res["correct"] != true || res["score"] != 0.0 || !strings.HasPrefix(res["feedback"].(string), "Right, after three wrong tries") {
			t.Errorf("the right answer after quiz mode: correct %v score %v %q, want right, 0, and why", res["correct"], res["score"], res["feedback"])
		}
		d := readDashboard(t, owner, c.Code)
		cell := d.cells[[2]string{"Ada", id}]
		if cell["status"] != classroom.StatusRevealed || d.solved["Ada"] != 0 || d.score["Ada"] != "0" {
			t.Errorf("the dashboard: cell %v, solved %v, score %q; want revealed, 0 solved, 0", cell, d.solved["Ada"], d.score["Ada"])
		}
		if got := learnerPageScores(t, ada)[id]; got[1] != "0" {
			t.Errorf("the learner's page: %v, want a score of 0", got)
		}
	})
}

// TestCreditEndsWhereTheAnswerIsShown: the store ends an exercise's
// credit after classroom.CreditTries wrong tries, and the checker shows
// the answer after lessons.RevealAfter; the two are one rule written in
// two packages (the store knows no catalog), so they must not drift.
func TestCreditEndsWhereTheAnswerIsShown(t *testing.T) {
	if classroom.CreditTries != lessons.RevealAfter {
		t.Fatalf("credit ends after %d wrong tries, the answer is shown after %d", classroom.CreditTries, lessons.RevealAfter)
	}
}
