package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// renewalsLostDiskRuns runs, on Raft and ZooKeeper, a holder renewing
// every 2 s while one follower (the lagger) is cut off from 1s to 7s, so
// its log has client-1's grant but none of its renewals; then the leader
// node-1 crashes and the other follower loses its disk, and client-1
// freezes at 5.5s, renewing nothing more. The lagger is elected at 8s
// with the grant's first lease. Swept over which follower lags, when the
// crash and the lost disk strike, and the lease's length. check gets each
// run with its name.
func renewalsLostDiskRuns(t *testing.T, check func(name string, res *engine.Result)) {
	t.Helper()
	for _, backend := range []string{"raft", "zookeeper"} {
		for _, lagger := range []string{"node-2", "node-3"} {
			loser := map[string]string{"node-2": "node-3", "node-3": "node-2"}[lagger]
			for _, lease := range []int64{6000, 9000, 10000} {
				for _, at := range []int64{3500, 5000} {
					src := fmt.Sprintf(`{"title":"renewals lost with a disk","seed":1,"fencing":true,"until":"40s",
						"lock":{"backend":%q,"nodes":3,"lease":"%dms","election":"1s"},
						"storage":{"key":"account-42","initial":0},
						"clients":[{"name":"client-1","renew_every":"2s","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"14s"},{"do":"write","add":1},{"do":"release"}]},
						{"name":"client-2","start":"1500ms","retry_every":"1s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1},{"do":"release"}]}],
						"faults":[{"at":"1s","do":"partition","side":[%q],"for":"6s"},{"at":"5500ms","do":"pause","target":"client-1","for":"8s"},
						{"at":"%dms","do":"crash","target":"node-1"},{"at":"%dms","do":"lose_disk","target":%q}]}`,
						backend, lease, lagger, at, at, loser)
					sc, err := engine.DecodeScenario([]byte(src))
					if err != nil {
						t.Fatal(err)
					}
					check(fmt.Sprintf("%s, %s cut off, lease %s, crash and lost disk at %s", backend, lagger, engine.FormatMS(lease), engine.FormatMS(at)), mustRun(t, sc))
				}
			}
		}
	}
}

// TestALostDiskSaysItTookRenewals: the leader elected without client-1's
// renewals holds its lease by the grant alone. When that lease ran out
// already, the grant is said forgotten when the leader is elected; when it
// still runs, client-2 is refused until it ends, each refusal naming that
// end (not, as before, "by node-1's clock; in true time it runs until
// 14s": node-1 was down, and the lease ended at 10s), and its
// lease_expired says the renewals were lost, marked renewals_lost, when
// the service really lets client-2 in. The summary counts it, and the
// verdict blames it for the double grant, which it named nothing for
// before; chaos counts such a history explained.
func TestALostDiskSaysItTookRenewals(t *testing.T) {
	cut, forgot, kept := 0, 0, 0
	renewalsLostDiskRuns(t, func(name string, res *engine.Result) {
		checkLostGrantsNamed(t, name, res)
		g1 := find(res, "client-1", engine.KindGranted)
		leaders := find(res, "", engine.KindLeader)
		if len(g1) != 1 || len(leaders) < 2 {
			t.Fatalf("%s: client-1 granted %v, leaders %v", name, g1, leaders)
		}
		elected, record := leaders[len(leaders)-1].T, g1[0].LeaseUntil
		renewed := record
		for _, r := range find(res, "client-1", engine.KindRenewed) {
			if r.T < elected {
				renewed = r.LeaseUntil
			}
		}
		s := res.Summary
		v := engine.Verdict(s)
		var lost []engine.Event
		for _, e := range find(res, "", engine.KindLeaseExpired) {
			if e.RenewalsLost {
				lost = append(lost, e)
			}
		}
		if s.LostRenewals != len(lost) || strings.Contains(v, "lost the renewals") != (len(lost) > 0) {
			t.Errorf("%s: %d lease_expired with renewals_lost, summary %d; verdict %q", name, len(lost), s.LostRenewals, v)
		}
		g2 := find(res, "client-2", engine.KindGranted)
		if len(g2) == 0 {
			t.Fatalf("%s: client-2 never granted", name)
		}
		switch {
		case renewed <= elected: // the lease ran out with or without the renewals
			kept++
			if len(lost) != 0 || s.ForgottenGrants != 0 || s.DoubleGrants != 0 {
				t.Errorf("%s: nothing was lost, yet %d leases cut back, %d grants forgotten; verdict %q", name, len(lost), s.ForgottenGrants, v)
			}
		case record <= elected: // by the leader's record it ran out
			forgot++
			if len(lost) != 0 || s.ForgottenGrants != 1 || !strings.Contains(v, "forgot 1 grant while its lease ran") {
				t.Errorf("%s: the record's lease ended at %s, before the election at %s: want the grant forgotten; %d leases cut back; verdict %q",
					name, engine.FormatMS(record), engine.FormatMS(elected), len(lost), v)
			}
		default:
			cut++
			if len(lost) != 1 || s.ForgottenGrants != 0 {
				t.Errorf("%s: want 1 lease cut back to %s, got %d, and %d grants forgotten; verdict %q", name, engine.FormatMS(record), len(lost), s.ForgottenGrants, v)
				return
			}
			e := lost[0]
			says := fmt.Sprintf("a lost disk took the copies of the renewals that kept this lease, and %s was elected by nodes whose logs lack them: in true time it was to last until %s",
				leaders[len(leaders)-1].Node, engine.FormatMS(renewed))
			if e.T != record || e.Holder != "client-1" || !strings.Contains(e.Message, says) {
				t.Errorf("%s: at %s %s says %q, want at %s %q", name, engine.FormatMS(e.T), e.Actor, engine.Describe(e), engine.FormatMS(record), says)
			}
			if g2[0].T < e.T {
				t.Errorf("%s: client-2 granted at %s, before the lease's end at %s", name, engine.FormatMS(g2[0].T), engine.FormatMS(e.T))
			}
			for _, r := range find(res, "client-2", engine.KindAcquireRefused) {
				if r.T < elected {
					continue
				}
				if w := engine.Describe(r); r.T >= e.T || !strings.Contains(w, fmt.Sprintf("held by client-1 (token %d) until %s", e.Token, engine.FormatMS(record))) || strings.Contains(w, "true time") {
					t.Errorf("%s: at %s client-2 was told %q; the lease ran until %s by the leader's true clock", name, engine.FormatMS(r.T), engine.Describe(r), engine.FormatMS(record))
				}
			}
			if !strings.Contains(v, "the lock was granted twice at once 1 time") || !strings.Contains(v, "the lock service lost the renewals that kept 1 lease, and ended it early") {
				t.Errorf("%s: verdict %q", name, v)
			}
		}
	})
	if cut == 0 || forgot == 0 || kept == 0 {
		t.Fatalf("runs with a lease cut back: %d, a grant forgotten: %d, nothing lost: %d: the sweep proves too little", cut, forgot, kept)
	}
}

