package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestZooKeeperSessionCloseSaysWhatTheLeaderHeard: a session_expired
// event says the leader has not heard from the client within its timeout
// only when that is so in true time. Here node-1 leads with a clock that
// runs slow, so the deadlines it sets for every session (the holder's and
// the waiter's, which pings) lie behind true time; it crashes, and node-2,
// whose clock is true, closes them at once, though it heard from both
// clients moments ago. Swept over the crash time and how slow node-1's
// clock runs: each close that comes before the client's last request plus
// the timeout in true time says so, names the clock, and gives the true
// end; every other close says the client went unheard.
func TestZooKeeperSessionCloseSaysWhatTheLeaderHeard(t *testing.T) {
	for _, rate := range []string{"0.25", "0.5"} {
		for _, crash := range []int64{12500, 15500, 19500, 21000} {
			t.Run(fmt.Sprintf("rate=%s/crash=%s", rate, engine.FormatMS(crash)), func(t *testing.T) {
				res := mustRun(t, mustPreset(t, "zookeeper-session-expiry", true,
					"clients[0].steps[2].for", "30s", "lock.election", "500ms",
					"faults[0]", fmt.Sprintf(`{"at":"0s","do":"clock_drift","target":"node-1","rate":%s}`, rate),
					"faults[1]", fmt.Sprintf(`{"at":"%dms","do":"crash","target":"leader"}`, crash)))
				// The true time of each client's last request the leader
				// answered before each event.
				heard := map[string]int64{}
				pings := map[string]int64{} // a waiter pings every third of the timeout
				for _, e := range res.Events {
					switch e.Kind {
					case engine.KindGranted, engine.KindRenewed, engine.KindWatching:
						heard[e.Actor] = e.T
						if e.Kind == engine.KindWatching {
							pings[e.Actor] = e.T
						}
					case engine.KindSessionExpired:
						last := heard[e.Holder]
						if p, ok := pings[e.Holder]; ok {
							for p+3333 <= e.T && p+3333 < crash {
								p += 3333
							}
							last = max(last, p)
						}
						early := e.T < last+10000
						if early && (!strings.Contains(e.Reason, "in true time") || !strings.Contains(e.Reason, "clock")) {
							t.Errorf("at %s the leader closes %s's session, last heard at about %s with a 10s timeout: %q; want the clock named and the true end",
								engine.FormatMS(e.T), e.Holder, engine.FormatMS(last), e.Reason)
						}
						if !early && strings.Contains(e.Reason, "in true time") {
							t.Errorf("at %s %s was unheard for the timeout: %q", engine.FormatMS(e.T), e.Holder, e.Reason)
						}
					}
				}
			})
		}
	}
}
