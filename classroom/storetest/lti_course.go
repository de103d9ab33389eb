package storetest

import (
	"context"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// courseLineItem is the line item of the graded link, opening the
// exercise "num", of the course in the tests of a course's class.
const courseLineItem = "https://lms.example.edu/li/num"

// courseClass is a class made by launches from a course: its teacher's
// key and the learners who came by a launch into a graded link that
// opens the exercise "num", by name.
type courseClass struct {
	class    *classroom.Class
	key      string
	learners map[string]*classroom.Session
}

// launchCourse launches the teacher and the named learners (each their
// own sub) into the course's graded link.
func launchCourse(t *testing.T, ls classroom.LTIStore, platformID int64, names ...string) courseClass {
	t.Helper()
	ctx := context.Background()
	link := classroom.LTILaunch{PlatformID: platformID, ContextID: "c", ResourceLinkID: "l", Target: "exercise:num", LineItemURL: courseLineItem}
	teacher := link
	teacher.Sub, teacher.Name, teacher.Instructor = "t1", "Teacher", true
	rt, err := ls.LTILaunch(ctx, teacher)
	if err != nil {
		t.Fatal(err)
	}
	cc := courseClass{class: rt.Class, key: rt.TeacherKey, learners: map[string]*classroom.Session{}}
	for _, name := range names {
		cc.learners[name] = launchLearner(t, ls, platformID, name)
	}
	return cc
}

// launchLearner launches the learner of this name (sub "sub-NAME") into
// the course's graded link.
func launchLearner(t *testing.T, ls classroom.LTIStore, platformID int64, name string) *classroom.Session {
	t.Helper()
	r, err := ls.LTILaunch(context.Background(), classroom.LTILaunch{PlatformID: platformID, ContextID: "c", Sub: "sub-" + name, Name: name,
		ResourceLinkID: "l", Target: "exercise:num", LineItemURL: courseLineItem})
	if err != nil {
		t.Fatal(err)
	}
	return r.Session
}

// queuedFor is the score the course is left with for a learner (by sub)
// on courseLineItem, and whether there is one.
func queuedFor(t *testing.T, ls classroom.LTIStore, sub string) (classroom.LTIScoreJob, bool) {
	t.Helper()
	jobs, err := ls.LTIScoreJobs(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs { // newest first
		if j.LineItemURL == courseLineItem && j.UserSub == sub && j.Outcome != "superseded" && j.Outcome != "failed" && j.Outcome != "withdrawn" {
			return j, true
		}
	}
	return classroom.LTIScoreJob{}, false
}
