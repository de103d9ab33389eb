package web_test

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestTeacherThirdsAddUpAlike: a teacher scores two revealed exercises of
// one lesson a third each (typed 0.3333333333). The dashboard's total, the
// learner's own score, the gradebook's exercise columns summed and its
// lesson column are one number. The lesson column said 0.666667 while
// the dashboard and the learner's page said 0.666666: the total rounded
// each exercise before adding, the lesson's column after.
func TestTeacherThirdsAddUpAlike(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		ts, _ := startServer(t, web.Config{Classroom: st})
		c := createClass(t, ts.URL, "Thirds")
		owner := teacher(t, ts.URL, c.TeacherKey)
		ada, id := join(t, ts.URL, c.Code, "Ada")
		for _, ex := range []string{"two-leader-crashes", "lock-writes-per-second"} {
			wantStatus(t, ada.postJSON("/api/exercises/"+ex+"/give-up", `{"variant":0}`), http.StatusOK, "give up "+ex)
			wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/reviews",
				fmt.Sprintf(`{"learner_id":%d,"exercise":%q,"score":0.3333333333}`, id, ex)), http.StatusOK, "score "+ex)
		}
		d := readDashboard(t, owner, c.Code)
		byLesson := csvBy(t, owner.get("/api/classes/"+c.Code+"/gradebook.csv?format=plain&by=lesson").body, "")
		byExercise := csvBy(t, owner.get("/api/classes/"+c.Code+"/gradebook.csv?format=plain").body, "")
		_, _, own, _ := learnerTotals(t, ada)
		lesson := byLesson[[2]string{"Ada", ""}]["sizing"]
		cells := byExercise[[2]string{"Ada", ""}]
		var summed float64
		fmt.Sscan(cells["two-leader-crashes"], &summed)
		var second float64
		fmt.Sscan(cells["lock-writes-per-second"], &second)
		// As a spreadsheet shows the sum, to the millionth the cells are in.
		sum := strconv.FormatFloat(math.Round((summed+second)*1e6)/1e6, 'f', -1, 64)
		if d.score["Ada"] != lesson || own != lesson || sum != lesson {
			t.Errorf("two thirds: the dashboard says %s, the learner's page %s, the exercise columns add up to %s, the lesson column %s; want one number",
				d.score["Ada"], own, sum, lesson)
		}
	})
}
