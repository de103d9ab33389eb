package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testClassLimits: classes nobody joined count apart from those in use
// and stop counting (and are purged) EmptyRetention after they were made;
// one address has at most MaxClassesPerAddress live classes; a request
// that names no address counts against none.
func testClassLimits(t *testing.T, h Harness) {
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now, PurgeEvery: -1, EmptyRetention: 24 * time.Hour,
		Limits: classroom.Limits{MaxClasses: 2, MaxEmptyClasses: 3, MaxClassesPerAddress: 2}})
	from := func(addr string) context.Context { return classroom.WithCreator(context.Background(), addr) }
	create := func(addr, name string) (*classroom.NewClass, error) { return s.CreateClass(from(addr), name) }
	must := func(addr, name string) *classroom.NewClass {
		t.Helper()
		nc, err := create(addr, name)
		if err != nil {
			t.Fatalf("%s creates %s: %v", addr, name, err)
		}
		return nc
	}
	a1 := must("10.0.0.1", "A1")
	must("10.0.0.1", "A2")
	_, err := create("10.0.0.1", "A3")
	wantCode(t, err, classroom.ELIMIT, "a third class from one address")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "your address already has 2 live classes") {
		t.Errorf("per-address message %q", msg)
	}
	must("10.0.0.2", "B1")
	_, err = create("10.0.0.3", "C1")
	wantCode(t, err, classroom.ELIMIT, "a fourth empty class")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "3 classes nobody has joined yet") || !strings.Contains(msg, "a day after") {
		t.Errorf("empty-class message %q", msg)
	}
	// A1 is joined: in use, it leaves the empty classes' count, and still
	// counts for its address.
	mustJoin(t, s, a1.Class.Code, "Ana")
	must("10.0.0.3", "C1")
	_, err = create("10.0.0.1", "A3")
	wantCode(t, err, classroom.ELIMIT, "a third live class from one address")

	// A day later the empty ones no longer count, even before the purge:
	// A's address may make one more, and the purge deletes the three
	// empty ones, not the one in use nor the new one.
	clk.Advance(25 * time.Hour)
	fresh := must("10.0.0.1", "A4")
	n, err := s.Purge(context.Background())
	if err != nil || n != 3 {
		t.Fatalf("purge: %d deleted, %v; want the three empty classes a day old", n, err)
	}
	for _, nc := range []*classroom.NewClass{a1, fresh} {
		if _, err := s.Teacher(context.Background(), nc.Class.Code, nc.TeacherKey); err != nil {
			t.Errorf("class %s after the purge: %v", nc.Class.Name, err)
		}
	}
	// Without an address, only the server's limits apply.
	if _, err := s.CreateClass(context.Background(), "By the command line"); err != nil {
		t.Errorf("a class with no address: %v", err)
	}
}

// testOperator: the operator lists every class with its learners and
// creator, archives one (its teacher still sees it, closed) and deletes
// another (gone, its learners' sessions with it); an unknown code is
// ENOTFOUND.
func testOperator(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	op, ok := s.(classroom.Operator)
	if !ok {
		t.Fatalf("%T does not implement classroom.Operator", s)
	}
	a, err := s.CreateClass(classroom.WithCreator(ctx, "192.0.2.7"), "Kept")
	if err != nil {
		t.Fatal(err)
	}
	b := mustCreate(t, s, "Gone")
	mustJoin(t, s, a.Class.Code, "Ana")
	bo := mustJoin(t, s, b.Class.Code, "Bo")
	list, err := op.ListClasses(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %+v %v", list, err)
	}
	byName := map[string]classroom.ClassInfo{}
	for _, c := range list {
		byName[c.Name] = c
	}
	if k := byName["Kept"]; k.Learners != 1 || k.Creator != "192.0.2.7" || k.Code != a.Class.Code {
		t.Errorf("listed %+v", k)
	}
	c, err := op.ArchiveClass(ctx, a.Class.Code)
	if err != nil || c.ArchivedAt.IsZero() {
		t.Fatalf("archive: %+v %v", c, err)
	}
	_, err = s.Join(ctx, a.Class.Code, "Late")
	wantCode(t, err, classroom.ECONFLICT, "join an archived class")
	if err := op.DeleteClass(ctx, b.Class.Code); err != nil {
		t.Fatalf("delete: %v", err)
	}
	_, err = s.Teacher(ctx, b.Class.Code, b.TeacherKey)
	wantCode(t, err, classroom.ENOTFOUND, "a deleted class")
	_, _, err = s.Learner(ctx, bo.Token)
	wantCode(t, err, classroom.EUNAUTHORIZED, "a deleted class's learner")
	wantCode(t, op.DeleteClass(ctx, "ZZZZZZZZ"), classroom.ENOTFOUND, "delete an unknown code")
	_, err = op.ArchiveClass(ctx, "ZZZZZZZZ")
	wantCode(t, err, classroom.ENOTFOUND, "archive an unknown code")
}

// testStorageBudget: answers count against their learner's and their
// class's budgets of bytes; past either, the attempt is refused with a
// message saying which is full, and nothing of it is kept; a learner
// removed gives the class their bytes back.
func testStorageBudget(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{Limits: classroom.Limits{MaxBytesPerLearner: 1000, MaxBytesPerClass: 1500}})
	nc := mustCreate(t, s, "Budget")
	ana := mustJoin(t, s, nc.Class.Code, "Ana")
	bo := mustJoin(t, s, nc.Class.Code, "Bo")
	cy := mustJoin(t, s, nc.Class.Code, "Cy")
	long := strings.Repeat("x", 600)
	mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "essay", Answer: long})
	_, err := s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "essay", Answer: long})
	wantCode(t, err, classroom.ELIMIT, "a learner past their budget")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "your answers are full") {
		t.Errorf("learner budget message %q", msg)
	}
	mustRecord(t, s, bo.Token, classroom.Attempt{Exercise: "essay", Answer: long})
	_, err = s.Record(ctx, cy.Token, classroom.Attempt{Exercise: "essay", Answer: strings.Repeat("y", 200)})
	wantCode(t, err, classroom.ELIMIT, "a class past its budget")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "this class is full") {
		t.Errorf("class budget message %q", msg)
	}
	// Nothing of the refused attempts was kept.
	ps, err := s.LearnerProgress(ctx, nc.Class.Code, classroom.Credentials{Session: ana.Token}, ana.Learner.ID)
	if err != nil || len(ps) != 1 || ps[0].Tries != 1 {
		t.Errorf("Ana's progress after a refused attempt: %+v %v", ps, err)
	}
	if err := s.RemoveLearner(ctx, nc.Class.Code, nc.TeacherKey, ana.Learner.ID); err != nil {
		t.Fatal(err)
	}
	mustRecord(t, s, cy.Token, classroom.Attempt{Exercise: "essay", Answer: strings.Repeat("y", 200)})
}
