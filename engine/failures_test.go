package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
	"go.uber.org/goleak"
)

// The presets of the four ways a lease lock fails, and the designs people
// argue about, fenced and not.
func TestFailurePresets(t *testing.T) {
	cases := []struct {
		preset   string
		fencings []bool
		check    func(t *testing.T, res *engine.Result, fencing bool)
	}{
		{"clock-jump", []bool{false, true}, func(t *testing.T, res *engine.Result, fencing bool) {
			if j := find(res, "node-1", engine.KindClockJump); len(j) != 1 || j[0].By != 9000 {
				t.Fatalf("node-1's clock should jump 9 s: %v", j)
			}
			if e := find(res, "node-1", engine.KindLeaseExpired); len(e) == 0 || e[0].T != 2000 {
				t.Errorf("by the jumped clock client-1's lease ends at once, at 2 s: %v", e)
			}
			grantAt(t, res, "client-2", 34, 3000)
			s := res.Summary
			if s.DoubleGrants != 1 {
				t.Errorf("client-2 is granted while client-1's lease is still running in true time: %+v", s)
			}
			if find(res, "client-1", engine.KindLockLost) != nil && find(res, "client-1", engine.KindLockLost)[0].T < 8000 {
				t.Errorf("client-1 is healthy and notices nothing before it writes")
			}
			if fencing {
				lastWrite(t, res, "client-1", engine.KindWriteRefused, 33, 8000)
				if !s.Safe {
					t.Errorf("fencing refuses the stale write: %+v", s)
				}
			} else {
				lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 8000)
				if s.Safe || s.StaleWritesAccepted != 1 {
					t.Errorf("unfenced, the stale write lands: %+v", s)
				}
			}
		}},
		{"async-failover", []bool{false, true}, func(t *testing.T, res *engine.Result, fencing bool) {
			grantAt(t, res, "client-1", 33, 0)
			grantAt(t, res, "client-2", 33, 1500)
			if p := find(res, "node-2", engine.KindLeader); len(p) != 1 || p[0].T != 1200 {
				t.Errorf("the replica should be promoted 1 s after the crash: %v", p)
			}
			s := res.Summary
			if s.DoubleGrants != 1 || s.DuplicateTokens != 1 || s.Safe || !s.LostUpdate {
				t.Errorf("token 33 twice, and fencing cannot tell the holders apart: %+v", s)
			}
			lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 5000)
			if res.History().Linearizable(5 * time.Second) {
				t.Errorf("a history with token 33 granted twice passed the linearizability check")
			}
		}},
		{"raft-failover", []bool{false, true}, func(t *testing.T, res *engine.Result, fencing bool) {
			if c := find(res, "node-1", engine.KindNodeCrashed); len(c) != 1 || c[0].T != 200 {
				t.Fatalf("node-1 should crash at 200 ms: %v", c)
			}
			if l := find(res, "node-2", engine.KindLeader); len(l) != 1 || l[0].T != 1200 {
				t.Errorf("node-2 should lead 1 s after the crash: %v", l)
			}
			refused := find(res, "client-2", engine.KindAcquireRefused)
			if len(refused) == 0 || refused[0].Holder != "client-1" || refused[0].Token != 33 {
				t.Errorf("the new leader knows client-1 holds token 33: %v", refused)
			}
			grantAt(t, res, "client-2", 34, 5500)
			s := res.Summary
			if s.DoubleGrants != 0 || s.DuplicateTokens != 0 || !s.Safe || s.UnavailableMS != 1000 {
				t.Errorf("no double grant, no duplicate token, 1 s without a leader: %+v", s)
			}
			if !res.History().Linearizable(5 * time.Second) {
				t.Errorf("a Raft history across a failover should be linearizable")
			}
		}},
		{"lock-server-down", []bool{false, true}, func(t *testing.T, res *engine.Result, fencing bool) {
			s := res.Summary
			if s.UnavailableMS != 36000 {
				t.Errorf("unavailable from 4 s to 40 s: %d ms", s.UnavailableMS)
			}
			stopped := find(res, "client-1", engine.KindRenewStopped)
			if len(stopped) != 1 || stopped[0].T != 15000 || !strings.Contains(stopped[0].Reason, "own clock") {
				t.Errorf("client-1's renewal loop should stop by its own clock at 15 s: %v", stopped)
			}
			lost := find(res, "client-1", engine.KindLockLost)
			if len(lost) != 1 || lost[0].T != 20000 || !strings.Contains(lost[0].Reason, "own clock") {
				t.Errorf("client-1 watches its lease: before its write at 20 s its own clock says the lease is over: %v", lost)
			}
			if len(find(res, "client-1", engine.KindWriteSent)) != 0 || len(find(res, "client-1", engine.KindGaveUp)) != 1 {
				t.Errorf("client-1 must stop without writing")
			}
			if len(find(res, "client-2", engine.KindGranted)) != 0 {
				t.Errorf("nobody can take the lock while the only server is down")
			}
		}},
		{"restart-forgets", []bool{false, true}, func(t *testing.T, res *engine.Result, fencing bool) {
			grantAt(t, res, "client-1", 33, 1500)
			grantAt(t, res, "client-2", 33, 2000)
			if f := find(res, "node-1", engine.KindGrantForgotten); len(f) != 1 || f[0].Holder != "client-1" {
				t.Errorf("the restart should forget client-1's grant: %v", f)
			}
			s := res.Summary
			if s.DuplicateTokens != 1 || s.DoubleGrants != 1 || s.Safe {
				t.Errorf("the grant is handed out again: %+v", s)
			}
		}},
		{"sms-reminder", []bool{false, true}, func(t *testing.T, res *engine.Result, fencing bool) {
			s := res.Summary
			if s.SideEffects != 2 || s.DuplicateSideEffects != 1 || s.Safe {
				t.Errorf("two SMS, fencing or not: %+v", s)
			}
		}},
		{"redlock-clock-jump", []bool{false}, func(t *testing.T, res *engine.Result, fencing bool) {
			g1, g2 := find(res, "client-1", engine.KindGranted), find(res, "client-2", engine.KindGranted)
			if len(g1) != 1 || !strings.Contains(g1[0].Message, "node-1, node-2, node-3") {
				t.Fatalf("client-1 should hold nodes 1, 2 and 3: %v", g1)
			}
			if len(g2) != 1 || !strings.Contains(g2[0].Message, "node-3, node-4, node-5") || g2[0].T != 3000 {
				t.Fatalf("client-2 should hold nodes 3, 4 and 5 at 3 s: %v", g2)
			}
			if g1[0].Token != 0 || g2[0].Token != 0 {
				t.Errorf("Redlock hands out no token")
			}
			s := res.Summary
			if s.DoubleGrants != 1 || s.Safe || s.StaleWritesAccepted != 1 {
				t.Errorf("two majorities at once, and nothing to fence with: %+v", s)
			}
		}},
	}
	for _, tc := range cases {
		for _, fencing := range tc.fencings {
			t.Run(fmt.Sprintf("%s/fencing=%v", tc.preset, fencing), func(t *testing.T) {
				t.Parallel()
				tc.check(t, mustRun(t, mustPreset(t, tc.preset, fencing)), fencing)
			})
		}
	}
}