// TestALostDiskSaysItTookHeartbeats: on ZooKeeper, the leader elected
// without client-1's heartbeats closes its session by the grant's first
// lease. Its session_expired blames the log the lost disk left, not a
// clock: before, it said "by its clock, client-1's session timeout has
// passed; in true time it heard from client-1 at 4s", though every clock
// read true time and the leader never heard it.
func TestALostDiskSaysItTookHeartbeats(t *testing.T) {
	said := 0
	renewalsLostDiskRuns(t, func(name string, res *engine.Result) {
		lost := len(find(res, "", engine.KindGrantForgotten)) + res.Summary.LostRenewals
		for _, e := range find(res, "", engine.KindSessionExpired) {
			if e.Holder != "client-1" {
				continue
			}
			w := engine.Describe(e)
			if strings.Contains(w, "by its clock") {
				t.Errorf("%s: %s says %q: no clock was off", name, e.Actor, w)
			}
			if lost > 0 {
				said++
				if !strings.Contains(w, "its log lacks client-1's latest heartbeats: a lost disk took the copies of the renewals") {
					t.Errorf("%s: %s says %q, not that its log lacks the heartbeats", name, e.Actor, w)
				}
			}
		}
	})
	if said == 0 {
		t.Fatal("no session closed for heartbeats a lost disk took: the sweep proves nothing")
	}
}

// TestChaosExplainsLostRenewals: chaos on ZooKeeper with lost disks, seed
// 262, finds a history that is not linearizable because the leader
// elected after the lost disk held client's lease without its renewals
// and let another client in early; nothing was forgotten whole. Chaos
// counts it explained by what the service forgot. Before, it was left
// unexplained (past the 200 seeds TestChaosExplainsEveryLostDiskHistory
// runs).
func TestChaosExplainsLostRenewals(t *testing.T) {
	rep := mustChaos(t, engine.ChaosOptions{Runs: 1, Seed: 262, Backend: engine.BackendZooKeeper, Fencing: true, LoseDisk: true, Examples: 1})
	if l := rep.Linearizability; l.Illegal != 1 || rep.IllegalByClock != 0 || rep.IllegalForgotten != 1 {
		t.Errorf("seed 262: %+v, %d by a clock, %d with something forgotten: want the one illegal history explained by lost renewals", l, rep.IllegalByClock, rep.IllegalForgotten)
	}
}
