package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testLookAlikeNames joins names that a dashboard would show the same as
// one already in the class: each is refused, saying why, and the names
// that only resemble each other in a font's fine print are kept apart.
func testLookAlikeNames(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "Look-alikes")
	code := nc.Class.Code
	for _, name := range []string{"Ana", "Alice", "Ape", "Kim", "Иван"} {
		mustJoin(t, s, code, name)
	}
	for _, tc := range []struct{ name, code, wantIn string }{
		// The same name in another case, width or spacing.
		{"ANA", classroom.ECONFLICT, `"ANA" is already taken`},
		{"Ａｎａ", classroom.ECONFLICT, `"Ａｎａ" looks too much like "Ana"`},
		{"Ana\u00a0", classroom.ECONFLICT, `"Ana" is already taken`},
		// Letters that look alike in the same script.
		{"AIice", classroom.ECONFLICT, `"AIice" looks too much like "Alice"`},
		{"A1ice", classroom.ECONFLICT, `"A1ice" looks too much like "Alice"`},
		{"Kirn", classroom.ECONFLICT, `"Kirn" looks too much like "Kim"`},
		// A whole word in Cyrillic that reads as Latin: А р е.
		{"\u0410\u0440\u0435", classroom.ECONFLICT, `looks too much like "Ape"`},
		// One Cyrillic letter in a Latin word: refused even without a clash.
		{"\u0410na", classroom.EINVALID, "mixes Cyrillic and Latin letters"},
		{"Ali\u0441e", classroom.EINVALID, "mixes Cyrillic and Latin letters"},
		// Invisible characters and text direction.
		{"A\u200bna", classroom.EINVALID, "U+200B ZERO WIDTH SPACE"},
		{"\u202eanA", classroom.EINVALID, "U+202E RIGHT-TO-LEFT OVERRIDE"},
		{"Ana\u3164", classroom.EINVALID, "U+3164 HANGUL FILLER"},
	} {
		_, err := s.Join(ctx, code, tc.name)
		wantCode(t, err, tc.code, fmt.Sprintf("join as %q", tc.name))
		if msg := classroom.ErrorMessage(err); !strings.Contains(msg, tc.wantIn) || !strings.HasPrefix(msg, "name: ") {
			t.Errorf("join as %q: %q, want it to name the field and contain %q", tc.name, msg, tc.wantIn)
		}
	}
	// Different people with different names get in.
	for _, name := range []string{"Anna", "Ann", "Zoë", "Zoe", "Ivan", "Ana Li", "山田", "علی\u200cرضا"} {
		mustJoin(t, s, code, name)
	}
	d, err := s.Dashboard(ctx, code, nc.TeacherKey)
	if err != nil || len(d.Learners) != 13 {
		t.Fatalf("dashboard: %d learners, %v; want 13", len(d.Learners), err)
	}
}

