package storetest

import (
	"context"
	"database/sql"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

// UpgradeLTIRemovedUnmatched: a learner the teacher removes has their
// score withdrawn, one queued before scores named their class that the
// upgrade matched to no class among them; every class linked to its line
// item counted it as unmatched, so each is told at once, as for any
// other change of that count. Ada launched into two courses whose links
// grade into one line item; the teacher of the first removes her; the
// second course's class (through another replica too, where there are
// replicas) hears a change of its grades, and counts her score no more.
// db is a raw handle on the empty database at addr, d its dialect.
func UpgradeLTIRemovedUnmatched(t *testing.T, h Harness, addr string, db *sql.DB, d *sqlstore.Dialect) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := NewClock()
	s := h.MustOpen(t, addr, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada")
	r2, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c2", ContextTitle: "Course two", Sub: "sub-Ada", Name: "Ada",
		ResourceLinkID: "l2", Target: "exercise:num", LineItemURL: courseLineItem})
	if err != nil {
		t.Fatal(err)
	}
	other := r2.Class.ID
	ada := cc.learners["Ada"]
	mustRecord(t, s, ada.Token, classroom.Attempt{Exercise: "num", Answer: "y", Graded: true, Correct: true})
	item := classroom.ItemOf("num", []string{"num"}, func(string) float64 { return 1 })
	if n, err := ls.EnqueueLTIItemScore(ctx, cc.class.ID, ada.Learner.ID, "exercise:num", item); err != nil || n != 1 {
		t.Fatalf("Ada's score queued %d (%v), want 1", n, err)
	}
	upgradeScoreOwners(t, db, d) // the queue as it was before: scores that name no class or learner

	unmatched := func(classID int64) int {
		t.Helper()
		g, err := ls.LTIGrades(ctx, classID, clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		return g.Unmatched
	}
	if n := unmatched(other); n != 1 {
		t.Fatalf("the second course's grades after the upgrade: %d unmatched; want Ada's", n)
	}

	type follower struct {
		name string
		ch   <-chan classroom.Change
	}
	subscribe := func(name string, st classroom.Store) follower {
		ch, err := st.Subscribe(ctx, other)
		if err != nil {
			t.Fatal(err)
		}
		return follower{name, ch}
	}
	followers := []follower{subscribe("this server", s)}
	if h.Replicas {
		followers = append(followers, subscribe("another replica", h.MustOpen(t, addr, classroom.Options{Now: clk.Now})))
	}
	if err := s.RemoveLearner(ctx, cc.class.Code, cc.key, ada.Learner.ID); err != nil {
		t.Fatal(err)
	}
	for _, f := range followers {
		if c := next(t, f.ch, f.name+": the second course's class, after Ada was removed from the first"); c.Kind != classroom.ChangeGrades || c.ClassID != other {
			t.Errorf("%s: the second course's class heard %+v; want a change of its grades", f.name, c)
		}
	}
	if n := unmatched(other); n != 0 {
		t.Errorf("the second course's grades after Ada was removed from the first: %d unmatched; want none, her score withdrawn", n)
	}
}
