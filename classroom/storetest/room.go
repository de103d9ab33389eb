package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testSettings: settings are kept, seen by learners, bounded; a pushed
// lesson or exercise is kept; after the deadline (by the store's clock) an
// attempt is kept, marked late and worth nothing, and the progress says
// late.
func testSettings(t *testing.T, h Harness) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s := h.MustNew(t, classroom.Options{Now: func() time.Time { return now }})
	nc := mustCreate(t, s, "Room")
	code, key := nc.Class.Code, nc.TeacherKey
	if !nc.Class.Settings.ShowMe || len(nc.Class.Settings.OpenLessons) != 0 || nc.Class.Settings.Deadline != nil {
		t.Fatalf("a new class's settings: %+v", nc.Class.Settings)
	}
	ana := mustJoin(t, s, code, "Ana")
	deadline := now.Add(time.Hour)
	want := classroom.Settings{ShowMe: false, OpenLessons: []string{"leases"}, Deadline: &deadline}
	if _, err := s.SetSettings(ctx, code, key, want); err != nil {
		t.Fatal(err)
	}
	_, lc, err := s.Learner(ctx, ana.Token)
	if err != nil || lc.Settings.ShowMe || len(lc.Settings.OpenLessons) != 1 || lc.Settings.Deadline == nil || !lc.Settings.Deadline.Equal(deadline) {
		t.Fatalf("the learner's class has %+v (%v)", lc.Settings, err)
	}
	for _, bad := range []classroom.Settings{
		{OpenLessons: make([]string, classroom.MaxOpenLessons+1)},
		{OpenLessons: []string{"a b"}},
		{OpenLessons: []string{""}},
	} {
		if _, err := s.SetSettings(ctx, code, key, bad); classroom.ErrorCode(err) != classroom.EINVALID {
			t.Errorf("settings %+v: %v, want EINVALID", bad, err)
		}
	}
	if _, err := s.SetSettings(ctx, code, "wrong", want); err == nil {
		t.Error("settings changed without the teacher key")
	}
	for _, sc := range []classroom.Scenario{{Lesson: "leases"}, {Exercise: "pause-outlives-lease"}} {
		c, err := s.PushScenario(ctx, code, key, sc)
		if err != nil || c.Scenario == nil || c.Scenario.Lesson != sc.Lesson || c.Scenario.Exercise != sc.Exercise {
			t.Fatalf("push %+v: %+v %v", sc, c, err)
		}
	}
	if _, err := s.PushScenario(ctx, code, key, classroom.Scenario{Lesson: "a", Exercise: "b"}); classroom.ErrorCode(err) != classroom.EINVALID {
		t.Errorf("a lesson and an exercise at once: %v", err)
	}

	// Before the deadline a right answer earns; after it, one is late.
	a, err := s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "e1", Answer: "1", Correct: true, Graded: true})
	if err != nil || a.Late || a.Score != 1 {
		t.Fatalf("before the deadline: %+v %v", a, err)
	}
	now = deadline.Add(time.Minute)
	a, err = s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "e2", Answer: "1", Correct: true, Graded: true})
	if err != nil || !a.Late || a.Score != 0 || a.BestChange != nil {
		t.Fatalf("after the deadline: %+v %v", a, err)
	}
	d, err := s.Dashboard(ctx, code, key)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Progress {
		switch p.Exercise {
		case "e1":
			if p.Status() != classroom.StatusSolved || p.Late {
				t.Errorf("e1: %s late=%v", p.Status(), p.Late)
			}
		case "e2":
			if p.Status() != classroom.StatusLate || p.Done() || p.Score != 0 {
				t.Errorf("e2: %s done=%v score=%v", p.Status(), p.Done(), p.Score)
			}
		}
	}
	all, err := s.Attempts(ctx, code, key, "")
	if err != nil || len(all) != 2 || all[0].Late || !all[1].Late {
		t.Fatalf("attempts %+v %v", all, err)
	}
}
