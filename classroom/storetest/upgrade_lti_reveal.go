package storetest

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

// UpgradeLTIReveal checks the upgrade of a database with a class of a
// course that had an exercise revealed to it before reveals were passed
// on to courses' gradebooks (migrations 0012 and 0013): the queue's
// worker queues, once, the standing on it of every learner who came by a
// launch, 0 for one who never answered. A class that came from no course
// queues nothing. db is a raw handle on the empty database at addr, d its
// dialect.
func UpgradeLTIReveal(t *testing.T, h Harness, addr string, db *sql.DB, d *sqlstore.Dialect) {
	ctx := context.Background()
	s := h.MustOpen(t, addr, classroom.Options{})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada", "Cy") // Ada never answered
	mustRecord(t, s, cc.learners["Cy"].Token, classroom.Attempt{Exercise: "num", Answer: "y", Graded: true, Correct: true})
	plain := mustCreate(t, s, "No course")
	mustJoin(t, s, plain.Class.Code, "Dee")
	// The reveals as the store wrote them before: the settings alone.
	for _, id := range []int64{cc.class.ID, plain.Class.ID} {
		if _, err := db.ExecContext(ctx, rebind(d, `UPDATE classes SET settings = ? WHERE id = ?`),
			`{"show_me":true,"open_lessons":[],"revealed":["num"]}`, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version IN (12, 13)`); err != nil {
		t.Fatal(err)
	}
	if applied, err := sqlstore.Migrate(ctx, db, d); err != nil || !slices.Equal(applied, []int{12, 13}) {
		t.Fatalf("the upgrade applied %v, %v; want 12 and 13", applied, err)
	}
	if n := passOnReveals(t, ls); n != 1 {
		t.Errorf("the worker passed on %d reveals made before the upgrade; want the course's class's 1", n)
	}
	for name, want := range map[string]float64{"Ada": 0, "Cy": 1} {
		if j, ok := queuedFor(t, ls, "sub-"+name); !ok || j.Given != want || j.Maximum != 1 {
			t.Errorf("%s's score for the course after the upgrade: %+v (queued %v); want %v of 1", name, j, ok, want)
		}
	}
	if n := passOnReveals(t, ls); n != 0 {
		t.Errorf("the worker passed the old reveals on again: %d", n)
	}
}
