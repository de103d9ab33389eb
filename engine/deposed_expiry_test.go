package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestDeposedClockEndsOnlyItsCopy: chaos seed 195 (chaos195). node-1,
// deposed at 9.782s but still serving client-3, jumps its clock 6.4s
// ahead at 14.6s and so ends its own record of client-3's token 33;
// node-2, the primary the other clients reach, still holds its copy of
// that lease until 15.67s and refuses them by it. Before, the timeline
// said the lock service ended the lease at 14.6s, then 50ms later that
// node-2's copy brought it back: the service never stopped counting it.
func TestDeposedClockEndsOnlyItsCopy(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(chaos195))
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sc)
	for _, e := range res.Events {
		if e.Holder == "client-3" && e.Token == 33 && (e.Kind == engine.KindGrantBack || e.Kind == engine.KindLeaseExpired && e.Actor != "node-2") {
			t.Errorf("%s by %s at %dms: %q; the primary node-2 held the lease throughout", e.Kind, e.Actor, e.T, engine.Describe(e))
		}
	}
	var end []engine.Event
	for _, e := range find(res, "node-2", engine.KindLeaseExpired) {
		if e.Holder == "client-3" && e.Token == 33 {
			end = append(end, e)
		}
	}
	if len(end) != 1 || end[0].T != 15670 || !end[0].RenewalsLost {
		t.Fatalf("node-2's lease_expired of client-3's token 33: %v, want one at 15.67s with renewals_lost", end)
	}
	// client-3, on node-1's side, still hears node-1's clock end it.
	want := "the lease of token 33 ran out at 20.95s by node-1's clock, 6.4s ahead of true time"
	checks := find(res, "client-3", engine.KindCheckFailed)
	if len(checks) == 0 || checks[0].T != 14700 || !strings.Contains(checks[0].Reason, want) {
		t.Errorf("client-3's check_failed %v, want at 14.7s saying %q", checks, want)
	}
}

// TestDeposedExpiryLeavesServingLease sweeps generated async-replica
// runs: a lease_expired said by a node other than the primary in place
// (a deposed one, by its own clock) is never followed by that primary
// refusing someone for the same holder and token, or bringing that lease
// back: while the primary held it, the service had not ended it (chaos
// seeds 195, 818).
func TestDeposedExpiryLeavesServingLease(t *testing.T) {
	eachAsyncRun(t, 1000, func(seed int64, fencing bool, sc engine.Scenario, res *engine.Result) {
		if msg := deposedEndServed(res, sc.Lock.Latency.MS()); msg != "" {
			t.Errorf("seed %d fencing %v: %s", seed, fencing, msg)
		}
	})
}

// deposedEndServed returns the first refusal or grant_back by the primary
// in place for a lease a deposed node said ended while that primary was
// in place, or "".
func deposedEndServed(res *engine.Result, latency int64) string {
	type lease struct {
		holder string
		token  int64
	}
	primary := ""
	ended := map[lease]engine.Event{}
	for _, e := range res.Events {
		switch e.Kind {
		case engine.KindLeader:
			primary = e.Actor
			clear(ended)
		case engine.KindLeaseExpired:
			if primary != "" && e.Actor != primary && e.Token != 0 {
				ended[lease{e.Holder, e.Token}] = e
			}
		case engine.KindGranted:
			delete(ended, lease{e.Actor, e.Token})
		case engine.KindGrantBack, engine.KindAcquireRefused:
			l := lease{e.Holder, e.Token}
			x, ok := ended[l]
			if !ok || e.Node != primary || e.Kind == engine.KindAcquireRefused && e.T-latency <= x.T {
				continue
			}
			return fmt.Sprintf("%s said %s's token %d ended at %dms, while %s, the primary, %s at %dms: %q",
				x.Actor, l.holder, l.token, x.T, primary, e.Kind, e.T, engine.Describe(e))
		}
	}
	return ""
}
