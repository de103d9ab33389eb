package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// TestADeadlineMovedLaterPutsEarlierWorkOnTime: a teacher who extends the
// deadline (or clears it) gives the learners who answered between the two
// deadlines what they earned: every view says solved, with the score,
// and the answer says how many were lifted. Moving it earlier marks
// nothing late after the fact.
func TestADeadlineMovedLaterPutsEarlierWorkOnTime(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Extended")
		ada, adaID := join(t, base, c.Code, "Ada")
		owner := teacher(t, base, c.TeacherKey)
		settings := "/api/classes/" + c.Code + "/settings"
		id := "lock-writes-per-second"
		wantStatus(t, owner.postJSON(settings, `{"deadline":"2001-01-01T00:00:00Z"}`), http.StatusOK, "a past deadline")
		res := answerAs(t, ada, id, expected(t, id, classVariant(t, st, c, adaID)))
		if res["score"] != 0.0 {
			t.Fatalf("a right answer after the deadline scored %v", res["score"])
		}
		// The learner is told, not only shown "Right".
		if fb, _ := res["feedback"].(string); !strings.HasPrefix(fb, "After the class's deadline: this answer is kept for your teacher, marked late") {
			t.Errorf("a late right answer says %q", fb)
		}
		if cell := readDashboard(t, owner, c.Code).cells[[2]string{"Ada", id}]; cell["status"] != classroom.StatusLate {
			t.Fatalf("before the extension: %v, want late", cell)
		}

		a := owner.postJSON(settings, `{"deadline":"2099-01-01T00:00:00Z"}`)
		wantStatus(t, a, http.StatusOK, "the deadline moved later")
		var saved struct {
			LateLifted int `json:"late_lifted"`
		}
		a.decode(t, &saved)
		if saved.LateLifted != 1 {
			t.Errorf("the extension says %d learners' exercises were lifted, want 1", saved.LateLifted)
		}
		d := readDashboard(t, owner, c.Code)
		if cell := d.cells[[2]string{"Ada", id}]; cell["status"] != classroom.StatusSolved || d.score["Ada"] != "1" {
			t.Errorf("after the extension: cell %v, score %q; want solved, 1", cell, d.score["Ada"])
		}
		if got := learnerPageScores(t, ada)[id]; got[1] != "1" {
			t.Errorf("the learner's page after the extension: %v, want a score of 1", got)
		}

		// Earlier again: what was on time stays so.
		wantStatus(t, owner.postJSON(settings, `{"deadline":"2001-01-01T00:00:00Z"}`), http.StatusOK, "the deadline moved back")
		if cell := readDashboard(t, owner, c.Code).cells[[2]string{"Ada", id}]; cell["status"] != classroom.StatusSolved {
			t.Errorf("after the deadline moved earlier: %v, want still solved", cell)
		}
	})
}
