package storetest

import (
	"context"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
)

// passOnReveals runs the score queue's worker over the reveals waiting,
// as a server (of any replica) does, and returns how many it passed on.
func passOnReveals(t *testing.T, ls classroom.LTIStore) int {
	t.Helper()
	tool := lti.New(lti.Config{Store: ls})
	defer tool.Close()
	n, err := tool.QueueReveals(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// testLTIRevealKept: a teacher's reveal to a class of a course is kept in
// the database with the settings, until the queue's worker has queued
// every launched learner's standing: after a restart in between, the
// learners who had not solved the exercise are queued their 0 and the
// one who had solved it keeps 1. It is passed on once; a class that came
// from no course keeps nothing for the queue.
func testLTIRevealKept(t *testing.T, h Harness) {
	ctx := context.Background()
	addr := h.New(t)
	s := h.MustOpen(t, addr, classroom.Options{})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada", "Bo", "Cy")
	mustRecord(t, s, cc.learners["Ada"].Token, classroom.Attempt{Exercise: "num", Answer: "x", Graded: true})
	mustRecord(t, s, cc.learners["Cy"].Token, classroom.Attempt{Exercise: "num", Answer: "y", Graded: true, Correct: true})
	plain := mustCreate(t, s, "No course")
	mustJoin(t, s, plain.Class.Code, "Dee")
	revealNum(t, s, cc.class.Code, cc.key)
	revealNum(t, s, plain.Class.Code, plain.TeacherKey)
	if jobs, err := ls.LTIScoreJobs(ctx, 10); err != nil || len(jobs) != 0 {
		t.Fatalf("the reveal itself queued %d scores (%v); want none before the worker runs", len(jobs), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = h.MustOpen(t, addr, classroom.Options{}) // a restart
	ls = ltiStore(t, s)
	if n := passOnReveals(t, ls); n != 1 {
		t.Errorf("the worker passed on %d reveals; want the course's class's 1", n)
	}
	for name, want := range map[string]float64{"Ada": 0, "Bo": 0, "Cy": 1} {
		if j, ok := queuedFor(t, ls, "sub-"+name); !ok || j.Given != want || j.Maximum != 1 || j.Pending {
			t.Errorf("%s's score for the course after the reveal: %+v (queued %v); want %v of 1", name, j, ok, want)
		}
	}
	jobs, err := ls.LTIScoreJobs(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if n := passOnReveals(t, ls); n != 0 {
		t.Errorf("the worker's next pass passed on %d reveals; want none", n)
	}
	if again, err := ls.LTIScoreJobs(ctx, 100); err != nil || len(again) != len(jobs) {
		t.Errorf("the worker's next pass left %d scores queued, was %d (%v)", len(again), len(jobs), err)
	}
}

// testLTIRevealLaterLearner: a learner who first launches into a class
// after the teacher revealed an exercise to it stands at revealed with 0
// there, and the course is queued that 0 too (the gradebook export's
// cell), not a blank until their next answer.
func testLTIRevealLaterLearner(t *testing.T, h Harness) {
	s := h.MustNew(t, classroom.Options{})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	cc := launchCourse(t, ls, p.ID, "Ada")
	revealNum(t, s, cc.class.Code, cc.key)
	passOnReveals(t, ls)
	launchLearner(t, ls, p.ID, "Eve")
	if n := passOnReveals(t, ls); n != 1 {
		t.Errorf("the worker passed on %d reveals after Eve's first launch; want hers", n)
	}
	if j, ok := queuedFor(t, ls, "sub-Eve"); !ok || j.Given != 0 || j.Maximum != 1 {
		t.Errorf("Eve, who came after the reveal, is queued %+v (queued %v); want 0 of 1", j, ok)
	}
	launchLearner(t, ls, p.ID, "Eve") // a later launch of hers is not a first
	if n := passOnReveals(t, ls); n != 0 {
		t.Errorf("Eve's second launch passed on %d reveals; want none", n)
	}
}
