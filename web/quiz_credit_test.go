package web_test

import (
	"net/http"
	"strings"
	"sync"
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

// TestQuizModeTriesHoldForChecksSentAtOnce: checks sent at once (two
// tabs, a double click) all passed the tries count read before the
// check, and 4 to 8 of 8 were taken, each answering whether it was right.
// The store counts the tries in the write: of eight sent at once, three
// are taken and five refused with quiz_tries_used and no verdict.
func TestQuizModeTriesHoldForChecksSentAtOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Quiz at once")
		ada, _ := join(t, base, c.Code, "Ada")
		owner := teacher(t, base, c.TeacherKey)
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/settings", `{"show_me":false}`), http.StatusOK, "quiz mode on")
		id := "lock-writes-per-second"
		const at = 8
		results := make(chan answer, at)
		var wg sync.WaitGroup
		for range at {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results <- ada.postJSON("/api/exercises/"+id+"/check", `{"answer":"1"}`)
			}()
		}
		wg.Wait()
		close(results)
		taken, refused := 0, 0
		for a := range results {
			switch a.status {
			case http.StatusOK:
				taken++
			case http.StatusConflict:
				refused++
				if !strings.Contains(a.body, `"code":"quiz_tries_used"`) || strings.Contains(a.body, `"correct"`) {
					t.Errorf("a refused check: %s", a.body)
				}
			default:
				t.Errorf("a check answered %d: %s", a.status, a.body)
			}
		}
		if taken != classroom.CreditTries || refused != at-classroom.CreditTries {
			t.Errorf("of %d checks at once, %d taken and %d refused; want %d taken", at, taken, refused, classroom.CreditTries)
		}
		if cell := readDashboard(t, owner, c.Code).cells[[2]string{"Ada", id}]; cell["tries"] != float64(classroom.CreditTries) {
			t.Errorf("the grid counts %v tries, want %d", cell["tries"], classroom.CreditTries)
		}
	})
}
