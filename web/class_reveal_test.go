package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestClassRevealEndsCredit: the teacher reveals the right answer on the
// class's predictions chart (the dashboard's button, POST .../reveal), which the
// room sees on the projector. A learner who answers after it earns
// nothing, and every view says revealed: the check, the grid, the
// gradebook and the learner's own page. Before, Bo, who had not answered
// yet, typed the answer off the projector for full marks, and Ada, wrong
// once before, earned 0.75. Cy's answer from before the reveal keeps its
// point.
func TestClassRevealEndsCredit(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		ts, _ := startServer(t, web.Config{Classroom: st})
		c := createClass(t, ts.URL, "Reveal")
		owner := teacher(t, ts.URL, c.TeacherKey)
		ada, adaID := join(t, ts.URL, c.Code, "Ada")
		bo, boID := join(t, ts.URL, c.Code, "Bo")
		cy, cyID := join(t, ts.URL, c.Code, "Cy")
		const ex = "outlive-lease"
		answerAs(t, ada, ex, "1")
		answerAs(t, cy, ex, expected(t, ex, classVariant(t, st, c, cyID)))

		// Reading the chart with the right answer marked, as a link or a
		// prefetch can, reveals nothing; a reveal posted from another
		// site is refused. Only the dashboard's POST is the reveal.
		var marked struct {
			ClassRevealed bool `json:"class_revealed"`
		}
		owner.get("/api/classes/"+c.Code+"/predictions?exercise="+ex+"&reveal=1").decode(t, &marked)
		if marked.ClassRevealed {
			t.Error("the chart read with its answer marked says the class has been shown it")
		}
		if res := answerAs(t, cy, ex, expected(t, ex, classVariant(t, st, c, cyID))); strings.Contains(fmt.Sprint(res["feedback"]), "after the answer was shown") {
			t.Errorf("a GET of the marked chart ended the credit: Cy is told %q", res["feedback"])
		}
		wantStatus(t, owner.do("POST", "/api/classes/"+c.Code+"/reveal", "application/json", `{"exercise":"`+ex+`"}`, "Origin", "https://elsewhere.example", "Sec-Fetch-Site", "cross-site"),
			http.StatusForbidden, "a reveal posted from another site")
		// Only what the chart counts can be revealed: an open answer has
		// no right answer to show, and its credit is not the chart's to end.
		for _, other := range []string{"fencing-token-definition", "long-job-config"} {
			wantStatus(t, owner.do("POST", "/api/classes/"+c.Code+"/reveal", "application/json", `{"exercise":"`+other+`"}`),
				http.StatusBadRequest, "a reveal of "+other+", which the chart does not count")
		}
		var dash struct {
			Class struct {
				Settings struct{ Revealed []string }
			}
		}
		owner.get("/api/classes/"+c.Code+"/dashboard").decode(t, &dash)
		if len(dash.Class.Settings.Revealed) != 0 {
			t.Errorf("refused reveals left the class revealed %q", dash.Class.Settings.Revealed)
		}
		revealToClass(t, owner, c.Code, ex)

		for _, l := range []struct {
			name string
			p    *person
			id   int64
		}{{"Ada", ada, adaID}, {"Bo", bo, boID}} {
			res := answerAs(t, l.p, ex, expected(t, ex, classVariant(t, st, c, l.id)))
			if res["score"] != 0.0 || !strings.Contains(res["feedback"].(string), "after the answer was shown") {
				t.Errorf("%s's right answer after the class saw it: score %v, feedback %q; want 0, said to be practice", l.name, res["score"], res["feedback"])
			}
		}

		// The chart counts what the class thought before it was shown:
		// Bo's answer typed off the projector is not his prediction.
		// It says the class has been shown the answer, so a dashboard
		// opened later marks it again and asks nothing more.
		var counted struct {
			Total         int
			ClassRevealed bool `json:"class_revealed"`
		}
		owner.get("/api/classes/"+c.Code+"/predictions?exercise="+ex).decode(t, &counted)
		if counted.Total != 2 || !counted.ClassRevealed {
			t.Errorf("the chart counts %d first answers, class revealed %v; want 2 (Ada's and Cy's, from before the reveal), true", counted.Total, counted.ClassRevealed)
		}

		d := readDashboard(t, owner, c.Code)
		book := csvBy(t, owner.get("/api/classes/"+c.Code+"/gradebook.csv?format=plain").body, "")
		for name, want := range map[string][2]string{"Ada": {classroom.StatusRevealed, "0"}, "Bo": {classroom.StatusRevealed, "0"}, "Cy": {classroom.StatusSolved, "1"}} {
			cell := d.cells[[2]string{name, ex}]
			if cell["status"] != want[0] || d.score[name] != want[1] || book[[2]string{name, ""}][ex] != want[1] {
				t.Errorf("%s: the grid says %v (total %s), the gradebook %s; want %s, %s", name, cell["status"], d.score[name],
					book[[2]string{name, ""}][ex], want[0], want[1])
			}
		}
		if got := learnerPageScores(t, bo)[ex]; got != [2]string{classroom.StatusRevealed, "0"} {
			t.Errorf("Bo's own page: %q, want revealed, 0", got)
		}

		// The dashboard's settings form saves against the settings it
		// was drawn from, which now list the reveal.
		class := d.raw["class"].(map[string]any)
		seen, _ := json.Marshal(class["settings"])
		if !strings.Contains(string(seen), `"revealed":["`+ex+`"]`) {
			t.Errorf("the dashboard's settings %s do not list the reveal", seen)
		}
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/settings", `{"show_me":false,"if_unchanged":`+string(seen)+`}`),
			http.StatusOK, "the settings form's save after a reveal")
	})
}
