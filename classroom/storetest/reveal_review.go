package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// testRevealedReview: a teacher may score a checker-graded exercise once
// its answer was revealed to the learner, with or without an attempt, and
// the score is the exercise's; before the reveal, or after a right answer,
// the checker's score stands and the review is refused naming exercise.
func testRevealedReview(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "Revealed")
	code, key := nc.Class.Code, nc.TeacherKey
	ada := mustJoin(t, s, code, "Ada") // gives up without a try
	bo := mustJoin(t, s, code, "Bo")   // half a choose-several, then gives up
	cy := mustJoin(t, s, code, "Cy")   // one wrong try, not revealed
	dee := mustJoin(t, s, code, "Dee") // right, then looks at the answer
	if _, err := s.GiveUp(ctx, ada.Token, "num", 0); err != nil {
		t.Fatal(err)
	}
	mustRecord(t, s, bo.Token, classroom.Attempt{Exercise: "several", Answer: "a", Graded: true, Share: 0.5, Rule: classroom.RulePartial})
	if _, err := s.GiveUp(ctx, bo.Token, "several", 0); err != nil {
		t.Fatal(err)
	}
	mustRecord(t, s, cy.Token, classroom.Attempt{Exercise: "num", Answer: "1", Graded: true, Rule: classroom.RuleDeclining})
	mustRecord(t, s, dee.Token, classroom.Attempt{Exercise: "num", Answer: "50", Graded: true, Correct: true, Share: 1, Rule: classroom.RuleDeclining})
	if _, err := s.GiveUp(ctx, dee.Token, "num", 0); err != nil {
		t.Fatal(err)
	}

	r, err := s.Review(ctx, code, key, classroom.Review{LearnerID: ada.Learner.ID, Exercise: "num", Score: 0.5, Graded: true})
	if err != nil || r.Previous == nil || *r.Previous != 0 {
		t.Fatalf("a review of a revealed exercise with no attempt: %+v %v, want accepted, previous 0", r, err)
	}
	if r, err = s.Review(ctx, code, key, classroom.Review{LearnerID: bo.Learner.ID, Exercise: "several", Score: 1, Graded: true}); err != nil || r.Previous == nil || *r.Previous != 0.5 {
		t.Fatalf("a first review after a partial score: %+v %v, want previous 0.5", r, err)
	}
	for _, l := range []*classroom.Session{cy, dee} {
		_, err := s.Review(ctx, code, key, classroom.Review{LearnerID: l.Learner.ID, Exercise: "num", Score: 1, Graded: true})
		var ce *classroom.Error
		if !errors.As(err, &ce) || ce.Code != classroom.EINVALID || !strings.HasPrefix(ce.Message, "exercise: ") {
			t.Errorf("a review of %s's unrevealed (or solved) exercise: %v, want EINVALID naming exercise", l.Learner.Name, err)
		}
	}

	d, err := s.Dashboard(ctx, code, key)
	if err != nil {
		t.Fatal(err)
	}
	wants := map[[2]string]struct {
		status string
		score  float64
	}{
		{"Ada", "num"}:    {classroom.StatusRevealedScored, 0.5},
		{"Bo", "several"}: {classroom.StatusRevealedScored, 1},
		{"Cy", "num"}:     {classroom.StatusWrong, 0},
		{"Dee", "num"}:    {classroom.StatusSolved, 1},
	}
	for _, p := range d.Progress {
		w := wants[[2]string{p.LearnerName, p.Exercise}]
		if sc, _ := classroom.BestScore(p); p.Status() != w.status || sc != w.score {
			t.Errorf("%s on %s: %q %v, want %q %v", p.LearnerName, p.Exercise, p.Status(), sc, w.status, w.score)
		}
	}
	if len(d.Progress) != len(wants) {
		t.Errorf("%d progress rows, want %d", len(d.Progress), len(wants))
	}
}

// testRegradeAfterRevealedReview: a teacher's score of a revealed
// exercise is its score while it is not solved, in every view and in what
// a regrade reports (the passback's news). A regrade that finds the try
// from before the reveal right solves it: the checker's score stands
// again, and the change says so; a regrade that moves an unsolved
// revealed exercise's attempts leaves the teacher's score, and reports no
// change.
func testRegradeAfterRevealedReview(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "Regraded")
	code, key := nc.Class.Code, nc.TeacherKey
	ada := mustJoin(t, s, code, "Ada") // answers 45, marked wrong, gives up; 45 was right
	bo := mustJoin(t, s, code, "Bo")   // half a choose-several, gives up, scored 1
	a1 := mustRecord(t, s, ada.Token, classroom.Attempt{Exercise: "num", Answer: "45", Graded: true, Rule: classroom.RuleDeclining})
	b1 := mustRecord(t, s, bo.Token, classroom.Attempt{Exercise: "several", Answer: "a", Graded: true, Share: 0.5, Rule: classroom.RulePartial})
	for _, g := range []struct {
		token, ex string
	}{{ada.Token, "num"}, {bo.Token, "several"}} {
		if _, err := s.GiveUp(ctx, g.token, g.ex, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []classroom.Review{
		{LearnerID: ada.Learner.ID, Exercise: "num", Score: 0.25, Graded: true},
		{LearnerID: bo.Learner.ID, Exercise: "several", Score: 1, Graded: true},
	} {
		if _, err := s.Review(ctx, code, key, r); err != nil {
			t.Fatal(err)
		}
	}

	ch, err := s.Rescore(ctx, code, key, "num", classroom.RuleDeclining, nil, []classroom.Verdict{{AttemptID: a1.ID, Correct: true, Share: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || ch[0].Score != 1 || ch[0].Previous != 0.25 {
		t.Errorf("the regrade that solves Ada's exercise reports %+v, want one change from 0.25 to 1", ch)
	}
	ch, err = s.Rescore(ctx, code, key, "several", classroom.RulePartial, nil, []classroom.Verdict{{AttemptID: b1.ID, Share: 0.75}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 0 {
		t.Errorf("a regrade under Bo's revealed, scored exercise reports %+v, want none: the teacher's 1 stands", ch)
	}

	d, err := s.Dashboard(ctx, code, key)
	if err != nil {
		t.Fatal(err)
	}
	wants := map[string]struct {
		status string
		score  float64
		done   bool
	}{
		"Ada": {classroom.StatusSolved, 1, true},
		"Bo":  {classroom.StatusRevealedScored, 1, false},
	}
	for _, p := range d.Progress {
		w := wants[p.LearnerName]
		if sc, _ := classroom.BestScore(p); p.Status() != w.status || sc != w.score || p.Done() != w.done {
			t.Errorf("%s on %s after the regrades: %q %v solved %v, want %q %v solved %v", p.LearnerName, p.Exercise, p.Status(), sc, p.Done(), w.status, w.score, w.done)
		}
	}
}
