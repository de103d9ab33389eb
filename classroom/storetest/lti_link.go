package storetest

import (
	"context"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// testLTILinkKeepsItsLineItem: a launch of a graded link without the
// grades claim, or whose target the tool could not tell, keeps the line
// item a graded launch stored, so scores go on reaching it; a launch of
// the link that now opens something else leaves that column, which was
// the other target's.
func testLTILinkKeepsItsLineItem(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	launch := func(sub, target, lineItem string, instructor bool) *classroom.LTILaunchResult {
		t.Helper()
		r, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: sub, Name: sub, Instructor: instructor,
			ResourceLinkID: "l", Target: target, LineItemURL: lineItem})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ada := launch("u1", "exercise:ex", "https://lms.example.edu/li/ex", false)
	launch("t1", "exercise:ex", "", true)
	launch("u2", "exercise:ex", "", false)
	launch("u3", "", "", false) // a launch whose target the tool could not tell
	if n, err := ls.EnqueueLTIScore(ctx, ada.Class.ID, ada.Session.Learner.ID, "exercise:ex", 1, 1, false); err != nil || n != 1 {
		t.Fatalf("after launches without the grades claim, a score queued %d (%v), want 1: the line item was erased", n, err)
	}
	launch("t1", "exercise:other", "", true)
	for _, target := range []string{"exercise:ex", "exercise:other"} {
		if n, err := ls.EnqueueLTIScore(ctx, ada.Class.ID, ada.Session.Learner.ID, target, 0.5, 1, false); err != nil || n != 0 {
			t.Errorf("once the link opens exercise:other, a score on %s queued %d (%v), want 0", target, n, err)
		}
	}
}
