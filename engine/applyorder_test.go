package engine_test

import (
	"fmt"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestSameInstantAnswersInApplyOrder: a lock service applies one command
// after another, and a renewal only ever moves a lease's end later. So, for
// one holder, the lease end its answers report can only grow in the order
// the log applied them. Here client-1's check and its renewal reach the
// Raft leader at the same instant, the check first (the worker sends it
// before the renewal loop wakes): the check must report the lease as it
// was (40 s) and appear before the renewal that moves it to 50 s. Shown
// the other way round, the timeline says the lease shrank.
func TestSameInstantAnswersInApplyOrder(t *testing.T) {
	for _, latency := range []int64{0, 50} {
		for _, backend := range []string{"raft", "single", "etcd"} {
			t.Run(fmt.Sprintf("%s/latency=%dms", backend, latency), func(t *testing.T) {
				sc := engine.Scenario{
					Seed: 1, Until: engine.Sec(60),
					Lock:    engine.Lock{Backend: backend, Lease: engine.Sec(30), Latency: engine.Ms(latency)},
					Storage: engine.Storage{Key: "k", Initial: 1},
					Clients: []engine.Client{{
						Name: "client-1", RenewEvery: engine.Sec(10),
						Steps: []engine.Step{{Do: "acquire"}, {Do: "work", For: engine.Sec(20)}, {Do: "check"}, {Do: "release"}},
					}},
				}
				res := mustRun(t, sc)
				checks := find(res, "client-1", engine.KindCheckOK)
				if len(checks) != 1 {
					t.Fatalf("one check should pass: %v", checks)
				}
				at := checks[0].T
				var seen []string
				last := int64(0)
				for _, e := range res.Events {
					if e.Actor != "client-1" || (e.Kind != engine.KindGranted && e.Kind != engine.KindRenewed && e.Kind != engine.KindCheckOK) {
						continue
					}
					if e.T == at {
						seen = append(seen, fmt.Sprintf("%s until %s", e.Kind, engine.FormatMS(e.LeaseUntil)))
					}
					if e.LeaseUntil < last {
						t.Errorf("at %s the timeline shows the lease end going back from %s to %s (%s): events at one instant must appear in the order the log applied them; at that instant: %v",
							engine.FormatMS(e.T), engine.FormatMS(last), engine.FormatMS(e.LeaseUntil), e.Kind, seen)
					}
					last = max(last, e.LeaseUntil)
				}
				if len(seen) != 2 {
					t.Errorf("the check and a renewal should be answered at the same instant: %v", seen)
				}
			})
		}
	}
}
