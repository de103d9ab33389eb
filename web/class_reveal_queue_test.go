package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/lti"
	"github.com/leaselab/playground/lti/ltitest"
)

// TestClassRevealQueuedByTheWorker: the teacher's reveal of an exercise
// to a class of a course answers without queuing a score for each of the
// course's learners (a course of 300 made the click wait, and a failure
// half-way dropped the rest); the queue's worker does it, from the
// database, so a restart between the two still sends every learner who
// had not answered their 0.
func TestClassRevealQueuedByTheWorker(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		ctx := context.Background()
		e := startLTI(t, kind)
		item := e.plat.LineItem("12")
		const ex = "outlive-lease"
		bo := ltitest.User{Sub: "user-bo", Name: "Bo Peep", Email: "bo@uni.example.edu"}
		for _, u := range []ltitest.User{ltitest.Learner, bo} {
			e.launchAs(newPerson(t, e.url), u, "link-outlive", "exercise:"+ex, item)
		}
		grace := newPerson(t, e.url)
		a := e.launchAs(grace, ltitest.Teacher, "link-outlive", "exercise:"+ex, item)
		code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")

		revealToClass(t, grace, code, ex)
		if jobs, err := e.lst.LTIScoreJobs(ctx, 100); err != nil || len(jobs) != 0 {
			t.Fatalf("the reveal's request queued %d scores itself (%v); want none, the worker's to queue", len(jobs), err)
		}

		// The server restarts before its worker ran: a new tool on the
		// same database.
		again := lti.New(lti.Config{Store: e.lst, Now: e.clock.Now, Lessons: catalog(t)})
		t.Cleanup(again.Close)
		if _, err := again.Deliver(ctx); err != nil {
			t.Fatal(err)
		}
		for _, u := range []ltitest.User{ltitest.Learner, bo} {
			var got *ltitest.Score
			for _, s := range e.plat.Scores() {
				if s.LineItem == item && s.UserID == u.Sub {
					got = &s
				}
			}
			if got == nil || !got.Given || got.ScoreGiven != 0 || got.Grading != "FullyGraded" {
				t.Errorf("%s, who had not answered, was sent %+v after the reveal; want a final 0", u.Name, got)
			}
		}
		// Passed on once: the worker's next pass sends nothing more.
		if n, err := again.Deliver(ctx); n != 0 || err != nil {
			t.Errorf("a second pass sent %d scores (%v); want none", n, err)
		}
	})
}
