package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// asyncOutScenario: on async-replica, the replica is out from out for
// outFor (cut off from the monitor and everyone, or down and restarted
// then), and the primary crashes at crash, and restarts at restart when it
// is not 0. client-1 holds the lock from 0 s and renews; client-2 asks
// from 1 s; client-3 asks at 45 s, after every fault is over.
func asyncOutScenario(cut bool, out, outFor, crash, restart int64) engine.Scenario {
	sc := engine.Scenario{
		Title: "the replica is out when the primary crashes", Seed: 1, Fencing: true, Until: engine.Sec(70),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Lease: engine.Sec(10), Election: engine.Sec(1),
			ReplicationLag: engine.Ms(500)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{
			{Name: "client-1", RenewEvery: engine.Sec(3), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(12)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
			{Name: "client-2", Start: engine.Sec(1), RetryEvery: engine.Sec(1), RenewEvery: engine.Sec(3), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(4)}, {Do: "write", Add: ptr(int64(200))}, {Do: "release"}}},
			{Name: "client-3", Start: engine.Sec(45), RetryEvery: engine.Sec(1), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "write", Add: ptr(int64(300))}, {Do: "release"}}},
		},
	}
	if cut {
		sc.Faults = append(sc.Faults, engine.Fault{At: engine.Ms(out), Do: "partition", Side: []string{"node-2"}, For: engine.Ms(outFor)})
	} else {
		sc.Faults = append(sc.Faults, engine.Fault{At: engine.Ms(out), Do: "crash", Target: "node-2"},
			engine.Fault{At: engine.Ms(out + outFor), Do: "restart", Target: "node-2"})
	}
	sc.Faults = append(sc.Faults, engine.Fault{At: engine.Ms(crash), Do: "crash", Target: "node-1"})
	if restart > 0 {
		sc.Faults = append(sc.Faults, engine.Fault{At: engine.Ms(restart), Do: "restart", Target: "node-1"})
	}
	return sc
}

// TestAsyncFailoverTriesAgain: wherever the primary's crash falls while
// the replica is out of the monitor's reach (cut off, or down), and however
// long it stays out, the lock service serves again once a node is back:
// the failover that found nobody to promote tries again when the partition
// heals or a node restarts, promoting the replica with what it has, or
// letting the old primary serve again when it is the one that came back.
// Every grant the service lost on the way is named by a grant_forgotten
// event before anyone is told otherwise. Before, the monitor said "no node
// can be promoted" once and never tried again: nobody was granted the lock
// for the rest of the run.
func TestAsyncFailoverTriesAgain(t *testing.T) {
	stuck, forgot := 0, 0
	for _, cut := range []bool{true, false} {
		for _, out := range []int64{2000, 5000, 9000} {
			for _, outFor := range []int64{1500, 4000, 9000, 20000} {
				for _, after := range []int64{-1000, 0, 300, 1200, 3500, 8000} {
					for _, restartIn := range []int64{0, 2500} {
						crash := out + after
						restart := int64(0)
						if restartIn > 0 {
							restart = crash + restartIn
						}
						sc := asyncOutScenario(cut, out, outFor, crash, restart)
						name := fmt.Sprintf("cut=%v/out=%d+%d/crash=%d/restart=%d", cut, out, outFor, crash, restart)
						res := mustRun(t, sc)
						for _, e := range find(res, "", engine.KindNoLeader) {
							if e.T < out+outFor {
								stuck++
							}
						}
						checkServesAgain(t, name, res)
						checkLostGrantsNamed(t, name, res)
						forgot += res.Summary.ForgottenGrants
					}
				}
			}
		}
	}
	if stuck == 0 {
		t.Fatal("no case left the monitor without a node to promote: the sweep tests nothing")
	}
	if forgot == 0 {
		t.Fatal("no case lost a grant: the sweep tests none of their names")
	}
}

// checkServesAgain: client-3, asking after every fault is over, is granted
// the lock and writes.
func checkServesAgain(t *testing.T, name string, res *engine.Result) {
	t.Helper()
	if g := find(res, "client-3", engine.KindGranted); len(g) == 0 {
		var leaders []string
		for _, e := range res.Events {
			if e.Kind == engine.KindLeader || e.Kind == engine.KindNoLeader {
				leaders = append(leaders, fmt.Sprintf("%s %s %s%s", engine.FormatMS(e.T), e.Actor, e.Message, e.Reason))
			}
		}
		t.Errorf("%s: client-3 asks at 45 s, after every fault, and is never granted the lock; primaries: %q", name, leaders)
		return
	}
	if w := writes(res, "client-3"); len(w) != 1 || w[0].Kind != engine.KindWriteAccepted {
		t.Errorf("%s: client-3's write should be accepted: %v", name, w)
	}
}

