package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// firstEvent returns the first event of a client of the given kind, or
// false.
func firstEvent(res *engine.Result, actor, kind string) (engine.Event, bool) {
	for _, e := range res.Events {
		if e.Actor == actor && e.Kind == kind {
			return e, true
		}
	}
	return engine.Event{}, false
}

// lostAnswerScenario: client-1's first acquire reaches a single server at
// 0.5 s and is granted until 10.5 s, but client-1 is cut off at 0.7 s, so
// the answer never comes back. It asks again at 3 s and is given the same
// grant: the service keeps the first grant's end. A careful client times
// its lease from its first request (0 s), so by its true clock the lease
// it may count on ends at 10 s; timed from the retry it would end at 13 s.
// Its work ends at 4 s + 7.5 s = 11.5 s: past 10 s, before 13 s.
func lostAnswerScenario(t *testing.T) engine.Scenario {
	t.Helper()
	sc, err := engine.DecodeScenario([]byte(`{"title":"lost acquire answer","seed":1,"until":"40s",
	 "lock":{"backend":"single","lease":"10s","latency":"500ms"},
	 "clients":[
	  {"name":"client-1","retry_every":"2s","watch_lease":true,"steps":[{"do":"acquire"},{"do":"work","for":"7500ms"},{"do":"read"},{"do":"write","add":1},{"do":"release"}]},
	  {"name":"client-2","start":"5s","retry_every":"500ms","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":10},{"do":"work","for":"3s"},{"do":"release"}]}],
	 "faults":[{"at":"700ms","do":"partition","side":["client-1"],"for":"1s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestCarefulClientTimesLeaseFromFirstAttempt: after a lost answer and a
// retry, a careful client with a true clock must not count on its lease
// past the end the service recorded for the first grant. It gives the job
// up before the read that would follow the lease's end, and writes
// nothing.
func TestCarefulClientTimesLeaseFromFirstAttempt(t *testing.T) {
	res := mustRun(t, lostAnswerScenario(t))
	if _, ok := firstEvent(res, "node-1", engine.KindAnswerLost); !ok {
		t.Fatal("the first acquire's answer was not lost: the scenario does not test what it should")
	}
	g, ok := firstEvent(res, "client-1", engine.KindGranted)
	if !ok || g.LeaseUntil != 10500 {
		t.Fatalf("client-1's grant: %+v; want the first grant's end, 10.5 s by the server", g)
	}
	lost, ok := firstEvent(res, "client-1", engine.KindLockLost)
	if !ok {
		t.Fatalf("client-1 never gave up its lease, though by its true clock it ran out at 10 s: %s", jsonOf(t, res.Events))
	}
	if lost.T > 11500 {
		t.Errorf("client-1 gave up at %d ms, after the lease ran out", lost.T)
	}
	if w := writes(res, "client-1"); len(w) != 0 {
		t.Errorf("client-1 wrote after its lease ran out: %+v", w)
	}
	if !res.Summary.Safe || res.Summary.StaleWritesAccepted != 0 {
		t.Errorf("summary %+v: want safe", res.Summary)
	}
}

// careful makes client-1 of a scenario a careful client with every option.
func careful(t *testing.T, sc engine.Scenario, margin string) engine.Scenario {
	t.Helper()
	var err error
	for _, kv := range [][2]string{{"watch_lease", "true"}, {"lease_margin", margin}, {"interrupt", "true"}} {
		if sc, err = engine.SetField(sc, "clients[client-1]."+kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if sc.Clients[0].RenewEvery.IsSet() {
		if sc, err = engine.SetField(sc, "clients[client-1].stop_on_renew_timeout", "true"); err != nil {
			t.Fatal(err)
		}
	}
	return sc
}

// TestLeaseMarginCoversDrift: a careful client whose clock runs at 0.8
// works 11 s of true time under a 10 s lease; its clock reads 8.8 s, so
// by its clock the lease still runs and it writes after client-2 took the
// lock. A margin of 3 s (drift and round trips, as Chubby and Redlock
// subtract) makes it give up instead.
func TestLeaseMarginCoversDrift(t *testing.T) {
	build := func(margin string) engine.Scenario {
		sc, err := engine.DecodeScenario([]byte(`{"title":"drift","seed":1,"until":"40s",
		 "lock":{"backend":"single","lease":"10s"},
		 "clients":[
		  {"name":"client-1","watch_lease":true,"lease_margin":"` + margin + `","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"11s"},{"do":"write","add":1}]},
		  {"name":"client-2","start":"1s","retry_every":"1s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":10},{"do":"release"}]}],
		 "faults":[{"at":"0s","do":"clock_drift","target":"client-1","rate":0.8}]}`))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	without := mustRun(t, build("0s"))
	if without.Summary.Safe {
		t.Fatalf("without a margin the drifting client should write stale: %+v", without.Summary)
	}
	with := mustRun(t, build("3s"))
	if len(writes(with, "client-1")) != 0 || !with.Summary.Safe {
		t.Errorf("with a 3 s margin client-1 should give up before writing: %+v", with.Summary)
	}
	if _, ok := firstEvent(with, "client-1", engine.KindLockLost); !ok {
		t.Error("client-1 gave nothing up")
	}
}

// TestStopOnRenewTimeoutGivesUpEarly: a careful client cut off from the
// lock service (the storage still reachable) cannot renew. With
// stop_on_renew_timeout and interrupt it gives up during its work at the
// first renewal that fails (3 s), long before its 10 s lease runs out;
// without stop_on_renew_timeout its watch waits for the lease's end.
func TestStopOnRenewTimeoutGivesUpEarly(t *testing.T) {
	build := func(stop bool) engine.Scenario {
		sc, err := engine.DecodeScenario([]byte(`{"title":"suspended","seed":1,"until":"40s",
		 "lock":{"backend":"raft","nodes":3,"lease":"10s"},
		 "clients":[{"name":"client-1","renew_every":"3s","watch_lease":true,"interrupt":true,"steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"20s"},{"do":"write","add":1}]}],
		 "faults":[{"at":"1s","do":"partition","side":["client-1"],"for":"30s"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		sc.Clients[0].StopOnRenewTimeout = stop
		return sc
	}
	lostAt := func(sc engine.Scenario) int64 {
		res := mustRun(t, sc)
		e, ok := firstEvent(res, "client-1", engine.KindLockLost)
		if !ok {
			t.Fatalf("client-1 never gave up: %s", jsonOf(t, res.Events))
		}
		if _, ok := firstEvent(res, "client-1", engine.KindWorkInterrupted); !ok {
			t.Errorf("client-1's work was not interrupted")
		}
		return e.T
	}
	if at := lostAt(build(true)); at > 4000 {
		t.Errorf("with stop_on_renew_timeout client-1 gave up at %d ms, want by the first failed renewal (3 s) and a poll", at)
	}
	if at := lostAt(build(false)); at != 10000 {
		t.Errorf("without it client-1's watch gave up at %d ms, want at its lease's end, 10 s", at)
	}
}

// TestInterruptStopsWorkAtLeaseEnd: a careful client with no renewal
// works 30 s under a 10 s lease. With interrupt its watch stops the work
// when its clock reaches the lease's end less the margin (8 s); without,
// it learns at the next step (30 s).
func TestInterruptStopsWorkAtLeaseEnd(t *testing.T) {
	for _, tc := range []struct {
		interrupt bool
		want      int64
	}{{true, 8000}, {false, 30000}} {
		sc, err := engine.DecodeScenario([]byte(`{"title":"interrupt","seed":1,"until":"40s",
		 "lock":{"backend":"single","lease":"10s"},
		 "clients":[{"name":"client-1","watch_lease":true,"lease_margin":"2s","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"30s"},{"do":"write","add":1}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		sc.Clients[0].Interrupt = tc.interrupt
		res := mustRun(t, sc)
		e, ok := firstEvent(res, "client-1", engine.KindLockLost)
		if !ok || e.T != tc.want {
			t.Errorf("interrupt %v: lock_lost %+v (found %v), want at %d ms", tc.interrupt, e, ok, tc.want)
		}
	}
}

// TestCarefulOptionsCannotSaveInFlightOrPaused: every option of a careful
// client at once (a 2 s margin, stop_on_renew_timeout, interrupt) does not
// stop a write the network already holds (delayed-write) nor one made
// right after a pause that fell after the client's last look
// (check-then-write): without fencing both are still accepted stale.
// Fencing refuses both.
func TestCarefulOptionsCannotSaveInFlightOrPaused(t *testing.T) {
	for _, name := range []string{"delayed-write", "check-then-write"} {
		t.Run(name, func(t *testing.T) {
			off := mustRun(t, careful(t, mustPreset(t, name, false), "2s"))
			if off.Summary.Safe || off.Summary.StaleWritesAccepted == 0 {
				t.Errorf("fencing off, careful client: want a stale write accepted, got %+v", off.Summary)
			}
			on := mustRun(t, careful(t, mustPreset(t, name, true), "2s"))
			if !on.Summary.Safe || on.Summary.WritesRefused == 0 {
				t.Errorf("fencing on: want the late write refused and the run safe, got %+v", on.Summary)
			}
		})
	}
}

// TestCarefulOptionsNeedWatchLease: each option belongs to a careful
// client; set without watch_lease it is refused, naming the field.
func TestCarefulOptionsNeedWatchLease(t *testing.T) {
	for _, field := range []string{"lease_margin=1s", "interrupt=true", "stop_on_renew_timeout=true"} {
		sc := mustPreset(t, "paused-holder", false)
		k, v, _ := strings.Cut(field, "=")
		sc, err := engine.SetField(sc, "clients[0]."+k, v)
		if err != nil {
			t.Fatal(err)
		}
		_, err = engine.Prepare(sc)
		if err == nil || !strings.Contains(err.Error(), "clients[0]."+k) {
			t.Errorf("%s without watch_lease: %v", field, err)
		}
	}
	sc := mustPreset(t, "paused-holder", false, "clients[0].watch_lease", "true", "clients[0].lease_margin", "10s")
	if _, err := engine.Prepare(sc); err == nil || !strings.Contains(err.Error(), "clients[0].lease_margin") {
		t.Errorf("a margin as long as the lease: %v", err)
	}
}
