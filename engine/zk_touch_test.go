package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// zkCheckingHolder is the ZooKeeper session preset with a holder that
// sends no heartbeats of its own: it checks the lock at checkAt and then
// works on until its write at 15 s. Any request from a client starts its
// session's timeout again, so the check keeps the session to checkAt + 10 s.
func zkCheckingHolder(t *testing.T, checkAt int64, fencing bool) engine.Scenario {
	sc := mustPreset(t, "zookeeper-session-expiry", fencing)
	c := &sc.Clients[0]
	c.RenewEvery = engine.Duration{}
	c.Steps = []engine.Step{{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Ms(checkAt)}, {Do: "check"},
		{Do: "work", For: engine.Ms(15000 - checkAt)}, {Do: "write", Add: ptrInt(2000)}, {Do: "release"}}
	sc.Faults = nil
	return sc
}

func ptrInt(v int64) *int64 { return &v }

// TestZooKeeperCheckKeepsTheSession: a holder's answered check starts its
// session's timeout again at the leader, so every account of the run
// follows it. Swept over when the check falls: without a fault nobody
// says the lease ran out before the session's end, the check plus the
// timeout, and a session that outlasts the job keeps the lock to its
// release. With the leader's clock jumping ahead
// after the check, the leader closes the session early: in true time the
// session still ran, so the next grant is a double grant, the session's
// close and the lease's end blame the clock (naming the true end, the
// check plus the timeout), never a client the leader had not heard from.
func TestZooKeeperCheckKeepsTheSession(t *testing.T) {
	for _, checkAt := range []int64{2000, 5000, 8000, 9500} {
		t.Run(fmt.Sprintf("check=%s", engine.FormatMS(checkAt)), func(t *testing.T) {
			res := mustRun(t, zkCheckingHolder(t, checkAt, false))
			trueEnd := checkAt + 10000
			if rel := find(res, "client-1", engine.KindReleased); trueEnd > 15000 && (len(rel) != 1 || rel[0].T != 15000) {
				t.Fatalf("client-1's check kept its session to %s: it should release at 15 s: %v", engine.FormatMS(trueEnd), rel)
			}
			for _, e := range res.Events {
				if (e.Kind == engine.KindLeaseExpired || e.Kind == engine.KindSessionExpired) && e.Holder == "client-1" && e.T != trueEnd {
					t.Errorf("%s at %s: client-1's check at %s kept its session to %s: %q %q",
						e.Kind, engine.FormatMS(e.T), engine.FormatMS(checkAt), engine.FormatMS(trueEnd), e.Message, e.Reason)
				}
			}
			if s := res.Summary; !s.LockSafe {
				t.Errorf("one holder after the other: %+v", s)
			}
		})
		for _, jumpAfter := range []int64{500, 1000} {
			for _, by := range []int64{3000, 5000} {
				jump := checkAt + jumpAfter
				trueEnd := checkAt + 10000
				if jump+by >= trueEnd || trueEnd-by >= 15000 {
					continue // the jump must close the session early, before the holder's write
				}
				t.Run(fmt.Sprintf("check=%s/jump=%s+%s", engine.FormatMS(checkAt), engine.FormatMS(jump), engine.FormatMS(by)), func(t *testing.T) {
					sc := zkCheckingHolder(t, checkAt, true)
					sc.Faults = []engine.Fault{{At: engine.Ms(jump), Do: "clock_jump", Target: "node-1", By: engine.Ms(by)}}
					res := mustRun(t, sc)
					closedAt := trueEnd - by
					exp := find(res, "node-1", engine.KindSessionExpired)
					if len(exp) != 1 || exp[0].T != closedAt {
						t.Fatalf("the leader's clock, %s ahead, should close client-1's session at %s: %v", engine.FormatMS(by), engine.FormatMS(closedAt), exp)
					}
					if !strings.Contains(exp[0].Reason, "ahead of true time") || !strings.Contains(exp[0].Reason, "until "+engine.FormatMS(trueEnd)) {
						t.Errorf("the session's close should blame the leader's clock and give the true end %s: %q", engine.FormatMS(trueEnd), exp[0].Reason)
					}
					for _, e := range find(res, "node-1", engine.KindLeaseExpired) {
						if e.Holder == "client-1" && (e.T != closedAt || !strings.Contains(e.Message, "in true time it was to last until "+engine.FormatMS(trueEnd))) {
							t.Errorf("client-1's lease end at %s: %q; want it at %s, until %s in true time", engine.FormatMS(e.T), e.Message, engine.FormatMS(closedAt), engine.FormatMS(trueEnd))
						}
					}
					if s := res.Summary; s.DoubleGrants != 1 || s.LockSafe {
						t.Errorf("client-2 was granted at %s while client-1's session ran until %s in true time: want one double grant: %+v",
							engine.FormatMS(closedAt), engine.FormatMS(trueEnd), s)
					}
				})
			}
		}
	}
}