// checkLostGrantsNamed: a grant the lock service lost while its lease ran,
// as granted or renewed (its holder told it holds nothing, or another
// client granted the lock), was named by a grant_forgotten event first,
// or, when the service kept the grant without the renewals that held it,
// by a lease_expired that says so; the summary counts the forgotten ones.
func checkLostGrantsNamed(t *testing.T, name string, res *engine.Result) {
	t.Helper()
	type key struct {
		client string
		token  int64
	}
	until := map[key]int64{} // the lease of each grant not given back
	forgotten := map[key]bool{}
	lost := func(k key, now int64, why string) {
		if end, ok := until[k]; ok && now < end && !forgotten[k] {
			t.Errorf("%s: at %s %s, while %s's lease of token %d ran until %s, and no grant_forgotten said the service lost it",
				name, engine.FormatMS(now), why, k.client, k.token, engine.FormatMS(end))
		}
	}
	for _, e := range res.Events {
		switch e.Kind {
		case engine.KindGranted:
			for k := range until {
				if k.client != e.Actor {
					lost(k, e.T, e.Actor+" was granted the lock")
				}
			}
			until[key{e.Actor, e.Token}] = e.LeaseUntil
		case engine.KindRenewed:
			until[key{e.Actor, e.Token}] = e.LeaseUntil
		case engine.KindReleased:
			delete(until, key{e.Actor, e.Token})
		case engine.KindRenewRefused, engine.KindCheckFailed, engine.KindReleaseRefused:
			lost(key{e.Actor, e.Token}, e.T, e.Actor+" was told "+e.Reason)
		case engine.KindGrantForgotten:
			forgotten[key{e.Holder, e.Token}] = true
		case engine.KindLeaseExpired:
			// A lease the service holds to an earlier end, its renewals
			// lost, ends saying so.
			if strings.Contains(e.Message, "renewals") {
				forgotten[key{e.Holder, e.Token}] = true
			}
		}
	}
	ended := 0
	for _, e := range find(res, "", engine.KindGrantForgotten) {
		if e.Ended {
			ended++
		}
	}
	if n := len(find(res, "", engine.KindGrantForgotten)) - ended; res.Summary.ForgottenGrants != n || res.Summary.ForgottenEndedGrants != ended {
		t.Errorf("%s: %d grant_forgotten events while a lease ran and %d after it ended, the summary counts %d and %d",
			name, n, ended, res.Summary.ForgottenGrants, res.Summary.ForgottenEndedGrants)
	}
}

