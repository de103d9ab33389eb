package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestTeacherScoresARevealedExercise: a revealed exercise scores 0 unless
// the teacher says otherwise. Ada gives up on a number and then answers it
// right (0); Cy gives up without answering. The teacher scores them 0.5
// and 0.25, and the grid, both CSVs and the learners' pages show those
// scores as "revealed, scored", and OnScoreChange hears of both. A review
// of Bo's unrevealed choose-several is refused naming exercise. Before,
// every review of a checker-graded exercise was refused.
func TestTeacherScoresARevealedExercise(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		var mu sync.Mutex
		var changes []classroom.ScoreChange
		ts, _ := startServer(t, web.Config{Classroom: st, OnScoreChange: func(_ context.Context, ch classroom.ScoreChange) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, ch)
		}})
		base := ts.URL
		c := createClass(t, base, "Say otherwise")
		const num, choice, noTry = "outlive-lease", "four-failures", "crash-wait"
		ada, adaID := join(t, base, c.Code, "Ada")
		bo, boID := join(t, base, c.Code, "Bo")
		cy, cyID := join(t, base, c.Code, "Cy")

		wantStatus(t, ada.postJSON("/api/exercises/"+num+"/give-up", `{"variant":0}`), http.StatusOK, "give up")
		if res := answerAs(t, ada, num, expected(t, num, classVariant(t, st, c, adaID))); res["correct"] != true || res["score"] != float64(0) {
			t.Fatalf("right after giving up: %v, want right, score 0", res)
		}
		ff := strings.Split(expected(t, choice, classVariant(t, st, c, boID)), ", ")
		answerAs(t, bo, choice, ff[0])
		wantStatus(t, cy.postJSON("/api/exercises/"+noTry+"/give-up", `{"variant":0}`), http.StatusOK, "give up")

		mu.Lock()
		before := len(changes) // Bo's partial answer
		mu.Unlock()
		owner := teacher(t, base, c.TeacherKey)
		review := func(lid int64, ex, score string) answer {
			return owner.postJSON("/api/classes/"+c.Code+"/reviews",
				fmt.Sprintf(`{"learner_id":%d,"exercise":%q,"score":%s,"comment":"shown, but reasoned well"}`, lid, ex, score))
		}
		for _, a := range []answer{review(boID, choice, "1"), review(boID, num, "1")} {
			var e map[string]any
			a.decode(t, &e)
			if a.status != http.StatusBadRequest || e["field"] != "exercise" || !strings.Contains(fmt.Sprint(e["error"]), "only after it was revealed") {
				t.Errorf("a review of an unrevealed checker-graded exercise: %d %s, want 400 naming exercise", a.status, a.body)
			}
		}
		wantStatus(t, review(adaID, num, "0.5"), http.StatusOK, "review of a revealed number")
		wantStatus(t, review(cyID, noTry, "0.25"), http.StatusOK, "review of a revealed exercise never answered")

		mu.Lock()
		got := append([]classroom.ScoreChange(nil), changes[before:]...)
		mu.Unlock()
		if len(got) != 2 || got[0].LearnerID != adaID || got[0].Exercise != num || got[0].Score != 0.5 || got[0].Previous != 0 ||
			got[1].LearnerID != cyID || got[1].Exercise != noTry || got[1].Score != 0.25 {
			t.Errorf("score changes %+v: want Ada's %s to 0.5, then Cy's %s to 0.25", got, num, noTry)
		}

		d := readDashboard(t, owner, c.Code)
		long := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress.csv").body, "exercise")
		wide := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body, "")
		for _, w := range []struct {
			name, ex, score string
			p               *person
		}{{"Ada", num, "0.5", ada}, {"Cy", noTry, "0.25", cy}} {
			cell := d.cells[[2]string{w.name, w.ex}]
			if cell["status"] != classroom.StatusRevealedScored || cell["score"] != w.score || cell["text"] != "↺ "+w.score ||
				cell["state"] != "scored" || d.score[w.name] != w.score || d.solved[w.name] != 0 {
				t.Errorf("grid, %s: %v, Solved %v, score %v; want revealed, scored %s", w.name, cell, d.solved[w.name], d.score[w.name], w.score)
			}
			r := long[[2]string{w.name, w.ex}]
			if got := [5]string{r["score"], r["status"], r["revealed"], r["correct"], r["comment"]}; got != [5]string{w.score, "revealed, scored", "1", "0", "shown, but reasoned well"} {
				t.Errorf("progress.csv, %s: score, status, revealed, correct, comment %q", w.name, got)
			}
			if r := wide[[2]string{w.name, ""}]; r[w.ex] != w.score || r["score"] != w.score {
				t.Errorf("progress-wide.csv, %s: %v, want %s", w.name, r, w.score)
			}
			if got := learnerPageScores(t, w.p)[w.ex]; got != [2]string{"revealed, scored", w.score} {
				t.Errorf("%s's page: %v, want revealed, scored %s", w.name, got, w.score)
			}
			if page := w.p.get("/class/me"); !strings.Contains(page.body, "revealed, then scored by your teacher · score "+w.score) {
				t.Errorf("%s's page does not say the teacher scored the revealed exercise", w.name)
			}
		}
		if cell := d.cells[[2]string{"Bo", choice}]; cell["status"] != classroom.StatusPartial {
			t.Errorf("Bo's refused review changed his cell: %v", cell)
		}
	})
}
