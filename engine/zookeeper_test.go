package engine_test

import (
	"fmt"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestZooKeeperSessionExpiry: the holder of a ZooKeeper lock pauses past
// its session timeout. The leader closes the session at the last heartbeat
// plus the timeout and deletes the holder's ephemeral node; that fires the
// one watch on it, the next waiter's, which takes the lock with its node's
// czxid. The sleeper's late write lands without fencing and is refused
// with it. Sweeping the pause across the session timeout keeps it so: the
// pause must outlast the time left in the session for anything to happen.
func TestZooKeeperSessionExpiry(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		for _, pause := range []int64{12, 15, 20} {
			t.Run(fmt.Sprintf("fencing=%v/pause=%ds", fencing, pause), func(t *testing.T) {
				res := mustRun(t, mustPreset(t, "zookeeper-session-expiry", fencing, "faults[0].for", fmt.Sprintf("%ds", pause)))
				// zxids: 33 client-1's session, 34 its node, 35 client-2's
				// session, 36 its node.
				grantAt(t, res, "client-1", 34, 0)
				w := find(res, "client-2", engine.KindWatching)
				if len(w) != 1 || w[0].T != 6000 || w[0].Holder != "client-1" || w[0].Token != 34 {
					t.Fatalf("client-2 should watch client-1's node (czxid 34) from 6 s: %v", w)
				}
				exp := find(res, "node-1", engine.KindSessionExpired)
				if len(exp) != 1 || exp[0].T != 13000 || exp[0].Holder != "client-1" || exp[0].Token != 34 {
					t.Fatalf("the leader should close client-1's session at 13 s (heartbeat at 3 s + 10 s): %v", exp)
				}
				fired := find(res, "node-1", engine.KindWatchFired)
				if len(fired) != 1 || fired[0].Client != "client-2" || fired[0].Token != 34 || fired[0].T != 13000 {
					t.Fatalf("the delete should fire client-2's watch, and only it: %v", fired)
				}
				grantAt(t, res, "client-2", 36, 13000)
				lastWrite(t, res, "client-2", engine.KindWriteAccepted, 36, 14000)
				wake := 4000 + pause*1000
				s := res.Summary
				if fencing {
					lastWrite(t, res, "client-1", engine.KindWriteRefused, 34, wake)
					if !s.Safe || s.StaleWritesAccepted != 0 || s.FinalValue != 43000 {
						t.Errorf("fencing on: the czxid fence refuses the sleeper: %+v", s)
					}
				} else {
					lastWrite(t, res, "client-1", engine.KindWriteAccepted, 34, wake)
					if s.Safe || s.StaleWritesAccepted != 1 || !s.LostUpdate || s.FinalValue != 42000 {
						t.Errorf("fencing off: the sleeper's write lands stale: %+v", s)
					}
				}
				if !s.LockSafe || s.DoubleGrants != 0 || s.DuplicateTokens != 0 {
					t.Errorf("ZooKeeper itself never hands the lock out twice: %+v", s)
				}
				if !res.History().Linearizable(0) {
					t.Errorf("the history should be linearizable against ZKLockModel")
				}
			})
		}
	}
}

// TestZooKeeperShortPauseKeepsSession: a pause shorter than what is left
// of the session changes nothing: the next heartbeat after it keeps the
// node, and the waiter is told only when the holder releases.
func TestZooKeeperShortPauseKeepsSession(t *testing.T) {
	res := mustRun(t, mustPreset(t, "zookeeper-session-expiry", false, "faults[0].for", "5s"))
	if exp := find(res, "", engine.KindSessionExpired); len(exp) != 0 {
		t.Fatalf("no session should expire: %v", exp)
	}
	rel := find(res, "client-1", engine.KindReleased)
	if len(rel) != 1 {
		t.Fatalf("client-1 should release: %v", rel)
	}
	fired := find(res, "node-1", engine.KindWatchFired)
	if len(fired) != 1 || fired[0].Client != "client-2" || fired[0].T != rel[0].T {
		t.Fatalf("client-2's watch should fire when client-1 releases at %d ms: %v", rel[0].T, fired)
	}
	// The release's delete takes zxid 37.
	grantAt(t, res, "client-2", 36, rel[0].T)
	if s := res.Summary; !s.Safe || s.FinalValue != 45000 || s.OverlapMS != 0 {
		t.Errorf("two holders in turn: %+v", s)
	}
}

// TestZooKeeperNoHerd: with three waiters queued, each watches only the
// node just before its own, so a release wakes exactly one of them.
func TestZooKeeperNoHerd(t *testing.T) {
	sc := mustPreset(t, "zookeeper-session-expiry", true)
	sc.Faults = nil
	sc.Clients[0].Steps[2].For = engine.Sec(10) // client-1 holds until 10 s
	c3 := sc.Clients[1]
	c3.Name, c3.Start = "client-3", engine.Sec(7)
	sc.Clients = append(sc.Clients, c3)
	res := mustRun(t, sc)
	w2, w3 := find(res, "client-2", engine.KindWatching), find(res, "client-3", engine.KindWatching)
	if len(w2) != 1 || w2[0].Holder != "client-1" || len(w3) != 1 || w3[0].Holder != "client-2" {
		t.Fatalf("client-2 should watch client-1's node and client-3 client-2's: %v %v", w2, w3)
	}
	fired := find(res, "node-1", engine.KindWatchFired)
	if len(fired) != 2 || fired[0].Client != "client-2" || fired[1].Client != "client-3" || fired[0].T == fired[1].T {
		t.Fatalf("each release should wake one waiter, in turn: %v", fired)
	}
	g2, g3 := find(res, "client-2", engine.KindGranted), find(res, "client-3", engine.KindGranted)
	if len(g2) != 1 || len(g3) != 1 || g3[0].Token <= g2[0].Token || g3[0].T < g2[0].T {
		t.Fatalf("client-3 should hold after client-2, with a higher czxid: %v %v", g2, g3)
	}
	if s := res.Summary; !s.Safe || s.FinalValue != 48000 || s.OverlapMS != 0 {
		t.Errorf("three holders in turn: %+v", s)
	}
	if !res.History().Linearizable(0) {
		t.Errorf("history not linearizable")
	}
}
