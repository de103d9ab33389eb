package engine_test

import (
	"testing"

	"github.com/leaselab/playground/engine"
)

// lostRenewal is ambiguous-commit with a 3 s lease that client-1 renews
// every second while it works for 5 s, and node-1's crash at crashAt:
// swept across client-1's first renewal (applied at 1.25 s, committed at
// 1.35 s, answered at 1.4 s), the renewal's answer is lost, by node-1
// that stopped or by node-2 that commits it in its own term.
func lostRenewal(t *testing.T, crashAt int64) engine.Scenario {
	t.Helper()
	sc := mustPreset(t, "ambiguous-commit", true)
	sc.Lock.Lease = engine.Ms(3000)
	sc.Clients[0].RenewEvery = engine.Ms(1000)
	sc.Clients[0].Steps[2].For = engine.Ms(5000)
	sc.Clients[1].RetryEvery = engine.Ms(500)
	sc.Faults[0].At = engine.Ms(crashAt)
	return sc
}

// TestALostRenewalSaysTheLeaseItGranted: a renewal the service applied
// and never answered extended the lease; its answer_lost carries the
// lease end the service holds, and the lease ends then (its
// lease_expired), not where the last heard renewal left it.
func TestALostRenewalSaysTheLeaseItGranted(t *testing.T) {
	ended := 0
	for at := int64(1250); at <= 1400; at += 10 {
		res := mustRun(t, lostRenewal(t, at))
		var lost *engine.Event
		for i, e := range res.Events {
			switch {
			case e.Kind == engine.KindAnswerLost && e.Message == "renew":
				lost = &res.Events[i]
				if e.LeaseUntil != 3000+1250 {
					t.Errorf("crash at %dms: %s's answer_lost at %s carries lease_until %d, want 4250 (%q)", at, e.Actor, engine.FormatMS(e.T), e.LeaseUntil, e.Reason)
				}
			case lost != nil && e.Kind == engine.KindRenewed && e.Token == lost.Token:
				lost = nil // a renewal heard later moves the lease on
			case lost != nil && e.Kind == engine.KindLeaseExpired && e.Token == lost.Token:
				if e.T != lost.LeaseUntil {
					t.Errorf("crash at %dms: the lease ends at %s, its lost renewal said %s", at, engine.FormatMS(e.T), engine.FormatMS(lost.LeaseUntil))
				}
				ended++
				lost = nil
			}
		}
	}
	if ended == 0 {
		t.Fatal("no crash time lost a renewal's answer before its lease ended: the sweep tests nothing")
	}
}
