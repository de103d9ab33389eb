package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestGrantBackJudgedByMachineTime: chaos seed 916 (chaos916). node-1's
// fast clock stamps the copies node-2 applies, so node-2's state machine
// judges leases by a time near 55.8s from 21.986s on, though node-2's own
// clock reads true time. Before, node-2's promotion said a grant_back of
// client-3's token 35 until 50.344s by node-2's clock; but node-2's
// machine had ended that lease, and it granted token 36 to client-1 at
// 32.9s, while the timeline said client-3 held the lock.
func TestGrantBackJudgedByMachineTime(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(chaos916))
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sc)
	for _, e := range find(res, "node-2", engine.KindGrantBack) {
		if e.Holder == "client-3" && e.Token == 35 {
			t.Errorf("grant_back at %dms says node-2 counts client-3's token 35: %q; node-2's machine had ended that lease", e.T, engine.Describe(e))
		}
	}
	granted := false
	for _, e := range res.Events {
		if e.Kind == engine.KindGranted && e.Actor == "client-1" && e.Token == 36 && e.Node == "node-2" && e.T == 32900 {
			granted = true
		}
	}
	if !granted {
		t.Errorf("node-2 did not grant token 36 to client-1 at 32.9s; the run changed")
	}
	if msg := grantedOverBack(res); msg != "" {
		t.Error(msg)
	}
}

// TestReleaseForgottenJudgedByMachineTime: chaos seed 453 (chaos453).
// node-1's clock, 4 times as fast, stamps client-2's grant of token 34 and
// the copies node-2 receives, so node-2's machine time runs past that
// lease's end (13.535s) before node-2 is promoted at 9.159s. Before, the
// promotion said a grant_back of the lease until 13.535s, and the release
// node-2 never received said "by its record client-2 holds the lock
// again, until 13.535s", then a lease_expired at 13.535s: node-2's machine
// would have granted the lock to anyone who asked.
func TestReleaseForgottenJudgedByMachineTime(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(chaos453))
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sc)
	for _, e := range res.Events {
		switch {
		case e.Kind == engine.KindGrantBack && e.Holder == "client-2" && e.Token == 34,
			e.Kind == engine.KindReleaseForgotten && e.Holder == "client-2" && e.Token == 34 && strings.Contains(engine.Describe(e), "holds the lock again"):
			t.Errorf("%s at %dms says node-2 still counts client-2's token 34: %q; node-2's machine had ended that lease", e.Kind, e.T, engine.Describe(e))
		case e.Kind == engine.KindLeaseExpired && e.Holder == "client-2" && e.Token == 34 && e.T > 7250:
			t.Errorf("lease_expired at %dms ends client-2's token 34 again: %q; it ended at 7.25s", e.T, engine.Describe(e))
		}
	}
}

// TestGrantBackHeldUntilItEnds sweeps generated async-replica runs: after
// a grant_back (or a release_forgotten) by node N for a holder's token,
// N grants nobody else the lock unless an event first says that lease
// ended (lease_expired, released, grant_forgotten) or N lost its state
// (crashed, restarted, rejoined): what the timeline says N holds is what
// N's state machine answers (chaos seeds 453, 916).
func TestGrantBackHeldUntilItEnds(t *testing.T) {
	eachAsyncRun(t, 1000, func(seed int64, fencing bool, _ engine.Scenario, res *engine.Result) {
		if msg := grantedOverBack(res); msg != "" {
			t.Errorf("seed %d fencing %v: %s", seed, fencing, msg)
		}
	})
}

// grantedOverBack returns the first grant a node made to another client
// while a grant_back or release_forgotten by that node said a lease it
// counts still ran, with no event since saying it ended; "" when none.
func grantedOverBack(res *engine.Result) string {
	type lease struct {
		holder string
		token  int64
	}
	back := map[string]lease{}        // per node: the lease it was said to count again
	said := map[string]engine.Event{} // per node: the event that said so
	end := func(l lease) {
		for n, b := range back {
			if b == l {
				delete(back, n)
			}
		}
	}
	for _, e := range res.Events {
		switch e.Kind {
		case engine.KindGrantBack, engine.KindReleaseForgotten:
			back[e.Node] = lease{e.Holder, e.Token}
			said[e.Node] = e
		case engine.KindLeaseExpired, engine.KindGrantForgotten:
			end(lease{e.Holder, e.Token})
		case engine.KindReleased:
			end(lease{e.Actor, e.Token})
		case engine.KindNodeCrashed, engine.KindNodeRestarted, engine.KindRejoined:
			delete(back, e.Node)
		case engine.KindGranted:
			if b, ok := back[e.Node]; ok && e.Actor != b.holder {
				s := said[e.Node]
				return fmt.Sprintf("%s granted %s token %d at %dms, but %s at %dms said it counts %s's token %d until %d by its clock: %q",
					e.Node, e.Actor, e.Token, e.T, s.Kind, s.T, b.holder, b.token, s.LeaseUntil, engine.Describe(s))
			}
			end(lease{e.Actor, e.Token})
		}
	}
	return ""
}

const chaos916 = `{"title": "chaos 916",
 "seed": 916,
 "fencing": true,
 "until": "1m0s",
 "lock": {"backend": "async-replica", "nodes": 2, "lease": "11s", "first_token": 33, "replication_lag": "200ms", "election": "1.1s", "latency": "0s", "name": "account-42"},
 "storage": {"table": "records", "key": "account-42", "initial": 1000},
 "clients": [
  {"name": "client-1", "start": "6.7s", "renew_every": "2.31s", "retry_every": "2s", "on_refused": "retry", "watch_lease": true, "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "12.1s"}, {"do": "check"}, {"do": "write", "add": 300}, {"do": "release"}]},
  {"name": "client-2", "start": "100ms", "renew_every": "2.97s", "retry_every": "1s", "on_refused": "stop", "watch_lease": true, "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "8.8s"}, {"do": "write", "add": 100}, {"do": "release"}]},
  {"name": "client-3", "start": "9.2s", "retry_every": "1s", "on_refused": "stop", "watch_lease": true, "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "3.3s"}, {"do": "check"}, {"do": "write", "add": 100}, {"do": "release"}]}],
 "faults": [
  {"at": "4.164s", "do": "clock_drift", "target": "node-1", "for": "15.44s", "rate": 5},
  {"at": "20.886s", "do": "crash", "target": "node-1"}]}`

const chaos453 = `{"title": "chaos 453",
 "seed": 453,
 "fencing": true,
 "until": "1m0s",
 "lock": {"backend": "async-replica", "nodes": 2, "lease": "5s", "first_token": 33, "replication_lag": "400ms", "election": "700ms", "latency": "0s", "name": "account-42"},
 "storage": {"table": "records", "key": "account-42", "initial": 1000},
 "clients": [
  {"name": "client-1", "start": "3.1s", "retry_every": "1.5s", "on_refused": "retry", "watch_lease": true, "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "1s"}, {"do": "check"}, {"do": "write", "add": 900}, {"do": "release"}]},
  {"name": "client-2", "start": "4s", "renew_every": "1.35s", "retry_every": "2s", "on_refused": "stop", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "4.5s"}, {"do": "write", "add": 600}, {"do": "release"}]}],
 "faults": [
  {"at": "13.5s", "do": "partition", "target": "node-2", "for": "1.9s"},
  {"at": "5.155s", "do": "clock_drift", "target": "node-1", "for": "7.085s", "rate": 4},
  {"at": "8.459s", "do": "partition", "side": ["client-2", "node-1"], "for": "8.806s"}]}`