// testArchive: an archived class takes no joins or answers and says so;
// its teacher still reads and exports it, and may restore it.
func testArchive(t *testing.T, h Harness) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now, Grace: 30 * 24 * time.Hour})
	nc := mustCreate(t, s, "Term 1")
	other := mustCreate(t, s, "Term 2")
	code := nc.Class.Code
	ana := mustJoin(t, s, code, "Ana")
	mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "1", Graded: true})

	_, err := s.SetArchived(ctx, code, other.TeacherKey, true)
	wantCode(t, err, classroom.EFORBIDDEN, "archive with another class's key")
	_, err = s.SetArchived(ctx, code, "", true)
	wantCode(t, err, classroom.EUNAUTHORIZED, "archive without a key")

	c, err := s.SetArchived(ctx, code, nc.TeacherKey, true)
	if err != nil || c.ArchivedAt.IsZero() || c.Status(clk.Now()) != classroom.ClassArchived ||
		!c.DeleteAt.Equal(c.ArchivedAt.Add(30*24*time.Hour)) {
		t.Fatalf("archive: %+v %v", c, err)
	}
	archivedAt := c.ArchivedAt
	_, err = s.Join(ctx, code, "Bo")
	wantCode(t, err, classroom.ECONFLICT, "join an archived class")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "archived by its teacher on 2 March 2026") ||
		!strings.Contains(msg, "deleted on 1 April 2026") {
		t.Errorf("join an archived class: %q", msg)
	}
	_, err = s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "2", Graded: true})
	wantCode(t, err, classroom.ECONFLICT, "answer in an archived class")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "takes no more answers") {
		t.Errorf("answer in an archived class: %q", msg)
	}
	_, err = s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "?", FormatError: "unreadable"})
	wantCode(t, err, classroom.ECONFLICT, "an unreadable answer in an archived class")
	for what, err := range map[string]error{
		"push":  second(s.PushScenario(ctx, code, nc.TeacherKey, classroom.Scenario{Preset: "paused-holder"})),
		"close": second(s.SetJoinOpen(ctx, code, nc.TeacherKey, false)),
	} {
		wantCode(t, err, classroom.ECONFLICT, what+" in an archived class")
	}
	// Reading, exporting and the learner's own view still work.
	d, err := s.Dashboard(ctx, code, nc.TeacherKey)
	if err != nil || len(d.Progress) != 1 || d.Class.Status(clk.Now()) != classroom.ClassArchived {
		t.Fatalf("dashboard of an archived class: %+v %v", d, err)
	}
	if _, lc, err := s.Learner(ctx, ana.Token); err != nil || lc.ArchivedAt.IsZero() {
		t.Fatalf("learner of an archived class: %+v %v", lc, err)
	}
	// Archiving again keeps the first date, so the deletion date does
	// not move.
	clk.Advance(24 * time.Hour)
	if c, err := s.SetArchived(ctx, code, nc.TeacherKey, true); err != nil || !c.ArchivedAt.Equal(archivedAt) {
		t.Fatalf("archive twice: %+v %v", c, err)
	}
	c, err = s.SetArchived(ctx, code, nc.TeacherKey, false)
	if err != nil || !c.ArchivedAt.IsZero() || c.Status(clk.Now()) != classroom.ClassOpen {
		t.Fatalf("restore: %+v %v", c, err)
	}
	mustJoin(t, s, code, "Bo")
	mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "2", Graded: true})
	// The other class was never touched.
	mustJoin(t, s, other.Class.Code, "Cy")
}

func second[T any](_ T, err error) error { return err }

