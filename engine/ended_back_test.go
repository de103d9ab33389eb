package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestEndedLeaseBroughtBackIsSaid: chaos seed 80 (chaos80). node-1's fast
// clock ends client-3's token 35 at 16.35s, but node-2, promoted at
// 16.738s, holds its copy of that lease until 35.638s by its own clock
// and refuses client-1 by it until client-3 releases at 29.4s. Before,
// nothing on the timeline said the lease was back: the lock read as free
// from 16.35s while node-2 refused everybody for client-3.
func TestEndedLeaseBroughtBackIsSaid(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(chaos80))
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sc)
	back := find(res, "node-2", engine.KindGrantBack)
	if len(back) != 1 {
		t.Fatalf("grant_back events %v, want one by node-2", back)
	}
	b := back[0]
	want := "node-2's copy of client-3's lease (token 35) outlives its end at 16.35s: the promoted replica counts it until 35.638s by its clock"
	if b.T != 16738 || b.Holder != "client-3" || b.Token != 35 || b.LeaseUntil != 35638 || !strings.Contains(engine.Describe(b), want) {
		t.Errorf("grant_back at %dms for %s token %d until %d: %q, want at 16.738s for client-3 token 35 until 35.638s saying %q",
			b.T, b.Holder, b.Token, b.LeaseUntil, engine.Describe(b), want)
	}
	if !b.Ended {
		t.Errorf("grant_back %q does not mark the lease as one that had ended", engine.Describe(b))
	}
	if res.Summary.ForgottenGrants != 0 {
		t.Errorf("forgotten_grants %d, want 0: nothing was forgotten", res.Summary.ForgottenGrants)
	}
}

// TestEndedLeaseIsNeverDefendedUnsaid sweeps generated async-replica
// runs: after a lease's lease_expired, no node refuses a request as held
// by that lease's holder and token, and none renews it, unless a
// grant_back said the lease came back (chaos seeds 80, 708, 813).
func TestEndedLeaseIsNeverDefendedUnsaid(t *testing.T) {
	eachAsyncRun(t, 1000, func(seed int64, fencing bool, sc engine.Scenario, res *engine.Result) {
		if msg := endedDefended(res, sc.Lock.Latency.MS()); msg != "" {
			t.Errorf("seed %d fencing %v: %s", seed, fencing, msg)
		}
	})
}

// endedDefended returns the first refusal or renewal that a node served
// (latency before its answer arrived) after that lease's lease_expired
// with no grant_back since, or "". A renewal heard as its client wakes
// from a pause was served before it.
func endedDefended(res *engine.Result, latency int64) string {
	type lease struct {
		holder string
		token  int64
	}
	ended := map[lease]int64{}
	woke := map[string]int64{}
	for _, e := range res.Events {
		switch e.Kind {
		case engine.KindPauseEnd:
			woke[e.Actor] = e.T
		case engine.KindLeaseExpired:
			ended[lease{e.Holder, e.Token}] = e.T
		case engine.KindGrantBack:
			delete(ended, lease{e.Holder, e.Token})
		case engine.KindGranted:
			delete(ended, lease{e.Actor, e.Token})
		case engine.KindAcquireRefused:
			if at, ok := ended[lease{e.Holder, e.Token}]; ok && e.Token != 0 && e.T-latency > at {
				return fmt.Sprintf("%s refused %s at %dms, held by %s (token %d), a lease that ended at %dms: %q",
					e.Node, e.Actor, e.T, e.Holder, e.Token, at, engine.Describe(e))
			}
		case engine.KindRenewed:
			if at, ok := ended[lease{e.Actor, e.Token}]; ok && e.Token != 0 && e.T-latency > at && woke[e.Actor] != e.T {
				return fmt.Sprintf("%s renewed %s's token %d at %dms, a lease that ended at %dms: %q",
					e.Node, e.Actor, e.Token, e.T, at, engine.Describe(e))
			}
		}
	}
	return ""
}
