package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testLTIRemovedLearner: the scores the queue had still to send for a
// learner the teacher removes are never sent: their course's gradebook
// is not written for someone no longer in the class. A classmate's
// still are. If they come back by a launch, their standing is sent as
// for anyone new: the withdrawn score is not one the course has.
func testLTIRemovedLearner(t *testing.T, h Harness) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada", "Bo")
	item := classroom.ItemOf("num", []string{"num"}, func(string) float64 { return 1 })
	answerRight := func(sess *classroom.Session) int {
		t.Helper()
		mustRecord(t, s, sess.Token, classroom.Attempt{Exercise: "num", Answer: "y", Graded: true, Correct: true})
		n, err := ls.EnqueueLTIItemScore(ctx, cc.class.ID, sess.Learner.ID, "exercise:num", item)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	answerRight(cc.learners["Ada"])
	answerRight(cc.learners["Bo"])
	if err := s.RemoveLearner(ctx, cc.class.Code, cc.key, cc.learners["Ada"].Learner.ID); err != nil {
		t.Fatal(err)
	}

	sent := sendQueued(t, ls, clk, false)
	if len(sent) != 1 || sent[0] != "sub-Bo" {
		t.Errorf("the queue sent scores of %q after Ada was removed; want Bo's alone", sent)
	}
	if j, ok := queuedFor(t, ls, "sub-Ada"); ok {
		t.Errorf("the course is left to get %+v for Ada, removed; want nothing", j)
	}

	// Ada comes back by a launch, and is right again: the course has
	// nothing of hers, so her 1 is queued.
	ada := launchLearner(t, ls, p.ID, "Ada")
	if n := answerRight(ada); n != 1 {
		t.Errorf("Ada's standing after she came back queued %d scores; want 1: the withdrawn one never reached the course", n)
	}
}

// courseLineItem2 is the line item the course's graded link is
// re-pointed to in the tests of a link's column moved.
const courseLineItem2 = "https://lms.example.edu/li/num-2"

// testLTIRemovedLearnerRepointed: a learner's scores still to be sent on
// a line item the class's link named when they were queued, and no
// longer does (the course re-pointed the link to another column), are
// withdrawn too when the teacher removes the learner: nothing more
// reaches the course for someone no longer in the class. A classmate's
// score on it is still sent.
func testLTIRemovedLearnerRepointed(t *testing.T, h Harness) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now})
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
	// The teacher's next launch of the link names another line item.
	if _, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: "t1", Name: "Teacher", Instructor: true,
		ResourceLinkID: "l", Target: "exercise:num", LineItemURL: courseLineItem2}); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveLearner(ctx, cc.class.Code, cc.key, cc.learners["Ada"].Learner.ID); err != nil {
		t.Fatal(err)
	}
	sent := sendQueued(t, ls, clk, true)
	if want := "sub-Bo on " + courseLineItem; len(sent) != 1 || sent[0] != want {
		t.Errorf("after the link was re-pointed and Ada removed, the queue sent %q; want Bo's alone (%q)", sent, want)
	}
}

// sendQueued claims and marks sent every score the queue holds now, as
// the LTI queue's worker would, and returns whose each was (the user's
// ID, with " on " and its line item when withItem is set), in order.
func sendQueued(t *testing.T, ls classroom.LTIStore, clk *Clock, withItem bool) []string {
	t.Helper()
	ctx := context.Background()
	var sent []string
	for {
		job, err := ls.ClaimLTIScore(ctx, clk.Now(), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if job == nil {
			return sent
		}
		who := job.UserSub
		if withItem {
			who += " on " + job.LineItemURL
		}
		sent = append(sent, who)
		if err := ls.FinishLTIScore(ctx, job, "sent", "", time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
}
