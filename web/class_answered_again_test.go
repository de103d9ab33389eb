package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// TestAnAnswerSinceTheScoreIsToMarkAgain: a learner answers an open
// question, the teacher scores it 0.25, and the learner answers again
// (after the deadline). Before, the new answer showed "scored 0.25"
// with the old comment, was not counted among the answers to mark, and
// nothing said it was late. Now the card says the score was the earlier
// answer's and the answer came late, it counts among those to mark, the
// grid and progress.csv say "resubmitted", the learner's page says the
// score is for the earlier answer, and the earned 0.25 still counts.
func TestAnAnswerSinceTheScoreIsToMarkAgain(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Again")
		ada, id := join(t, base, c.Code, "Ada")
		owner := teacher(t, base, c.TeacherKey)
		answerAs(t, ada, "sms-twice", "A longer lease.")
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/reviews",
			fmt.Sprintf(`{"learner_id":%d,"exercise":"sms-twice","score":0.25,"comment":"Say why a lease cannot help."}`, id)), http.StatusOK, "review")
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/settings", `{"deadline":"2001-01-01T00:00:00Z"}`), http.StatusOK, "a past deadline")
		// The store keeps times to the millisecond: the new answer comes
		// at least one after the review, as any a person writes does.
		time.Sleep(2 * time.Millisecond)
		answerAs(t, ada, "sms-twice", "An idempotency key the provider keeps for a day.")

		d := readDashboard(t, owner, c.Code)
		answers := d.raw["answers"].([]any)
		card := answers[0].(map[string]any)
		if card["rescore"] != true || card["late"] != true || !strings.Contains(card["answer"].(string), "idempotency") {
			t.Errorf("the newest card: %v", card)
		}
		if cell := d.cells[[2]string{"Ada", "sms-twice"}]; cell["status"] != classroom.StatusResubmitted || cell["score"] != "0.25" {
			t.Errorf("the grid cell: %v", cell)
		}
		page := parseHTML(t, owner.get("/class/"+c.Code+"/teacher").body)
		if got := text(oneByTestID(t, page, "jump-to-mark")); got != "1 answer to mark" {
			t.Errorf("the header counts %q", got)
		}
		if got := text(oneByTestID(t, page, "review-state")); got != "not scored yet: 0.25 was for an earlier answer" {
			t.Errorf("the card's score line says %q", got)
		}
		if len(byTestID(page, "answer-late")) != 1 {
			t.Error("the card does not say the answer came after the deadline")
		}
		long := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress.csv").body, "exercise")
		if r := long[[2]string{"Ada", "sms-twice"}]; r["status"] != classroom.StatusResubmitted || r["score"] != "0.25" {
			t.Errorf("progress.csv: %v", r)
		}
		words := text(oneByTestID(t, parseHTML(t, ada.get("/class/me").body), "learner-done"))
		if !strings.Contains(words, "Your score: 0.25 of") {
			t.Errorf("the learner's total: %q", words)
		}
		var found bool
		for _, w := range byTestID(parseHTML(t, ada.get("/class/me").body), "learner-exercise-words") {
			if strings.Contains(text(w), "your teacher's score is for your earlier answer") {
				found = true
			}
		}
		if !found {
			t.Error("the learner's page does not say the score is for the earlier answer")
		}
	})
}

// TestAThirdReadsTheSameEverywhere: a score of 1/3 sent through the API
// read 0.3333333333333333 on the grid and in the progress CSVs, 0.333333
// in the gradebook; every view now writes it to the millionth.
func TestAThirdReadsTheSameEverywhere(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Thirds")
		ada, id := join(t, base, c.Code, "Ada")
		owner := teacher(t, base, c.TeacherKey)
		answerAs(t, ada, "sms-twice", "A key the provider keeps.")
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/reviews",
			fmt.Sprintf(`{"learner_id":%d,"exercise":"sms-twice","score":%v}`, id, 1.0/3)), http.StatusOK, "review")
		views := map[string]string{
			"grid":          readDashboard(t, owner, c.Code).cells[[2]string{"Ada", "sms-twice"}]["score"].(string),
			"progress.csv":  csvBy(t, owner.get("/api/classes/"+c.Code+"/progress.csv").body, "exercise")[[2]string{"Ada", "sms-twice"}]["score"],
			"wide csv":      csvBy(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body, "")[[2]string{"Ada", ""}]["sms-twice"],
			"gradebook.csv": csvBy(t, owner.get("/api/classes/"+c.Code+"/gradebook.csv?format=plain").body, "")[[2]string{"Ada", ""}]["sms-twice"],
			"learner page":  learnerPageScores(t, ada)["sms-twice"][1],
		}
		for where, v := range views {
			if v != "0.333333" {
				t.Errorf("%s writes a third as %q", where, v)
			}
		}
	})
}
