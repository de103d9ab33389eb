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
	rc := newRevealClass(t, s, "Class reveal", "Bo") // Ada answers right after the reveal; Bo first answers after it
	code, key := rc.code, rc.key
	revealNum(t, s, code, key)
	for _, l := range []*classroom.Session{rc.ada, rc.absent, rc.cy} {
		if a := mustRecord(t, s, l.Token, numAttempt(true)); a.Score != 0 || !a.AfterReveal || a.BestChange != nil {
			t.Errorf("%s's right answer after the class's reveal: score %v, after_reveal %v, best change %+v; want 0, true, none",
				l.Learner.Name, a.Score, a.AfterReveal, a.BestChange)
		}
	}
	if a := mustRecord(t, s, rc.absent.Token, classroom.Attempt{Exercise: "other", Answer: "x", Graded: true, Correct: true, Rule: classroom.RuleDeclining}); a.Score != 1 {
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

// testClassRevealNeverAnswered: the teacher's reveal is the whole
// class's, so a learner who had not answered the exercise, and one who
// joins the class after it, stand at "revealed" with 0, as after "show
// me" before any answer: not "not tried", a blank every gradebook leaves
// out of the total although nothing is left to earn. No try is counted
// for them, and their last activity does not move.
func testClassRevealNeverAnswered(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	rc := newRevealClass(t, s, "Class reveal, never answered", "Dee") // Dee answers only after the reveal
	code, key, dee := rc.code, rc.key, rc.absent
	revealNum(t, s, code, key)
	eve := mustJoin(t, s, code, "Eve") // joins after the reveal
	revealNum(t, s, code, key)         // the chart's button pressed again changes nothing

	d, err := s.Dashboard(ctx, code, key)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status string
		score  float64
	}{"Ada": {classroom.StatusRevealed, 0}, "Dee": {classroom.StatusRevealed, 0}, "Cy": {classroom.StatusSolved, 1}, "Eve": {classroom.StatusRevealed, 0}}
	seen := map[string]bool{}
	for _, p := range d.Progress {
		if p.Exercise != "num" {
			continue
		}
		seen[p.LearnerName] = true
		w := want[p.LearnerName]
		sc, scored := classroom.BestScore(p)
		if p.Status() != w.status || !scored || sc != w.score {
			t.Errorf("%s on the exercise revealed to the class: %q, score %v (scored %v); want %q, %v", p.LearnerName, p.Status(), sc, scored, w.status, w.score)
		}
		if (p.LearnerName == "Dee" || p.LearnerName == "Eve") && (p.Tries != 0 || !p.LastAt.IsZero() || !p.FirstAt.IsZero()) {
			t.Errorf("%s never answered: %d tries, first %v, last %v; want none", p.LearnerName, p.Tries, p.FirstAt, p.LastAt)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s has no standing on the exercise revealed to the class: every view reads that as not tried", name)
		}
	}
	if st := d.Stats([]string{"num"})[0]; st.Attempted != 2 || st.Tries != 2 || st.GaveUp != 0 {
		t.Errorf("the exercise's stats after the reveal: %+v; want the 2 who answered, 2 tries, none gave up", st)
	}

	// Dee answers after all: her answer earns nothing, and the row
	// takes its time.
	if a := mustRecord(t, s, dee.Token, numAttempt(true)); a.Score != 0 || !a.AfterReveal {
		t.Errorf("Dee's right answer after the reveal: score %v, after_reveal %v; want 0, true", a.Score, a.AfterReveal)
	}
	if d, err = s.Dashboard(ctx, code, key); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Progress {
		if p.Exercise == "num" && p.LearnerName == "Dee" && (p.Status() != classroom.StatusRevealed || p.Tries != 1 || p.FirstAt.IsZero() || p.LastAt.IsZero()) {
			t.Errorf("Dee after answering: %q, %d tries, first %v, last %v; want revealed, 1 try, timed", p.Status(), p.Tries, p.FirstAt, p.LastAt)
		}
	}

	// The teacher may say otherwise, for one who was not in the room.
	if _, err := s.Review(ctx, code, key, classroom.Review{LearnerID: eve.Learner.ID, Exercise: "num", Score: 1, Graded: true}); err != nil {
		t.Fatalf("the teacher's score for Eve on the exercise revealed before she came: %v", err)
	}
	if d, err = s.Dashboard(ctx, code, key); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Progress {
		if sc, _ := classroom.BestScore(p); p.Exercise == "num" && p.LearnerName == "Eve" && (p.Status() != classroom.StatusRevealedScored || sc != 1) {
			t.Errorf("Eve once the teacher scored her: %q %v, want %q 1", p.Status(), sc, classroom.StatusRevealedScored)
		}
	}
}

// revealClass is a class to reveal the exercise "num" to (revealNum):
// before the reveal Ada answered it wrong, Cy right, and absent had not
// answered.
type revealClass struct {
	id              int64
	code, key       string
	ada, absent, cy *classroom.Session
}

// newRevealClass makes the class, its three learners and their answers.
func newRevealClass(t *testing.T, s classroom.Store, name, absent string) revealClass {
	t.Helper()
	nc := mustCreate(t, s, name)
	rc := revealClass{id: nc.Class.ID, code: nc.Class.Code, key: nc.TeacherKey}
	rc.ada = mustJoin(t, s, rc.code, "Ada")
	rc.absent = mustJoin(t, s, rc.code, absent)
	rc.cy = mustJoin(t, s, rc.code, "Cy")
	mustRecord(t, s, rc.ada.Token, numAttempt(false))
	mustRecord(t, s, rc.cy.Token, numAttempt(true))
	return rc
}

// numAttempt is a checked answer to "num", scored by the declining rule.
func numAttempt(correct bool) classroom.Attempt {
	return classroom.Attempt{Exercise: "num", Answer: "x", Graded: true, Correct: correct, Rule: classroom.RuleDeclining}
}

// revealNum reveals the exercise "num" to the class, as the predictions
// chart's Reveal does.
func revealNum(t *testing.T, s classroom.Store, code, key string) {
	t.Helper()
	if _, err := s.UpdateSettings(context.Background(), code, key, func(cur classroom.Settings) (classroom.Settings, error) {
		if !cur.RevealedToClass("num") {
			cur.Revealed = append(cur.Revealed, "num")
		}
		return cur, nil
	}); err != nil {
		t.Fatal(err)
	}
}
