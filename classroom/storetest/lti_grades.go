package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testLTIGrades: a class's "Grades to" status counts the scores sent,
// those waiting (with the next try and why the last failed) and those
// the queue gave up on that still stand (with the last error), and the
// reveals alike; "Send again" re-arms exactly those given up, for this
// class only, at most the limit. A failure a later score overtook, or a
// removed learner's, is neither counted nor sent again.
func testLTIGrades(t *testing.T, h Harness) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada", "Bo", "Cy", "Dee", "Eve")

	plain := mustCreate(t, s, "No course")
	_, err := ls.LTIGrades(ctx, plain.Class.ID, clk.Now())
	wantCode(t, err, classroom.ENOTFOUND, "the grades of a class with no course")

	// send queues a score of the learner's and has the queue's try end
	// as outcome says ("" to be tried again in 30 s).
	send := func(classID int64, sess *classroom.Session, given float64, outcome, lastError string) {
		t.Helper()
		if n, err := ls.EnqueueLTIScore(ctx, classID, sess.Learner.ID, "exercise:num", given, 1, false); err != nil || n != 1 {
			t.Fatalf("queue %s's %g: %d queued, %v", sess.Learner.Name, given, n, err)
		}
		j, err := ls.ClaimLTIScore(ctx, clk.Now(), time.Minute)
		if err != nil || j == nil {
			t.Fatalf("claim %s's score: %+v, %v", sess.Learner.Name, j, err)
		}
		var retryAt time.Time
		if outcome == "" {
			retryAt = clk.Now().Add(30 * time.Second)
		}
		if err := ls.FinishLTIScore(ctx, j, outcome, lastError, retryAt); err != nil {
			t.Fatal(err)
		}
	}
	const down = "scores endpoint answered 503 Service Unavailable: down for maintenance"
	send(cc.class.ID, cc.learners["Ada"], 1, "sent", "")
	send(cc.class.ID, cc.learners["Dee"], 0.5, "failed", "an old failure")
	send(cc.class.ID, cc.learners["Dee"], 1, "sent", "") // overtakes her failure
	send(cc.class.ID, cc.learners["Eve"], 1, "failed", down)
	if err := s.RemoveLearner(ctx, cc.class.Code, cc.key, cc.learners["Eve"].Learner.ID); err != nil {
		t.Fatal(err)
	}
	send(cc.class.ID, cc.learners["Bo"], 0.5, "failed", down)
	send(cc.class.ID, cc.learners["Cy"], 1, "", "scores endpoint answered 502 Bad Gateway")
	cyNext := clk.Now().Add(29 * time.Second) // within the second the clock moved since

	revealNum(t, s, cc.class.Code, cc.key)
	rj, err := ls.ClaimLTIReveal(ctx, clk.Now(), time.Minute)
	if err != nil || rj == nil {
		t.Fatalf("claim the reveal: %+v, %v", rj, err)
	}
	if err := ls.FailLTIReveal(ctx, rj, "queue the score: the database refused the score", time.Time{}); err != nil {
		t.Fatal(err)
	}

	// Another course's class, whose failures are its own.
	other := func(name string) *classroom.Session {
		r, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c2", ContextTitle: "Course two", Sub: "sub2-" + name, Name: name,
			ResourceLinkID: "l2", Target: "exercise:num", LineItemURL: courseLineItem2})
		if err != nil {
			t.Fatal(err)
		}
		return r.Session
	}
	fay, gus := other("Fay"), other("Gus")
	send(fay.Learner.ClassID, fay, 1, "failed", down)
	send(gus.Learner.ClassID, gus, 1, "failed", down)

	g, err := ls.LTIGrades(ctx, cc.class.ID, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if g.Sent != 2 || g.Waiting != 1 || g.GivenUp != 1 || g.RevealsGivenUp != 1 || g.RevealsWaiting != 0 {
		t.Errorf("the course's grades: %d sent, %d waiting, %d given up, %d reveals given up, %d waiting; want 2 (Ada, Dee's later), 1 (Cy), 1 (Bo: not Dee's overtaken failure, nor removed Eve's), 1, 0",
			g.Sent, g.Waiting, g.GivenUp, g.RevealsGivenUp, g.RevealsWaiting)
	}
	if g.NextAt.Before(cyNext) || g.NextAt.After(cyNext.Add(5*time.Second)) || g.RetryError != "scores endpoint answered 502 Bad Gateway" {
		t.Errorf("Cy's waiting score: next try %v (want about %v), last failure %q", g.NextAt, cyNext, g.RetryError)
	}
	if g.LastError != "queue the score: the database refused the score" || g.GivenUpAt.IsZero() {
		t.Errorf("the last given up: %q at %v; want the reveal's error, given up after Bo's score", g.LastError, g.GivenUpAt)
	}

	scores, reveals, err := ls.RetryLTIGrades(ctx, cc.class.ID, clk.Now(), 100)
	if err != nil || scores != 1 || reveals != 1 {
		t.Fatalf("Send again re-armed %d scores and %d reveals (%v); want Bo's score and the reveal", scores, reveals, err)
	}
	g, err = ls.LTIGrades(ctx, cc.class.ID, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if g.GivenUp != 0 || g.RevealsGivenUp != 0 || g.Waiting != 2 || g.RevealsWaiting != 1 || g.NextAt.After(clk.Now()) {
		t.Errorf("after Send again: %+v; want nothing given up, Bo's and Cy's scores and the reveal waiting, the next try now", g)
	}
	j, err := ls.ClaimLTIScore(ctx, clk.Now(), time.Minute)
	if err != nil || j == nil || j.UserSub != "sub-Bo" || j.Given != 0.5 || j.Tries != 1 {
		t.Errorf("the queue's next score after Send again: %+v, %v; want Bo's 0.5, on its first try", j, err)
	}
	if scores, reveals, err := ls.RetryLTIGrades(ctx, cc.class.ID, clk.Now(), 100); err != nil || scores+reveals != 0 {
		t.Errorf("Send again with nothing given up re-armed %d scores and %d reveals (%v)", scores, reveals, err)
	}

	// The other course's failures stood through this class's Send again;
	// its own is bounded by the limit.
	g2, err := ls.LTIGrades(ctx, fay.Learner.ClassID, clk.Now())
	if err != nil || g2.GivenUp != 2 || g2.Course != "Course two" {
		t.Fatalf("the other course's grades: %+v, %v; want its 2 given up", g2, err)
	}
	if scores, _, err := ls.RetryLTIGrades(ctx, fay.Learner.ClassID, clk.Now(), 1); err != nil || scores != 1 {
		t.Errorf("Send again with a limit of 1 re-armed %d scores (%v)", scores, err)
	}
	if g2, err := ls.LTIGrades(ctx, fay.Learner.ClassID, clk.Now()); err != nil || g2.GivenUp != 1 || g2.Waiting != 1 {
		t.Errorf("after a Send again bounded to 1: %+v, %v; want 1 given up, 1 waiting", g2, err)
	}
	// The course's link now grades into another column: the failure on
	// the old one is no longer the course's to get, nor sent again.
	if _, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c2", ContextTitle: "Course two", Sub: "sub2-Fay", Name: "Fay",
		ResourceLinkID: "l2", Target: "exercise:num", LineItemURL: "https://lms.example.edu/li/num-3"}); err != nil {
		t.Fatal(err)
	}
	if g2, err := ls.LTIGrades(ctx, fay.Learner.ClassID, clk.Now()); err != nil || g2.GivenUp != 0 {
		t.Errorf("after the link moved to another column: %+v, %v; want nothing given up on the old one", g2, err)
	}
	if scores, _, err := ls.RetryLTIGrades(ctx, fay.Learner.ClassID, clk.Now(), 100); err != nil || scores != 0 {
		t.Errorf("Send again after the link moved re-armed %d scores (%v); want none for the old column", scores, err)
	}
}
