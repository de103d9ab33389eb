package storetest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

// UpgradeLTIScoreUnmatched checks what the "Grades to" status says of the
// scores queued before scores named their class (migration 0014) that
// the upgrade could match to no one class: Ada launched into two courses
// whose links grade into one line item, so her score could be either
// class's. It is in neither class's counts, and Send again leaves it, but
// both classes' status counts it as unmatched, until it reaches the
// course, or a later score of hers overtakes it, which both classes are
// told of; Bo, in one class only, is matched and counted as before. db is
// a raw handle on the empty database at addr, d its dialect.
func UpgradeLTIScoreUnmatched(t *testing.T, h Harness, addr string, db *sql.DB, d *sqlstore.Dialect) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustOpen(t, addr, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada", "Bo")
	r2, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c2", ContextTitle: "Course two", Sub: "sub-Ada", Name: "Ada",
		ResourceLinkID: "l2", Target: "exercise:num", LineItemURL: courseLineItem})
	if err != nil {
		t.Fatal(err)
	}
	other := r2.Class.ID
	item := classroom.ItemOf("num", []string{"num"}, func(string) float64 { return 1 })
	for _, name := range []string{"Ada", "Bo"} {
		sess := cc.learners[name]
		mustRecord(t, s, sess.Token, classroom.Attempt{Exercise: "num", Answer: "y", Graded: true, Correct: true})
		if n, err := ls.EnqueueLTIItemScore(ctx, cc.class.ID, sess.Learner.ID, "exercise:num", item); err != nil || n != 1 {
			t.Fatalf("%s's score queued %d (%v), want 1", name, n, err)
		}
	}
	upgradeScoreOwners(t, db, d) // the queue as it was before: scores that name no class or learner

	grades := func(classID int64) *classroom.LTIGrades {
		t.Helper()
		g, err := ls.LTIGrades(ctx, classID, clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if g := grades(cc.class.ID); g.Waiting != 1 || g.Unmatched != 1 {
		t.Errorf("the first course's grades after the upgrade: %d waiting, %d unmatched; want Bo's waiting and Ada's unmatched", g.Waiting, g.Unmatched)
	}
	if g := grades(other); g.Waiting != 0 || g.Unmatched != 1 {
		t.Errorf("the second course's grades after the upgrade: %d waiting, %d unmatched; want Ada's unmatched", g.Waiting, g.Unmatched)
	}
	// The queue gives both up: Bo's is Send again's, Ada's still unmatched.
	for {
		j, err := ls.ClaimLTIScore(ctx, clk.Now(), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if j == nil {
			break
		}
		if err := ls.FinishLTIScore(ctx, j, "failed", "scores endpoint answered 503 Service Unavailable", time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if g := grades(cc.class.ID); g.GivenUp != 1 || g.Unmatched != 1 {
		t.Errorf("the first course's grades, both given up: %d given up, %d unmatched; want Bo's given up and Ada's unmatched", g.GivenUp, g.Unmatched)
	}
	if n, _, err := ls.RetryLTIGrades(ctx, cc.class.ID, clk.Now(), 100); err != nil || n != 1 {
		t.Errorf("Send again re-armed %d scores (%v); want Bo's", n, err)
	}
	if g := grades(cc.class.ID); g.Unmatched != 1 {
		t.Errorf("after Send again: %d unmatched; want Ada's, which it leaves alone", g.Unmatched)
	}
	// Ada's next score names its class: the old one is overtaken, and
	// the other course's class, whose panel counted it, is told.
	follow, stop := context.WithCancel(ctx)
	defer stop()
	changes, err := s.Subscribe(follow, other)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := ls.EnqueueLTIItemScore(ctx, cc.class.ID, cc.learners["Ada"].Learner.ID, "exercise:num", item); err != nil || n != 1 {
		t.Fatalf("Ada's score queued again %d (%v), want 1", n, err)
	}
	if c := next(t, changes, "the other course's class, after Ada's new score"); c.Kind != classroom.ChangeGrades || c.ClassID != other {
		t.Errorf("the other course's class heard %+v; want a change of its grades", c)
	}
	if g := grades(other); g.Unmatched != 0 {
		t.Errorf("the other course's grades after Ada's new score: %d unmatched; want none", g.Unmatched)
	}
	if g := grades(cc.class.ID); g.Unmatched != 0 || g.Waiting != 2 {
		t.Errorf("after Ada's new score: %d unmatched, %d waiting; want none unmatched, Ada's and Bo's waiting", g.Unmatched, g.Waiting)
	}
}
