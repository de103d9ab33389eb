package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// coursePosts plays the course's line item for two replicas sending
// from one queue: it records the scores posted, in the order they
// arrive, and keeps the last one, as a platform that ignores the
// timestamp does.
type coursePosts struct {
	t       *testing.T
	ls      classroom.LTIStore
	classID int64
	arrive  []float64
}

// claim has a replica claim the next score due at now, nil when none is.
func (c *coursePosts) claim(now time.Time) *classroom.LTIScoreJob {
	c.t.Helper()
	j, err := c.ls.ClaimLTIScore(context.Background(), now, time.Minute)
	if err != nil {
		c.t.Fatal(err)
	}
	return j
}

// post has job's post reach the course, and its worker record it sent.
func (c *coursePosts) post(job *classroom.LTIScoreJob) {
	c.t.Helper()
	c.arrive = append(c.arrive, job.Given)
	if err := c.ls.FinishLTIScore(context.Background(), job, "sent", "", time.Time{}); err != nil {
		c.t.Fatal(err)
	}
}

// kept is what the course's gradebook shows: the last score posted.
func (c *coursePosts) kept() string {
	if len(c.arrive) == 0 {
		return "nothing"
	}
	return fmt.Sprint(c.arrive[len(c.arrive)-1])
}

// scoreOrderCourse launches Ada into a course's class and queues her
// first score, 0.5.
func scoreOrderCourse(t *testing.T, h Harness) (*Clock, *coursePosts, func(given float64)) {
	t.Helper()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada")
	queue := func(given float64) {
		t.Helper()
		if n, err := ls.EnqueueLTIScore(context.Background(), cc.class.ID, cc.learners["Ada"].Learner.ID, "exercise:num", given, 1, false); err != nil || n != 1 {
			t.Fatalf("queue Ada's %g: %d queued, %v", given, n, err)
		}
	}
	queue(0.5)
	return clk, &coursePosts{t: t, ls: ls, classID: cc.class.ID}, queue
}

// testLTIScoreNewerAfterClaimed: Ada's 0.5 is on its way (a replica
// claimed it) when she earns 1. The 1 is not sent alongside: a second
// replica claims nothing while the 0.5's claim stands, and the 1 goes
// once the 0.5 has reached the course, so the course keeps the 1.
// Before, the second replica claimed and posted the 1 at once, and the
// 0.5, still on its way, arrived after it: the course kept 0.5.
func testLTIScoreNewerAfterClaimed(t *testing.T, h Harness) {
	clk, course, queue := scoreOrderCourse(t, h)
	old := course.claim(clk.Now())
	if old == nil || old.Given != 0.5 {
		t.Fatalf("the first replica claimed %+v; want the 0.5", old)
	}
	queue(1)
	if j := course.claim(clk.Now()); j != nil {
		// What a second replica would do with it: post it at once.
		course.post(j)
	}
	course.post(old)
	if j := course.claim(clk.Now()); j != nil {
		course.post(j)
	}
	if course.kept() != "1" || len(course.arrive) != 2 {
		t.Errorf("the course got %v in that order and keeps %s; want 0.5 then 1, keeping 1", course.arrive, course.kept())
	}
}

// testLTIScoreOlderRetryNeverLast: Ada's 0.5 is refused by the course,
// and is to be tried again, after she earned 1 while it was on its way.
// The 1 is sent, and the 0.5 is never sent after it: it is superseded.
// Before, the 0.5 was tried again past its backoff, after the 1, and the
// course kept 0.5.
func testLTIScoreOlderRetryNeverLast(t *testing.T, h Harness) {
	ctx := context.Background()
	clk, course, queue := scoreOrderCourse(t, h)
	old := course.claim(clk.Now())
	if old == nil || old.Given != 0.5 {
		t.Fatalf("the first replica claimed %+v; want the 0.5", old)
	}
	queue(1)
	if err := course.ls.FinishLTIScore(ctx, old, "", "scores endpoint answered 503 Service Unavailable", clk.Now().Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if g, err := course.ls.LTIGrades(ctx, course.classID, clk.Now()); err != nil || g.Waiting != 1 {
		t.Errorf("the teacher is told %+v (%v); want one score waiting, the 1: the 0.5 is never to be sent", g, err)
	}
	for range 3 {
		for j := course.claim(clk.Now()); j != nil; j = course.claim(clk.Now()) {
			course.post(j)
		}
		clk.Advance(time.Minute)
	}
	if course.kept() != "1" || len(course.arrive) != 1 {
		t.Errorf("the course got %v in that order and keeps %s; want the 1 alone", course.arrive, course.kept())
	}
	jobs, err := course.ls.LTIScoreJobs(ctx, 5)
	if err != nil || len(jobs) != 2 || jobs[0].Outcome != "sent" || jobs[1].Outcome != "superseded" {
		t.Errorf("the queue: %+v (%v); want the 1 sent and the 0.5 superseded", jobs, err)
	}
}

// testLTIScoreNewerAfterLapsedClaim: a replica claimed Ada's 0.5 and
// stalled; its claim runs out while the 1 is queued behind it. The 0.5
// is superseded (its worker gave up its send long before its claim ran
// out, lti.SendTimeout), and the 1 is the one sent.
func testLTIScoreNewerAfterLapsedClaim(t *testing.T, h Harness) {
	clk, course, queue := scoreOrderCourse(t, h)
	if old := course.claim(clk.Now()); old == nil {
		t.Fatal("nothing to claim")
	}
	queue(1)
	if j := course.claim(clk.Now()); j != nil {
		t.Fatalf("a second replica claimed %+v while the 0.5's claim stands", j)
	}
	clk.Advance(2 * time.Minute)
	for j := course.claim(clk.Now()); j != nil; j = course.claim(clk.Now()) {
		course.post(j)
	}
	if course.kept() != "1" || len(course.arrive) != 1 {
		t.Errorf("the course got %v in that order and keeps %s; want the 1 alone", course.arrive, course.kept())
	}
}

// testLTIScoreStalePostResent: a replica claimed Ada's 0.5 and stalled
// past its claim; the 1 queued meanwhile superseded it and was sent.
// Then the stalled worker's post of the 0.5 reached the course after all,
// and the course keeps it: the 1 is sent again, so it is the last the
// course gets. Before, the queue took the 1 for the course's, and the
// course kept 0.5.
func testLTIScoreStalePostResent(t *testing.T, h Harness) {
	clk, course, queue := scoreOrderCourse(t, h)
	stale := course.claim(clk.Now())
	if stale == nil {
		t.Fatal("nothing to claim")
	}
	clk.Advance(2 * time.Minute)
	queue(1)
	for j := course.claim(clk.Now()); j != nil; j = course.claim(clk.Now()) {
		course.post(j)
	}
	course.post(stale)
	for j := course.claim(clk.Now()); j != nil; j = course.claim(clk.Now()) {
		course.post(j)
	}
	if course.kept() != "1" {
		t.Errorf("the course got %v in that order and keeps %s; want the 1 last", course.arrive, course.kept())
	}
}
