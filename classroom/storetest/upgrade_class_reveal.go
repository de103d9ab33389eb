package storetest

import (
	"context"
	"database/sql"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

// UpgradeClassReveal checks the upgrade of a database whose class had an
// exercise revealed to it before the store marked every learner of the
// class at the reveal (migration 0012): the learners who had not answered
// it, and the one wrong before it, read revealed with 0; the one right
// before it stays solved. db is a raw handle on the empty database at
// addr, d its dialect.
func UpgradeClassReveal(t *testing.T, h Harness, addr string, db *sql.DB, d *sqlstore.Dialect) {
	ctx := context.Background()
	s := h.MustOpen(t, addr, classroom.Options{})
	rc := newRevealClass(t, s, "Revealed before", "Dee") // Dee never answered
	code, key := rc.code, rc.key
	// The reveal as the store wrote it before: the settings alone.
	if _, err := db.ExecContext(ctx, rebind(d, `UPDATE classes SET settings = ? WHERE id = ?`),
		`{"show_me":true,"open_lessons":[],"revealed":["num"]}`, rc.id); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = 12`); err != nil {
		t.Fatal(err)
	}
	if applied, err := sqlstore.Migrate(ctx, db, d); err != nil || len(applied) != 1 || applied[0] != 12 {
		t.Fatalf("the upgrade applied %v, %v; want 12", applied, err)
	}
	dash, err := s.Dashboard(ctx, code, key)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Ada": classroom.StatusRevealed, "Dee": classroom.StatusRevealed, "Cy": classroom.StatusSolved}
	got := map[string]string{}
	for _, p := range dash.Progress {
		if p.Exercise == "num" {
			sc, _ := classroom.BestScore(p)
			got[p.LearnerName] = p.Status()
			if p.LearnerName != "Cy" && sc != 0 || p.LearnerName == "Cy" && sc != 1 {
				t.Errorf("%s after the upgrade scores %v", p.LearnerName, sc)
			}
		}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s on the exercise revealed before the upgrade: %q, want %q", name, got[name], w)
		}
	}
}
