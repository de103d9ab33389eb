package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
)

// TestHistoryJudgedByTrueTime: a lease lock promises its holder the lock
// for the lease, in true time. When the lock server's clock jumps ahead
// (clock-jump, a single server) or a Raft leader's clock runs three times
// fast, the server grants the lock again while the first lease still runs
// in true time: a double grant, which no order of the operations can
// explain. The check must say "not linearizable", and say beside it that
// by the server's own clock each grant was legal. A healthy run stays
// linearizable and gets no such note.
func TestHistoryJudgedByTrueTime(t *testing.T) {
	drift, err := engine.DecodeScenario([]byte(`{"title":"fast leader clock","seed":1,"until":"40s",
	 "lock":{"backend":"raft","nodes":3,"lease":"9s"},
	 "clients":[
	  {"name":"client-1","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"6s"},{"do":"write","add":1}]},
	  {"name":"client-2","start":"1s","retry_every":"1s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":10},{"do":"release"}]}],
	 "faults":[{"at":"0s","do":"clock_drift","target":"node-1","rate":3}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, sc := range map[string]engine.Scenario{
		"clock-jump":        mustPreset(t, "clock-jump", false),
		"raft-leader-drift": drift,
	} {
		t.Run(name, func(t *testing.T) {
			res := mustRun(t, sc)
			if res.Summary.DoubleGrants == 0 {
				t.Fatalf("no double grant in true time: the scenario does not test what it should (%+v)", res.Summary)
			}
			h := res.History()
			if got := h.Check(10 * time.Second); got != engine.LinearizableIllegal {
				t.Errorf("a double grant in true time: the history check says %q, want illegal", got)
			}
			if note := h.ClockNote(10 * time.Second); !strings.Contains(note, "node-1's clock, each grant was legal") {
				t.Errorf("clock note %q, want it to say that by node-1's clock each grant was legal", note)
			}
		})
	}
	// Every backend whose lease ends by a server's clock: the same jump,
	// the same verdict, and the lease's end blamed on the clock (with its
	// true end), not on an outage (there was none).
	for _, backend := range []string{"single", "raft", "etcd", "zookeeper", "async-replica"} {
		t.Run("clock-jump/"+backend, func(t *testing.T) {
			sc := mustPreset(t, "clock-jump", false)
			sc.Lock.Backend = backend
			res := mustRun(t, sc)
			if res.Summary.DoubleGrants == 0 {
				t.Fatalf("no double grant in true time (%+v)", res.Summary)
			}
			h := res.History()
			if got := h.Check(10 * time.Second); got != engine.LinearizableIllegal {
				t.Errorf("a double grant in true time: the history check says %q, want illegal", got)
			}
			if note := h.ClockNote(10 * time.Second); !strings.Contains(note, "node-1's clock, each grant was legal") {
				t.Errorf("clock note %q, want it to say that by node-1's clock each grant was legal", note)
			}
			for _, e := range res.Events {
				if e.Kind != engine.KindLeaseExpired || e.Holder != "client-1" {
					continue
				}
				if strings.Contains(e.Message, "no node that knew of it served") || !strings.Contains(e.Message, "ahead of true time, ended it early: in true time it was to last until 10s") {
					t.Errorf("client-1's lease end at %s is told as %q: the jump ended it, nothing was down", engine.FormatMS(e.T), e.Message)
				}
			}
		})
	}
	zk := mustPreset(t, "baseline", false)
	zk.Lock.Backend = "zookeeper"
	if got := mustRun(t, zk).History().Check(10 * time.Second); got != engine.LinearizableOK {
		t.Errorf("baseline on zookeeper: %q", got)
	}
	healthy := mustRun(t, mustPreset(t, "baseline", false))
	if got := healthy.History().Check(10 * time.Second); got != engine.LinearizableOK {
		t.Errorf("baseline: %q", got)
	}
	if note := healthy.History().ClockNote(10 * time.Second); note != "" {
		t.Errorf("baseline has a clock note: %q", note)
	}
}

// TestLockSafeApartFromSafe: on clock-jump with fencing the server grants
// the lock twice at once; fencing refuses the stale write, so the data is
// right (safe) but the lock broke its promise (lock_safe false), and the
// verdict must say both rather than "SAFE". A healthy run is both.
func TestLockSafeApartFromSafe(t *testing.T) {
	res := mustRun(t, mustPreset(t, "clock-jump", true))
	s := res.Summary
	if !s.Safe || s.DoubleGrants == 0 {
		t.Fatalf("clock-jump with fencing should be data-safe with a double grant: %+v", s)
	}
	if s.LockSafe {
		t.Errorf("a double grant: lock_safe must be false: %+v", s)
	}
	if v := engine.Verdict(s); strings.HasPrefix(v, "SAFE") || !strings.Contains(v, "DATA SAFE, LOCK BROKEN") || !strings.Contains(v, "granted twice") {
		t.Errorf("verdict %q: it must say the data is safe and the lock broken", v)
	}
	ok := mustRun(t, mustPreset(t, "baseline", false)).Summary
	if !ok.Safe || !ok.LockSafe || !strings.HasPrefix(engine.Verdict(ok), "SAFE") {
		t.Errorf("baseline: %+v, %q", ok, engine.Verdict(ok))
	}
}

// TestAClockEndedLeaseIsToldSoWhereverTheJumpFalls: the clock jump of
// clock-jump swept across client-1's lease (and its size with it), on
// every server-clock backend: whenever the lease ends before its true
// end, the event blames the clock and gives the true end, and never an
// outage (nothing is down in this scenario).
func TestAClockEndedLeaseIsToldSoWhereverTheJumpFalls(t *testing.T) {
	early := 0
	for _, backend := range []string{"single", "raft", "etcd", "zookeeper", "async-replica"} {
		for at := int64(500); at < 10000; at += 1500 {
			for _, by := range []int64{3000, 9000, 20000} {
				sc := mustPreset(t, "clock-jump", false)
				sc.Lock.Backend = backend
				sc.Faults[0].At, sc.Faults[0].By = engine.Ms(at), engine.Ms(by)
				for _, e := range mustRun(t, sc).Events {
					if e.Kind != engine.KindLeaseExpired || e.Holder != "client-1" {
						continue
					}
					if strings.Contains(e.Message, "no node that knew of it served") {
						t.Errorf("%s, +%s at %s: the lease end blames an outage: %q", backend, engine.FormatMS(by), engine.FormatMS(at), e.Message)
					}
					if e.T < 10000 {
						early++
						if !strings.Contains(e.Message, "ended it early: in true time it was to last until") {
							t.Errorf("%s, +%s at %s: a lease ended at %s, before its true end, is told as %q", backend, engine.FormatMS(by), engine.FormatMS(at), engine.FormatMS(e.T), e.Message)
						}
					}
				}
			}
		}
	}
	if early == 0 {
		t.Fatal("no jump ended a lease early: the sweep tests nothing")
	}
}
