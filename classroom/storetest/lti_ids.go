package storetest

import (
	"context"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// testLTIIdentifiersAreThePlatforms: a learner joined the course's class
// by its code with a classmate's student ID and email, before the
// classmate's first launch. The platform says whose they are: the
// launch gives them to the classmate and takes them from the other row,
// so that a gradebook import matching rows by them finds one, the
// platform's learner. Before, both rows had them, and an import kept
// one of the two.
func testLTIIdentifiersAreThePlatforms(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	launch := classroom.LTILaunch{PlatformID: p.ID, ContextID: "course-ids", Sub: "u-ada", Name: "Ada",
		Email: "ada@uni.example.edu", StudentID: "s1815", ResourceLinkID: "link-ids", Target: "exercise:ex1"}
	teacher := launch
	teacher.Sub, teacher.Instructor, teacher.Name = "u-grace", true, "Grace"
	rt, err := ls.LTILaunch(ctx, teacher)
	if err != nil {
		t.Fatal(err)
	}
	eve, err := s.JoinAs(ctx, rt.Class.Code, classroom.Profile{Name: "Eve", StudentID: "S1815", Email: "ADA@uni.example.edu"})
	if err != nil {
		t.Fatal(err)
	}
	ada, err := ls.LTILaunch(ctx, launch)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Dashboard(ctx, rt.Class.Code, rt.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range d.Learners {
		switch l.ID {
		case ada.Session.Learner.ID:
			if l.StudentID != "s1815" || l.Email != "ada@uni.example.edu" {
				t.Errorf("the platform's Ada: %q, %q; want her student ID and email", l.StudentID, l.Email)
			}
		case eve.Learner.ID:
			if l.StudentID != "" || l.Email != "" {
				t.Errorf("Eve, who joined with Ada's identifiers, keeps %q, %q; want none", l.StudentID, l.Email)
			}
		}
	}
}
