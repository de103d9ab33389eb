package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testLTIScoreOrderReplicas: each learner's 0.5 was claimed by a replica
// that stalled, and their 1 is queued behind it. Once those claims have
// run out, replicas claim the queue together: each learner's 1 is
// claimed exactly once, and no 0.5 is claimed (each is superseded), so
// no course is sent an older score after a newer one.
func testLTIScoreOrderReplicas(t *testing.T, h Harness) {
	if !h.Replicas {
		t.Skip("one server process per store")
	}
	ctx := context.Background()
	clock := NewClock()
	addr := h.New(t)
	ls := ltiStore(t, h.MustOpen(t, addr, classroom.Options{Now: clock.Now}))
	p := mustPlatform(t, ls)
	const n = 8
	var classID int64
	learners := make([]int64, n)
	for i := range n {
		r, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: fmt.Sprint("u", i), Name: fmt.Sprint("L", i),
			ResourceLinkID: "link", Target: "exercise:ex", LineItemURL: "https://lms.example.edu/li"})
		if err != nil {
			t.Fatal(err)
		}
		classID, learners[i] = r.Class.ID, r.Session.Learner.ID
	}
	queue := func(given float64) {
		for _, l := range learners {
			if q, err := ls.EnqueueLTIScore(ctx, classID, l, "exercise:ex", given, 1, false); err != nil || q != 1 {
				t.Fatalf("queue %g: %d %v", given, q, err)
			}
		}
	}
	queue(0.5)
	for range n {
		if j, err := ls.ClaimLTIScore(ctx, clock.Now(), time.Minute); err != nil || j == nil || j.Given != 0.5 {
			t.Fatalf("the stalled replica's claim: %+v %v", j, err)
		}
	}
	queue(1)
	claims := map[string][]float64{}
	claimOnReplicas(t, h, addr, ls, clock, clock.Now().Add(2*time.Minute), func(j *classroom.LTIScoreJob) {
		claims[j.UserSub] = append(claims[j.UserSub], j.Given)
	})
	if len(claims) != n {
		t.Errorf("%d learners' scores claimed, want %d", len(claims), n)
	}
	for sub, got := range claims {
		if len(got) != 1 || got[0] != 1 {
			t.Errorf("%s's scores claimed: %v; want their 1 once", sub, got)
		}
	}
}
