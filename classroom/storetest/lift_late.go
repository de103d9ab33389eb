package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testLiftLate: a deadline moved later puts on time the attempts made by
// it, and only those: Ana's attempt an hour after the first deadline is
// lifted by a deadline two hours after it, Bo's three hours after stays
// late, and a cleared deadline lifts his too. A rescore then scores them
// as on time; nothing else is touched, and only the teacher may.
func testLiftLate(t *testing.T, h Harness) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s := h.MustNew(t, classroom.Options{Now: func() time.Time { return now }})
	nc := mustCreate(t, s, "Extended")
	code, key := nc.Class.Code, nc.TeacherKey
	ana := mustJoin(t, s, code, "Ana")
	bo := mustJoin(t, s, code, "Bo")
	deadline := now.Add(time.Hour)
	if _, err := s.SetSettings(ctx, code, key, classroom.Settings{ShowMe: true, OpenLessons: []string{}, Deadline: &deadline}); err != nil {
		t.Fatal(err)
	}
	right := classroom.Attempt{Exercise: "num", Answer: "50", Correct: true, Graded: true, Share: 1, Rule: classroom.RuleDeclining}
	now = deadline.Add(time.Hour)
	if a := mustRecord(t, s, ana.Token, right); !a.Late || a.Score != 0 {
		t.Fatalf("Ana's late answer: %+v", a)
	}
	now = deadline.Add(3 * time.Hour)
	mustRecord(t, s, bo.Token, right)

	if _, err := s.LiftLate(ctx, code, "wrong", time.Time{}); err == nil {
		t.Error("late marks lifted without the teacher key")
	}
	lifted, err := s.LiftLate(ctx, code, key, deadline.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lifted, []classroom.LearnerExercise{{LearnerID: ana.Learner.ID, Exercise: "num"}}) {
		t.Errorf("a deadline two hours later lifted %+v, want Ana's num alone", lifted)
	}
	if _, err := s.Rescore(ctx, code, key, "num", classroom.RuleDeclining, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status string
		score  float64
	}{"Ana": {classroom.StatusSolved, 1}, "Bo": {classroom.StatusLate, 0}}
	check := func(when string) {
		t.Helper()
		d, err := s.Dashboard(ctx, code, key)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range d.Progress {
			w := want[p.LearnerName]
			if sc, _ := classroom.BestScore(p); p.Status() != w.status || sc != w.score {
				t.Errorf("%s: %s %q %v, want %q %v", when, p.LearnerName, p.Status(), sc, w.status, w.score)
			}
		}
	}
	check("after the deadline moved two hours later")

	if lifted, err = s.LiftLate(ctx, code, key, time.Time{}); err != nil || len(lifted) != 1 || lifted[0].LearnerID != bo.Learner.ID {
		t.Errorf("the deadline cleared lifted %+v (%v), want Bo's num", lifted, err)
	}
	if _, err := s.Rescore(ctx, code, key, "num", classroom.RuleDeclining, nil, nil); err != nil {
		t.Fatal(err)
	}
	want["Bo"] = want["Ana"]
	check("after the deadline was cleared")
	if lifted, err = s.LiftLate(ctx, code, key, time.Time{}); err != nil || len(lifted) != 0 {
		t.Errorf("nothing left late, yet lifted %+v (%v)", lifted, err)
	}
}

// testRescoreSomeLearners: a rescore limited to some learners leaves the
// others' scores as they were recorded, even where the rule it is given
// would score them otherwise (what a deadline moved later relies on: only
// the learners it lifted are rescored). Cy's 0.75 (right at the second
// try, declining) stays while Ana is rescored all or nothing; a rescore
// of everyone then makes it 1.
func testRescoreSomeLearners(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "Some")
	code, key := nc.Class.Code, nc.TeacherKey
	ana := mustJoin(t, s, code, "Ana")
	cy := mustJoin(t, s, code, "Cy")
	wrong := classroom.Attempt{Exercise: "num", Answer: "5", Graded: true, Rule: classroom.RuleDeclining}
	right := classroom.Attempt{Exercise: "num", Answer: "50", Correct: true, Graded: true, Share: 1, Rule: classroom.RuleDeclining}
	for _, l := range []*classroom.Session{ana, cy} {
		mustRecord(t, s, l.Token, wrong)
		mustRecord(t, s, l.Token, right)
	}
	scores := func() map[string]float64 {
		t.Helper()
		d, err := s.Dashboard(ctx, code, key)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, p := range d.Progress {
			out[p.LearnerName], _ = classroom.BestScore(p)
		}
		return out
	}
	ch, err := s.Rescore(ctx, code, key, "num", classroom.RuleAllOrNothing, []int64{ana.Learner.ID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || ch[0].LearnerID != ana.Learner.ID {
		t.Errorf("a rescore of Ana alone changed %+v", ch)
	}
	if got := scores(); got["Ana"] != 1 || got["Cy"] != 0.75 {
		t.Errorf("after a rescore of Ana alone: %v, want Ana 1 and Cy's 0.75 as recorded", got)
	}
	if ch, err := s.Rescore(ctx, code, key, "num", classroom.RuleAllOrNothing, []int64{}, nil); err != nil || len(ch) != 0 {
		t.Errorf("a rescore of nobody: %+v, %v", ch, err)
	}
	if _, err := s.Rescore(ctx, code, key, "num", classroom.RuleAllOrNothing, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := scores(); got["Cy"] != 1 {
		t.Errorf("after a rescore of everyone: %v, want Cy 1", got)
	}
}
