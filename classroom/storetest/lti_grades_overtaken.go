package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testLTIGradesOvertakenElsewhere: Ada is in two courses whose links
// grade into one line item, so a score of hers queued in one class
// overtakes the older one the other class queued: still waiting, it is
// superseded, and given up, it is the course's problem no more. Either
// way the other class's panel counts it no more, and its subscribers (on
// another replica too, where there are replicas) are told at once, as
// the class that queued the newer score is.
func testLTIGradesOvertakenElsewhere(t *testing.T, h Harness) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := NewClock()
	addr := h.New(t)
	s := h.MustOpen(t, addr, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada")
	one, ada := cc.class.ID, cc.learners["Ada"].Learner.ID
	r2, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c2", ContextTitle: "Course two", Sub: "sub-Ada", Name: "Ada",
		ResourceLinkID: "l2", Target: "exercise:num", LineItemURL: courseLineItem})
	if err != nil {
		t.Fatal(err)
	}
	two, ada2 := r2.Class.ID, r2.Session.Learner.ID
	replica := s
	if h.Replicas {
		replica = h.MustOpen(t, addr, classroom.Options{Now: clk.Now})
	}
	// told checks that the class's subscribers through s and the replica
	// hear a change of its grades after queue runs.
	told := func(classID int64, what string, queue func()) {
		t.Helper()
		var chans []<-chan classroom.Change
		for _, st := range []classroom.Store{s, replica} {
			ch, err := st.Subscribe(ctx, classID)
			if err != nil {
				t.Fatal(err)
			}
			chans = append(chans, ch)
		}
		queue()
		for _, ch := range chans {
			if c := next(t, ch, what); c.Kind != classroom.ChangeGrades || c.ClassID != classID {
				t.Errorf("%s: heard %+v; want a change of the class's grades", what, c)
			}
		}
	}
	enqueue := func(classID, learnerID int64, given float64) {
		t.Helper()
		if n, err := ls.EnqueueLTIScore(ctx, classID, learnerID, "exercise:num", given, 1, false); err != nil || n != 1 {
			t.Fatalf("queue Ada's %v in class %d: %d, %v", given, classID, n, err)
		}
	}
	grades := func(classID int64) *classroom.LTIGrades {
		t.Helper()
		g, err := ls.LTIGrades(ctx, classID, clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		return g
	}

	enqueue(one, ada, 1)
	if g := grades(one); g.Waiting != 1 {
		t.Fatalf("the first course's grades: %d waiting; want Ada's", g.Waiting)
	}
	told(one, "the first course's class, its waiting score overtaken from the second", func() { enqueue(two, ada2, 0.5) })
	if g := grades(one); g.Waiting != 0 {
		t.Errorf("the first course's grades after the second queued Ada's newer score: %d waiting; want none", g.Waiting)
	}

	// The second course's score is given up; the first queues a newer one.
	j, err := ls.ClaimLTIScore(ctx, clk.Now(), time.Minute)
	if err != nil || j == nil || j.Given != 0.5 {
		t.Fatalf("claim Ada's score in the second course: %+v, %v", j, err)
	}
	if err := ls.FinishLTIScore(ctx, j, "failed", "scores endpoint answered 503 Service Unavailable", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if g := grades(two); g.GivenUp != 1 {
		t.Fatalf("the second course's grades: %d given up; want Ada's", g.GivenUp)
	}
	told(two, "the second course's class, its given-up score overtaken from the first", func() { enqueue(one, ada, 1) })
	if g := grades(two); g.GivenUp != 0 {
		t.Errorf("the second course's grades after the first queued Ada's newer score: %d given up; want none", g.GivenUp)
	}
}
