package storetest

import (
	"context"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// testClassReveal: once the teacher showed the whole class an exercise's
// answer (Settings.Revealed, the predictions chart's reveal), an attempt
// at it is after the reveal: a right answer earns nothing and reads
// revealed, for a learner who had tried before and for one who had not.
// What was earned before stands, and other exercises are not touched.
func testClassReveal(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "Class reveal")
	code, key := nc.Class.Code, nc.TeacherKey
	ada := mustJoin(t, s, code, "Ada") // wrong before the reveal, right after
	bo := mustJoin(t, s, code, "Bo")   // first answers after the reveal
	cy := mustJoin(t, s, code, "Cy")   // right before the reveal
	num := func(correct bool) classroom.Attempt {
		return classroom.Attempt{Exercise: "num", Answer: "x", Graded: true, Correct: correct, Rule: classroom.RuleDeclining}
	}
	mustRecord(t, s, ada.Token, num(false))
	mustRecord(t, s, cy.Token, num(true))

	if _, err := s.UpdateSettings(ctx, code, key, func(cur classroom.Settings) (classroom.Settings, error) {
		cur.Revealed = append(cur.Revealed, "num")
		return cur, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*classroom.Session{ada, bo, cy} {
		if a := mustRecord(t, s, l.Token, num(true)); a.Score != 0 || !a.AfterReveal || a.BestChange != nil {
			t.Errorf("%s's right answer after the class's reveal: score %v, after_reveal %v, best change %+v; want 0, true, none",
				l.Learner.Name, a.Score, a.AfterReveal, a.BestChange)
		}
	}
	if a := mustRecord(t, s, bo.Token, classroom.Attempt{Exercise: "other", Answer: "x", Graded: true, Correct: true, Rule: classroom.RuleDeclining}); a.Score != 1 {
		t.Errorf("a right first answer to an exercise not revealed: score %v, want 1", a.Score)
	}

	d, err := s.Dashboard(ctx, code, key)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status string
		score  float64
	}{"Ada": {classroom.StatusRevealed, 0}, "Bo": {classroom.StatusRevealed, 0}, "Cy": {classroom.StatusSolved, 1}}
	for _, p := range d.Progress {
		if p.Exercise != "num" {
			continue
		}
		w := want[p.LearnerName]
		if sc, _ := classroom.BestScore(p); p.Status() != w.status || sc != w.score {
			t.Errorf("%s on the revealed exercise: %s, score %v; want %s, %v", p.LearnerName, p.Status(), sc, w.status, w.score)
		}
	}
}