// TestIdempotencyKeyDropsTheRepeat: the same reminder with one key is sent once.
func TestIdempotencyKeyDropsTheRepeat(t *testing.T) {
	sc := mustPreset(t, "sms-reminder", true,
		"clients[client-1].steps[2].idempotency_key", "reminder-order-7-2026-11-29",
		"clients[client-2].steps[1].idempotency_key", "reminder-order-7-2026-11-29")
	res := mustRun(t, sc)
	s := res.Summary
	if s.SideEffects != 1 || s.DuplicateSideEffects != 0 || !s.Safe {
		t.Errorf("one SMS: %+v", s)
	}
	if d := find(res, "sms", engine.KindSMSDropped); len(d) != 1 || d[0].Client != "client-1" {
		t.Errorf("client-1's repeat should be dropped: %v", d)
	}
}

// TestRedlockRefusesFencing: there is no token, so fencing is an error
// that names the field.
func TestRedlockRefusesFencing(t *testing.T) {
	sc := mustPreset(t, "redlock-clock-jump", false)
	sc.Fencing = true
	_, err := engine.Prepare(sc)
	var fe *engine.FieldError
	if !errors.As(err, &fe) || fe.Field != "fencing" {
		t.Errorf("got %v, want an error naming fencing", err)
	}
}

// TestPartitionedLeaderStepsDown cuts the Raft leader off: it steps down,
// requests go unanswered for lock.election, a new leader serves, and the
// healed node rejoins. No goroutine outlives the run.
func TestPartitionedLeaderStepsDown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	sc := mustPreset(t, "raft-failover", true)
	sc.Faults = []engine.Fault{{At: engine.Ms(200), Do: "partition", Target: "leader", For: engine.Sec(3)}}
	res := mustRun(t, sc)
	if d := find(res, "node-1", engine.KindSteppedDown); len(d) != 1 || d[0].T != 200 {
		t.Errorf("node-1 should step down at 200 ms: %v", d)
	}
	if l := find(res, "node-2", engine.KindLeader); len(l) != 1 || l[0].T != 1200 {
		t.Errorf("node-2 should lead at 1.2 s: %v", l)
	}
	if h := find(res, "node-1", engine.KindHealed); len(h) != 1 || h[0].T != 3200 {
		t.Errorf("node-1 should be reachable again at 3.2 s: %v", h)
	}
	s := res.Summary
	if !s.Safe || s.DoubleGrants != 0 || s.UnavailableMS != 1000 {
		t.Errorf("%+v", s)
	}
}