// TestAsyncDeposedCrashForgetsItsGrants: a primary cut off with client-2
// is replaced, and grants client-2 the lock alone; wherever it then
// crashes inside the partition, and whenever the partition heals, the
// grant it made alone is gone with it, and a grant_forgotten says so
// before client-2 is told it holds nothing. Before, node-2 refused
// client-2's renewals and release ("token 33 is not held") with nothing
// said of the grant it never had.
func TestAsyncDeposedCrashForgetsItsGrants(t *testing.T) {
	forgot := 0
	for _, crash := range []int64{3500, 4500, 6500, 9000} {
		for _, heal := range []int64{7500, 9500, 14000, 20000} {
			if heal <= crash {
				continue
			}
			sc := engine.Scenario{
				Title: "a deposed primary crashes", Seed: 1, Fencing: true, Until: engine.Sec(60),
				Lock:    engine.Lock{Backend: engine.BackendAsyncReplica, Lease: engine.Sec(10), Election: engine.Sec(1)},
				Storage: engine.Storage{Initial: 1000},
				Clients: []engine.Client{
					{Name: "client-1", RetryEvery: engine.Sec(1), Steps: []engine.Step{{Do: "acquire"}, {Do: "release"}}},
					{Name: "client-2", Start: engine.Sec(3), RenewEvery: engine.Sec(2), RetryEvery: engine.Sec(1), Steps: []engine.Step{
						{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(20)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
				},
				Faults: []engine.Fault{
					{At: engine.Sec(1), Do: "partition", Side: []string{"node-1", "client-2"}, For: engine.Ms(heal - 1000)},
					{At: engine.Ms(crash), Do: "crash", Target: "node-1"},
				},
			}
			res := mustRun(t, sc)
			name := fmt.Sprintf("crash at %dms, heal at %dms", crash, heal)
			if g := find(res, "client-2", engine.KindGranted); len(g) == 0 || g[0].Node != "node-1" {
				t.Fatalf("%s: the deposed node-1 grants client-2 the lock alone: %v", name, g)
			}
			checkLostGrantsNamed(t, name, res)
			forgot += res.Summary.ForgottenGrants
		}
	}
	if forgot == 0 {
		t.Fatal("no crash made the service lose the deposed primary's grant: the sweep tests nothing")
	}
}

// TestAsyncReplicaRestartedOutOfReachCatchesUp: the replica is down when
// the primary grants client-1 token 33, and restarts cut off from the
// primary; wherever the restart and the heal fall, it is brought up to
// date once it reaches the primary, so when the primary crashes a second
// after the heal the promoted replica has the grant: token 33 is not handed
// out again and nothing is forgotten. Before, a replica that restarted
// out of reach never caught up unless a copy to it failed after its
// restart, and was promoted without the grant.
func TestAsyncReplicaRestartedOutOfReachCatchesUp(t *testing.T) {
	for _, restart := range []int64{3500, 5000, 8000} {
		for _, heal := range []int64{9000, 10000} {
			sc := engine.Scenario{
				Title: "a replica restarts out of reach", Seed: 1, Fencing: true, Until: engine.Sec(40),
				Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Lease: engine.Sec(10), Election: engine.Sec(1),
					ReplicationLag: engine.Ms(500)},
				Storage: engine.Storage{Initial: 1000},
				Clients: []engine.Client{
					{Name: "client-1", Start: engine.Ms(2200), Steps: []engine.Step{
						{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(9)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
					{Name: "client-2", Start: engine.Ms(heal + 1500), RetryEvery: engine.Sec(1), Steps: []engine.Step{
						{Do: "acquire"}, {Do: "read"}, {Do: "write", Add: ptr(int64(200))}, {Do: "release"}}},
				},
				Faults: []engine.Fault{
					{At: engine.Sec(2), Do: "crash", Target: "node-2"},
					{At: engine.Sec(3), Do: "partition", Side: []string{"node-2"}, For: engine.Ms(heal - 3000)},
					{At: engine.Ms(restart), Do: "restart", Target: "node-2"},
					{At: engine.Ms(heal + 1000), Do: "crash", Target: "node-1"},
				},
			}
			res := mustRun(t, sc)
			name := fmt.Sprintf("restart at %dms, heal at %dms", restart, heal)
			if j := find(res, "node-2", engine.KindRejoined); len(j) != 1 || j[0].T != heal {
				t.Errorf("%s: node-2 catches up when it reaches node-1 again: %v", name, j)
			}
			if s := res.Summary; s.DuplicateTokens != 0 || s.ForgottenGrants != 0 {
				t.Errorf("%s: the promoted replica had client-1's grant: %+v", name, s)
			}
			checkLostGrantsNamed(t, name, res)
		}
	}
}

// TestAsyncLeaseEndToldByANodeThatKnewIt: node-2, promoted while node-1
// was cut off, grants client-1 the lock and crashes; the lease runs out
// while the monitor reaches no node, and node-1, made primary again after
// the heal, never received the grant. Wherever the heal falls, node-1 does
// not tell the end of a lease it never knew of. Before, it said "the lease
// of client-1 (token 33) ran out: it ran out at 8s, while no node that
// knew of it served".
func TestAsyncLeaseEndToldByANodeThatKnewIt(t *testing.T) {
	for _, heal := range []int64{9000, 12000, 20000} {
		sc := engine.Scenario{
			Title: "a lease only a crashed primary knew of", Seed: 1, Fencing: true, Until: engine.Sec(40),
			Lock:    engine.Lock{Backend: engine.BackendAsyncReplica, Lease: engine.Sec(5), Election: engine.Sec(1)},
			Storage: engine.Storage{Initial: 1000},
			Clients: []engine.Client{
				{Name: "client-1", Start: engine.Sec(3), Steps: []engine.Step{{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(2)}}},
			},
			Faults: []engine.Fault{
				{At: engine.Sec(1), Do: "partition", Side: []string{"node-1"}, For: engine.Ms(heal - 1000)},
				{At: engine.Sec(4), Do: "crash", Target: "node-2"},
			},
		}
		res := mustRun(t, sc)
		if g := find(res, "client-1", engine.KindGranted); len(g) != 1 || g[0].Node != "node-2" {
			t.Fatalf("heal at %dms: node-2 grants client-1 the lock: %v", heal, g)
		}
		if l := find(res, "node-1", engine.KindLeader); len(l) == 0 {
			t.Errorf("heal at %dms: node-1 is made primary again after the heal", heal)
		}
		if e := find(res, "node-1", engine.KindLeaseExpired); len(e) != 0 {
			t.Errorf("heal at %dms: node-1 never received client-1's grant, and tells its end: %v", heal, e)
		}
	}
}
