package storetest

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

// UpgradeLTIScoreOwner checks the upgrade of a database whose queued
// scores did not name their class and learner (before migration 0014):
// the upgrade tells them from the launches, so a learner the teacher
// removes after it is sent none of the scores queued before it, even on
// a line item the class's link has been re-pointed away from; a
// classmate's is still sent. db is a raw handle on the empty database at
// addr, d its dialect.
func UpgradeLTIScoreOwner(t *testing.T, h Harness, addr string, db *sql.DB, d *sqlstore.Dialect) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustOpen(t, addr, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada", "Bo")
	item := classroom.ItemOf("num", []string{"num"}, func(string) float64 { return 1 })
	for _, name := range []string{"Ada", "Bo"} {
		sess := cc.learners[name]
		mustRecord(t, s, sess.Token, classroom.Attempt{Exercise: "num", Answer: "y", Graded: true, Correct: true})
		if n, err := ls.EnqueueLTIItemScore(ctx, cc.class.ID, sess.Learner.ID, "exercise:num", item); err != nil || n != 1 {
			t.Fatalf("%s's score queued %d (%v), want 1", name, n, err)
		}
	}
	if _, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: "t1", Name: "Teacher", Instructor: true,
		ResourceLinkID: "l", Target: "exercise:num", LineItemURL: courseLineItem2}); err != nil {
		t.Fatal(err)
	}
	upgradeScoreOwners(t, db, d) // the queue as it was before: scores that name no class or learner
	if err := s.RemoveLearner(ctx, cc.class.Code, cc.key, cc.learners["Ada"].Learner.ID); err != nil {
		t.Fatal(err)
	}
	sent := sendQueued(t, ls, clk, true)
	if want := "sub-Bo on " + courseLineItem; len(sent) != 1 || sent[0] != want {
		t.Errorf("Ada removed after the upgrade, the queue sent %q; want Bo's alone (%q)", sent, want)
	}
}

// upgradeScoreOwners takes the queued scores back to before migration
// 0014 (no class or learner on them) and runs the upgrade again, which
// must apply 0014 alone.
func upgradeScoreOwners(t *testing.T, db *sql.DB, d *sqlstore.Dialect) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{`DROP INDEX lti_scores_owner`, `ALTER TABLE lti_scores DROP COLUMN class_id`,
		`ALTER TABLE lti_scores DROP COLUMN learner_id`, `DELETE FROM schema_migrations WHERE version = 14`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if applied, err := sqlstore.Migrate(ctx, db, d); err != nil || !slices.Equal(applied, []int{14}) {
		t.Fatalf("the upgrade applied %v, %v; want 14", applied, err)
	}
}