// testExpiry: a class nobody uses expires after the retention, is closed
// like an archived one, and the purge deletes it (with its learners) once
// the grace has passed; use, or the teacher restoring it, keeps it.
func testExpiry(t *testing.T, h Harness) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := NewClock()
	const day = 24 * time.Hour
	// Empty classes live as long as the others here (testClassLimits
	// has them go sooner).
	s := h.MustNew(t, classroom.Options{Now: clk.Now, Retention: 10 * day, Grace: 5 * day, EmptyRetention: 100 * day, PurgeEvery: -1})
	idle := mustCreate(t, s, "Idle")
	busy := mustCreate(t, s, "Busy")
	kept := mustCreate(t, s, "Kept")
	archived := mustCreate(t, s, "Archived")
	ana := mustJoin(t, s, idle.Class.Code, "Ana")
	bo := mustJoin(t, s, busy.Class.Code, "Bo")
	ch, err := s.Subscribe(ctx, idle.Class.ID)
	if err != nil {
		t.Fatal(err)
	}

	// Day 8: Bo answers, which counts as use of Busy; Archived is
	// archived, to be deleted on day 13.
	clk.Advance(8 * day)
	mustRecord(t, s, bo.Token, classroom.Attempt{Exercise: "ex", Answer: "1", Graded: true})
	if _, err := s.SetArchived(ctx, archived.Class.Code, archived.TeacherKey, true); err != nil {
		t.Fatal(err)
	}
	// Day 11: Idle has expired; Busy has not.
	clk.Advance(3 * day)
	_, err = s.Join(ctx, idle.Class.Code, "Late")
	wantCode(t, err, classroom.ECONFLICT, "join an expired class")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "expired on 12 March 2026") || !strings.Contains(msg, "deleted on 17 March 2026") {
		t.Errorf("join an expired class: %q", msg)
	}
	_, err = s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "1", Graded: true})
	wantCode(t, err, classroom.ECONFLICT, "answer in an expired class")
	mustJoin(t, s, busy.Class.Code, "Cy")
	c, err := s.Teacher(ctx, kept.Class.Code, kept.TeacherKey)
	if err != nil || c.Status(clk.Now()) != classroom.ClassExpired {
		t.Fatalf("kept, before its restore: %+v %v", c, err)
	}
	if c, err = s.SetArchived(ctx, kept.Class.Code, kept.TeacherKey, false); err != nil || c.Status(clk.Now()) != classroom.ClassOpen {
		t.Fatalf("restoring an expired class: %+v %v", c, err)
	}
	if n, err := s.Purge(ctx); err != nil || n != 0 {
		t.Fatalf("purge within the grace: %d deleted, %v", n, err)
	}

	// Day 16: past Idle's and Archived's grace, not Busy's or Kept's.
	clk.Advance(5 * day)
	n, err := s.Purge(ctx)
	if err != nil || n != 2 {
		t.Fatalf("purge: %d deleted, %v; want Idle and Archived", n, err)
	}
	for _, nc := range []*classroom.NewClass{idle, archived} {
		_, err := s.Teacher(ctx, nc.Class.Code, nc.TeacherKey)
		wantCode(t, err, classroom.ENOTFOUND, "a purged class")
		_, err = s.TeacherClass(ctx, nc.TeacherKey)
		wantCode(t, err, classroom.EUNAUTHORIZED, "a purged class's key")
	}
	_, _, err = s.Learner(ctx, ana.Token)
	wantCode(t, err, classroom.EUNAUTHORIZED, "a purged class's learner")
	for {
		if c := next(t, ch, "deleted"); c.Kind == classroom.ChangeDeleted {
			break
		}
	}
	for _, nc := range []*classroom.NewClass{busy, kept} {
		if _, err := s.Dashboard(ctx, nc.Class.Code, nc.TeacherKey); err != nil {
			t.Fatalf("class %s kept by use: %v", nc.Class.Name, err)
		}
	}
	if n, err := s.Purge(ctx); err != nil || n != 0 {
		t.Fatalf("purge again: %d, %v", n, err)
	}
}

// testSecondServer: a store that belongs to one server process refuses a
// second opening of the same address while the first is open, naming it;
// closing the first frees it. A shared store opens as often as asked.
func testSecondServer(t *testing.T, h Harness) {
	ctx := context.Background()
	addr := h.New(t)
	s := h.MustOpen(t, addr, classroom.Options{})
	nc := mustCreate(t, s, "First")
	s2, err := h.Open(ctx, addr, classroom.Options{})
	if !h.Exclusive {
		if err != nil {
			t.Fatalf("a second handle on a shared store: %v", err)
		}
		s2.Close()
		return
	}
	if err == nil {
		s2.Close()
		t.Fatal("a second server opened the same data while the first had it open")
	}
	if msg := err.Error(); !strings.Contains(msg, addr) || !strings.Contains(msg, "another") {
		t.Fatalf("second open: %q; want it to name %s and say another server holds it", msg, addr)
	}
	if _, err := s.Teacher(ctx, nc.Class.Code, nc.TeacherKey); err != nil {
		t.Fatalf("the first server after the refused second: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = h.MustOpen(t, addr, classroom.Options{})
	if _, err := s.Teacher(ctx, nc.Class.Code, nc.TeacherKey); err != nil {
		t.Fatalf("reopened after the first closed: %v", err)
	}
}
