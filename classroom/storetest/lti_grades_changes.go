package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testLTIGradesChanges: each change to how a class's grades stand with
// its course reaches the class's subscribers as a ChangeGrades, as every
// other change of the class does, so that the teacher's open dashboard
// redraws its "Grades to" panel at once: a score queued, tried and to be
// tried again, given up, re-armed by Send again and sent; a reveal tried
// and to be tried again, then passed on. With replicas, the change
// written through one handle reaches the subscribers of another. Another
// course's class hears nothing of it.
func testLTIGradesChanges(t *testing.T, h Harness) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := NewClock()
	addr := h.New(t)
	s := h.MustOpen(t, addr, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada")
	ada := cc.learners["Ada"]
	other, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c2", ContextTitle: "Course two", Sub: "sub2-Fay", Name: "Fay",
		ResourceLinkID: "l2", Target: "exercise:num", LineItemURL: courseLineItem2})
	if err != nil {
		t.Fatal(err)
	}

	type follower struct {
		name string
		ch   <-chan classroom.Change
	}
	subscribe := func(name string, st classroom.Store, classID int64) follower {
		ch, err := st.Subscribe(ctx, classID)
		if err != nil {
			t.Fatal(err)
		}
		return follower{name, ch}
	}
	followers := []follower{subscribe("this server", s, cc.class.ID)}
	if h.Replicas {
		followers = append(followers, subscribe("another replica", h.MustOpen(t, addr, classroom.Options{Now: clk.Now}), cc.class.ID))
	}
	elsewhere := subscribe("the other course's class", s, other.Session.Learner.ClassID)

	// heard has every follower of the class read on to a ChangeGrades of
	// it, the other changes of the class (a reveal's settings) passed.
	heard := func(what string) {
		t.Helper()
		for _, f := range followers {
			for {
				c := next(t, f.ch, f.name+": "+what)
				if c.Kind == classroom.ChangeGrades {
					if c.ClassID != cc.class.ID {
						t.Fatalf("%s: %s was heard as %+v", f.name, what, c)
					}
					break
				}
			}
		}
	}
	claim := func() *classroom.LTIScoreJob {
		t.Helper()
		j, err := ls.ClaimLTIScore(ctx, clk.Now(), time.Minute)
		if err != nil || j == nil {
			t.Fatalf("claim Ada's score: %+v, %v", j, err)
		}
		return j
	}
	finish := func(j *classroom.LTIScoreJob, outcome, lastError string, retryAt time.Time) {
		t.Helper()
		if err := ls.FinishLTIScore(ctx, j, outcome, lastError, retryAt); err != nil {
			t.Fatal(err)
		}
	}

	if n, err := ls.EnqueueLTIScore(ctx, cc.class.ID, ada.Learner.ID, "exercise:num", 1, 1, false); err != nil || n != 1 {
		t.Fatalf("queue Ada's score: %d, %v", n, err)
	}
	heard("a score queued")
	const down = "scores endpoint answered 503 Service Unavailable"
	finish(claim(), "", down, clk.Now().Add(30*time.Second))
	heard("a score's try failed, to be tried again")
	clk.Advance(time.Minute)
	finish(claim(), "failed", down, time.Time{})
	heard("a score given up")
	if scores, _, err := ls.RetryLTIGrades(ctx, cc.class.ID, clk.Now(), 100); err != nil || scores != 1 {
		t.Fatalf("Send again re-armed %d scores (%v); want Ada's", scores, err)
	}
	heard("Send again")
	finish(claim(), "sent", "", time.Time{})
	heard("a score sent")

	revealNum(t, s, cc.class.Code, cc.key)
	rj, err := ls.ClaimLTIReveal(ctx, clk.Now(), time.Minute)
	if err != nil || rj == nil {
		t.Fatalf("claim the reveal: %+v, %v", rj, err)
	}
	if err := ls.FailLTIReveal(ctx, rj, "queue the score: the database refused the score", clk.Now().Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	heard("a reveal's try failed, to be tried again")
	clk.Advance(time.Minute)
	if rj, err = ls.ClaimLTIReveal(ctx, clk.Now(), time.Minute); err != nil || rj == nil {
		t.Fatalf("claim the reveal again: %+v, %v", rj, err)
	}
	if err := ls.FinishLTIReveal(ctx, rj); err != nil {
		t.Fatal(err)
	}
	heard("a reveal passed on")

	// The teacher's launch from a link re-pointed to another column: the
	// failures on the old one are no longer the class's.
	if _, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: "t1", Name: "Teacher", Instructor: true,
		ResourceLinkID: "l", Target: "exercise:num", LineItemURL: "https://lms.example.edu/li/num-2"}); err != nil {
		t.Fatal(err)
	}
	heard("the teacher's launch re-pointing the link")

	select {
	case c := <-elsewhere.ch:
		t.Errorf("the other course's class heard %+v of this class's grades", c)
	default:
	}
}
