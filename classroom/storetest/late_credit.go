package storetest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testLateCredit: after the deadline Ana answers wrong, then right (both
// late, worth nothing); the teacher credits her late work, and her
// attempts score as if on time (0, then 0.75 at the second try), still
// marked late, her exercise is solved, and the change of her best is
// returned; a later late attempt earns too; withdrawing the credit takes
// it all back. Bo, who was on time, has no late work to credit.
func testLateCredit(t *testing.T, h Harness) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s := h.MustNew(t, classroom.Options{Now: func() time.Time { return now }})
	nc := mustCreate(t, s, "Late")
	code, key := nc.Class.Code, nc.TeacherKey
	ana := mustJoin(t, s, code, "Ana")
	bo := mustJoin(t, s, code, "Bo")
	deadline := now.Add(time.Hour)
	if _, err := s.SetSettings(ctx, code, key, classroom.Settings{ShowMe: true, OpenLessons: []string{}, Deadline: &deadline}); err != nil {
		t.Fatal(err)
	}
	num := func(correct bool) classroom.Attempt {
		share := 0.0
		if correct {
			share = 1
		}
		return classroom.Attempt{Exercise: "num", Answer: "x", Correct: correct, Graded: true, Share: share, Rule: classroom.RuleDeclining}
	}
	mustRecord(t, s, bo.Token, num(true))
	now = deadline.Add(time.Minute)
	mustRecord(t, s, ana.Token, num(false))
	if a := mustRecord(t, s, ana.Token, num(true)); !a.Late || a.Score != 0 {
		t.Fatalf("a late right answer: %+v", a)
	}

	status := func(name string) (string, float64, bool) {
		t.Helper()
		d, err := s.Dashboard(ctx, code, key)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range d.Progress {
			if p.LearnerName == name && p.Exercise == "num" {
				sc, _ := classroom.BestScore(p)
				return p.Status(), sc, p.LateCredit
			}
		}
		t.Fatalf("no progress for %s", name)
		return "", 0, false
	}
	scores := func() string {
		t.Helper()
		all, err := s.Attempts(ctx, code, key, "num")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range all {
			if a.LearnerName == "Ana" {
				late := ""
				if a.Late {
					late = " late"
				}
				out = append(out, strconv.FormatFloat(a.Score, 'f', -1, 64)+late)
			}
		}
		return strings.Join(out, ", ")
	}
	if st, sc, _ := status("Ana"); st != classroom.StatusLate || sc != 0 {
		t.Fatalf("before the credit: %s %v", st, sc)
	}

	ch, err := s.CreditLate(ctx, code, key, ana.Learner.ID, "num", classroom.RuleDeclining, true, nil)
	if err != nil || ch == nil || ch.Score != 0.75 || ch.Previous != 0 || ch.LearnerID != ana.Learner.ID || ch.ClassCode != code {
		t.Fatalf("credit Ana's late work: %+v %v, want a change from 0 to 0.75", ch, err)
	}
	if st, sc, credited := status("Ana"); st != classroom.StatusSolved || sc != 0.75 || !credited {
		t.Errorf("after the credit: %s %v credited=%v, want solved 0.75", st, sc, credited)
	}
	if got := scores(); got != "0 late, 0.75 late" {
		t.Errorf("Ana's attempts after the credit: %s, want 0 late, 0.75 late", got)
	}
	// Again: nothing changes, nothing to send on.
	if ch, err := s.CreditLate(ctx, code, key, ana.Learner.ID, "num", classroom.RuleDeclining, true, nil); err != nil || ch != nil {
		t.Errorf("credit again: %+v %v, want no change", ch, err)
	}
	if a := mustRecord(t, s, ana.Token, num(true)); !a.Late || a.Score != 0.75 {
		t.Errorf("a late attempt after the credit: %+v, want late and 0.75 (one wrong try before)", a)
	}

	ch, err = s.CreditLate(ctx, code, key, ana.Learner.ID, "num", classroom.RuleDeclining, false, nil)
	if err != nil || ch == nil || ch.Score != 0 || ch.Previous != 0.75 {
		t.Fatalf("withdraw the credit: %+v %v", ch, err)
	}
	if st, sc, credited := status("Ana"); st != classroom.StatusLate || sc != 0 || credited {
		t.Errorf("after withdrawing: %s %v credited=%v, want late 0", st, sc, credited)
	}

	_, err = s.CreditLate(ctx, code, key, bo.Learner.ID, "num", classroom.RuleDeclining, true, nil)
	if classroom.ErrorCode(err) != classroom.EINVALID || !strings.Contains(err.Error(), "exercise: ") {
		t.Errorf("credit Bo's work, which was on time: %v, want EINVALID naming exercise", err)
	}
	_, err = s.CreditLate(ctx, code, key, ana.Learner.ID, "other", classroom.RuleDeclining, true, nil)
	wantCode(t, err, classroom.ENOTFOUND, "credit an exercise never answered")
	_, err = s.CreditLate(ctx, code, "wrong", ana.Learner.ID, "num", classroom.RuleDeclining, true, nil)
	wantCode(t, err, classroom.EFORBIDDEN, "credit without the teacher key")
	other := mustCreate(t, s, "Other")
	_, err = s.CreditLate(ctx, other.Class.Code, other.TeacherKey, ana.Learner.ID, "num", classroom.RuleDeclining, true, nil)
	wantCode(t, err, classroom.ENOTFOUND, "credit a learner of another class")
}