// TestRaftRestartRejoins crashes a follower and the leader, restarts the
// follower with its log, and checks the group serves on and the history
// stays linearizable.
func TestRaftRestartRejoins(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	sc := mustPreset(t, "raft-failover", true)
	sc.Faults = []engine.Fault{
		{At: engine.Ms(100), Do: "crash", Target: "node-3"},
		{At: engine.Ms(200), Do: "crash", Target: "leader"},
		{At: engine.Ms(2000), Do: "restart", Target: "node-3"},
	}
	res := mustRun(t, sc)
	if l := find(res, "", engine.KindLeader); len(l) != 2 || l[1].Actor != "node-2" || l[1].T != 3000 {
		t.Errorf("with 1 of 3 up nobody leads; node-3's restart at 2 s restores a majority and node-2 leads 1 s later: %v", l)
	}
	s := res.Summary
	if !s.Safe || s.DoubleGrants != 0 || s.DuplicateTokens != 0 || s.UnavailableMS != 2800 {
		t.Errorf("%+v", s)
	}
	if !res.History().Linearizable(5 * time.Second) {
		t.Errorf("not linearizable")
	}
	grantAt(t, res, "client-2", 34, 5500)
}

func TestBadFaults(t *testing.T) {
	p, err := engine.LoadPreset("raft-failover")
	if err != nil {
		t.Fatal(err)
	}
	single, _ := engine.LoadPreset("lock-server-down")
	ride, _ := engine.LoadPreset("ride-claim")
	cases := []struct {
		name  string
		base  engine.Scenario
		fault engine.Fault
		field string
		says  string
	}{
		{"unknown node", p.Scenario, engine.Fault{At: engine.Sec(1), Do: "crash", Target: "node-7"}, "faults[0].target", "node-1 to node-3"},
		{"not a node", p.Scenario, engine.Fault{At: engine.Sec(1), Do: "crash", Target: "server"}, "faults[0].target", `no client or lock node is named "server"`},
		{"restart of a live node", p.Scenario, engine.Fault{At: engine.Sec(1), Do: "restart", Target: "node-2"}, "faults[0].target", "node-2 is not down at 1s"},
		{"restart of the leader", p.Scenario, engine.Fault{At: engine.Sec(1), Do: "restart", Target: "leader"}, "faults[0].target", "needs a node by name"},
		{"partition of a lone server", single.Scenario, engine.Fault{At: engine.Sec(1), Do: "partition", Target: "node-1", For: engine.Sec(1)}, "faults[0].target", "no peer to be cut off from"},
		{"partition without for", p.Scenario, engine.Fault{At: engine.Sec(1), Do: "partition", Target: "node-2"}, "faults[0].for", "is required"},
		{"restart of a client", p.Scenario, engine.Fault{At: engine.Sec(1), Do: "restart", Target: "client-1"}, "faults[0].target", "aims at a lock node"},
		{"clock jump of nothing", p.Scenario, engine.Fault{At: engine.Sec(1), Do: "clock_jump", Target: "node-2", By: engine.Ms(0)}, "faults[0].by", "changes nothing"},
		{"clock jump too far", p.Scenario, engine.Fault{At: engine.Sec(1), Do: "clock_jump", Target: "client-1", By: engine.Sec(-7200)}, "faults[0].by", "between -1h0m0s and 1h0m0s"},
		{"node fault without a lock", ride.Scenario, engine.Fault{At: engine.Sec(1), Do: "crash", Target: "node-1"}, "faults[0].target", "no client uses the lock service"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := tc.base
			sc.Faults = []engine.Fault{tc.fault}
			_, err := engine.Prepare(sc)
			var fe *engine.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.says) {
				t.Errorf("got %v, want %s saying %q", err, tc.field, tc.says)
			}
		})
	}
	// Backends and their fields.
	for _, tc := range []struct{ path, value, field, says string }{
		{"lock.backend", "async-replica", "lock.nodes", "2 nodes, not 3"},
		{"lock.persist_every", "1s", "lock.persist_every", "only single and redlock take it, not raft"},
		{"lock.replication_lag", "2m", "lock.replication_lag", "between 0s and 1m0s, not 2m0s"},
	} {
		sc, err := engine.SetField(p.Scenario, tc.path, tc.value)
		if err == nil {
			_, err = engine.Prepare(sc)
		}
		var fe *engine.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.says) {
			t.Errorf("%s=%s: got %v, want %s saying %q", tc.path, tc.value, err, tc.field, tc.says)
		}
	}
}
