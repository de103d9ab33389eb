package storetest

import (
	"context"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// testCredit: scores per attempt by the credit rules, the best kept; a
// right answer after the answer was shown earns nothing and reads as
// revealed; a teacher's score is an open answer's score; mistakes made
// after a right answer are not the learner's misconceptions; Attempts
// lists every attempt and Rescore reworks them after a key was fixed.
func testCredit(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "Credit")
	code, key := nc.Class.Code, nc.TeacherKey
	if len(nc.Class.VariantSecret) != 32 {
		t.Fatalf("a class's variant secret has %d bytes, want 32", len(nc.Class.VariantSecret))
	}
	other := mustCreate(t, s, "Other")
	if string(other.Class.VariantSecret) == string(nc.Class.VariantSecret) {
		t.Fatal("two classes share a variant secret")
	}
	ada := mustJoin(t, s, code, "Ada")
	bo := mustJoin(t, s, code, "Bo")
	cy := mustJoin(t, s, code, "Cy")
	num := func(tok, ans string, correct bool) *classroom.Attempt {
		return mustRecord(t, s, tok, classroom.Attempt{Exercise: "num", Answer: ans, Graded: true, Correct: correct,
			Rule: classroom.RuleDeclining, Share: map[bool]float64{true: 1}[correct], Parsed: ans})
	}

	// Ada: wrong, then right: 0.75, solved. A wrong answer after that is
	// no misconception of hers.
	num(ada.Token, "40", false)
	a := num(ada.Token, "50", true)
	if a.Score != 0.75 || a.AfterReveal || a.BestChange == nil || a.BestChange.Score != 0.75 || a.BestChange.Previous != 0 {
		t.Fatalf("right after one wrong try: %+v (change %+v), want 0.75, a new best", a, a.BestChange)
	}
	if a := num(ada.Token, "7", false); a.BestChange != nil || a.Score != 0 {
		t.Fatalf("a wrong try after the right one: %+v", a)
	}
	// Bo gives up, then types the shown answer: practice, 0, revealed.
	if _, err := s.GiveUp(ctx, bo.Token, "num", 0); err != nil {
		t.Fatal(err)
	}
	b := num(bo.Token, "50", true)
	if b.Score != 0 || !b.AfterReveal || b.BestChange != nil {
		t.Fatalf("right after giving up: %+v, want score 0, after the reveal, no new best", b)
	}
	// Cy: three wrong tries, the third of which showed the answer; then
	// right: nothing.
	num(cy.Token, "1", false)
	num(cy.Token, "2", false)
	mustRecord(t, s, cy.Token, classroom.Attempt{Exercise: "num", Answer: "3", Graded: true, Rule: classroom.RuleDeclining, Reveals: true})
	if c := num(cy.Token, "50", true); c.Score != 0 || !c.AfterReveal {
		t.Fatalf("right after the answer was shown by the third wrong try: %+v", c)
	}
	// A prediction earns only at the first try; a choose-several its share.
	mustRecord(t, s, ada.Token, classroom.Attempt{Exercise: "pred", Answer: "x", Graded: true, Rule: classroom.RuleFirstTry})
	if p := mustRecord(t, s, ada.Token, classroom.Attempt{Exercise: "pred", Answer: "y", Graded: true, Correct: true, Share: 1, Rule: classroom.RuleFirstTry}); p.Score != 0 {
		t.Fatalf("a prediction right at the second try: %+v", p)
	}
	if p := mustRecord(t, s, bo.Token, classroom.Attempt{Exercise: "several", Answer: "a", Graded: true, Share: 0.5, Rule: classroom.RulePartial}); p.Score != 0.5 || p.BestChange == nil {
		t.Fatalf("half a choose-several: %+v", p)
	}
	// An open answer: the second one was written after the model answer
	// showed (the first one's submission showed it); the teacher scores it.
	mustRecord(t, s, cy.Token, classroom.Attempt{Exercise: "essay", Answer: "first go", Rule: classroom.RuleTeacher, Reveals: true})
	if e := mustRecord(t, s, cy.Token, classroom.Attempt{Exercise: "essay", Answer: "second go", Rule: classroom.RuleTeacher, Reveals: true}); !e.AfterReveal {
		t.Fatalf("a second open answer, after the model answer showed: %+v", e)
	}
	r, err := s.Review(ctx, code, key, classroom.Review{LearnerID: cy.Learner.ID, Exercise: "essay", Score: 1})
	if err != nil || r.Previous != nil {
		t.Fatalf("first review: %+v %v, want no previous score", r, err)
	}
	if r, err = s.Review(ctx, code, key, classroom.Review{LearnerID: cy.Learner.ID, Exercise: "essay", Score: 0.5}); err != nil || r.Previous == nil || *r.Previous != 1 {
		t.Fatalf("second review: %+v %v, want previous score 1", r, err)
	}
	answers, err := s.Answers(ctx, code, key)
	if err != nil || len(answers) != 2 || answers[0].AfterReveal || !answers[1].AfterReveal {
		t.Fatalf("open answers %+v %v: want the second marked as written after the model answer", answers, err)
	}

	d, err := s.Dashboard(ctx, code, key)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		status string
		score  float64
		done   bool
	}
	wants := map[[2]string]want{
		{"Ada", "num"}:    {classroom.StatusSolved, 0.75, true},
		{"Bo", "num"}:     {classroom.StatusRevealed, 0, false},
		{"Cy", "num"}:     {classroom.StatusRevealed, 0, false},
		{"Ada", "pred"}:   {classroom.StatusSolved, 0, true}, // right, but only at the second try
		{"Bo", "several"}: {classroom.StatusPartial, 0.5, false},
		{"Cy", "essay"}:   {classroom.StatusScored, 0.5, false},
	}
	for _, p := range d.Progress {
		w, ok := wants[[2]string{p.LearnerName, p.Exercise}]
		if !ok {
			t.Errorf("unexpected progress %+v", p)
			continue
		}
		sc, _ := classroom.BestScore(p)
		if p.Status() != w.status || sc != w.score || p.Done() != w.done {
			t.Errorf("%s on %s: %s %v done %v, want %s %v done %v", p.LearnerName, p.Exercise, p.Status(), sc, p.Done(), w.status, w.score, w.done)
		}
	}
	for _, g := range d.Mistakes {
		for _, l := range g.Learners {
			if l.Name == "Ada" && g.Exercise == "num" && l.Answer == "7" {
				t.Errorf("Ada's wrong answer after her right one is listed as a misconception: %+v", g)
			}
		}
	}

	// Every attempt, as typed, as read, with its score.
	all, err := s.Attempts(ctx, code, key, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 13 {
		t.Fatalf("%d attempts, want 13", len(all))
	}
	if f := all[1]; f.LearnerName != "Ada" || f.Answer != "50" || f.Parsed != "50" || !f.Correct || f.Score != 0.75 || f.Try != 2 {
		t.Errorf("Ada's right answer as listed: %+v", f)
	}
	nums, err := s.Attempts(ctx, code, key, "num")
	if err != nil || len(nums) != 8 {
		t.Fatalf("attempts at num: %d %v, want 8", len(nums), err)
	}
	if _, err := s.Attempts(ctx, code, "wrong key", ""); classroom.ErrorCode(err) != classroom.EFORBIDDEN {
		t.Fatalf("attempts with a wrong key: %v", err)
	}

	// The key was wrong: "40" was right. Ada's first try becomes right
	// (1, a new best); Cy's are all as they were.
	var verdicts []classroom.Verdict
	for _, a := range nums {
		right := a.Answer == "40" || a.Answer == "50"
		verdicts = append(verdicts, classroom.Verdict{AttemptID: a.ID, Correct: right, Share: map[bool]float64{true: 1}[right], Parsed: a.Parsed})
	}
	changes, err := s.Rescore(ctx, code, key, "num", classroom.RuleDeclining, nil, verdicts)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].LearnerID != ada.Learner.ID || changes[0].Score != 1 || changes[0].Previous != 0.75 || changes[0].ClassCode != code {
		t.Fatalf("rescore changes %+v: want Ada from 0.75 to 1", changes)
	}
	prog, err := s.LearnerProgress(ctx, code, classroom.Credentials{TeacherKey: key}, ada.Learner.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prog {
		if p.Exercise == "num" && (p.Score != 1 || p.TriesToCorrect != 1 || !p.Solved) {
			t.Errorf("Ada on num after the regrade: %+v", p)
		}
	}
	if _, err := s.Rescore(ctx, code, key, "num", "generous", nil, nil); classroom.ErrorCode(err) != classroom.EINVALID {
		t.Errorf("an unknown rule: %v", err)
	}
	if _, err := s.Rescore(ctx, code, "wrong key", "num", classroom.RuleDeclining, nil, nil); classroom.ErrorCode(err) != classroom.EFORBIDDEN {
		t.Errorf("rescore with a wrong key: %v", err)
	}
}
