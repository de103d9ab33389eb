package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestLeaseEndedEarlyByTheClockThatSetIt: node-1 leads with a clock that
// runs slow, so every lease end it records lies behind true time; it
// crashes and node-2, whose clock is true, ends the holder's lease by that
// record, before the lease's true end. The lease_expired event must say
// so, naming the clock that set the end and the true end, and not read as
// a lease that ran its course. Swept over the crash time, the slow rate
// and the backends whose successor keeps the old deadline.
func TestLeaseEndedEarlyByTheClockThatSetIt(t *testing.T) {
	for _, backend := range []string{"raft", "zookeeper"} {
		for _, rate := range []string{"0.25", "0.5"} {
			for _, crash := range []int64{12500, 15500, 19500, 21000} {
				t.Run(fmt.Sprintf("%s/rate=%s/crash=%s", backend, rate, engine.FormatMS(crash)), func(t *testing.T) {
					res := mustRun(t, mustPreset(t, "zookeeper-session-expiry", true, "lock.backend", backend,
						"clients[0].steps[2].for", "30s", "lock.election", "500ms",
						"faults[0]", fmt.Sprintf(`{"at":"0s","do":"clock_drift","target":"node-1","rate":%s}`, rate),
						"faults[1]", fmt.Sprintf(`{"at":"%dms","do":"crash","target":"leader"}`, crash)))
					var last int64 // client-1's last grant or renewal, in true time
					early := 0
					for _, e := range res.Events {
						switch {
						case e.Actor == "client-1" && (e.Kind == engine.KindGranted || e.Kind == engine.KindRenewed):
							last = e.T
						case e.Kind == engine.KindLeaseExpired && e.Holder == "client-1":
							trueEnd := last + 10000
							if e.T < trueEnd {
								early++
								if !strings.Contains(e.Message, "clock") || !strings.Contains(e.Message, "in true time it was to last until "+engine.FormatMS(trueEnd)) {
									t.Errorf("client-1's lease, renewed at %s, ends at %s, before its true end %s: %q", engine.FormatMS(last), engine.FormatMS(e.T), engine.FormatMS(trueEnd), e.Message)
								}
							} else if strings.Contains(e.Message, "early") {
								t.Errorf("client-1's lease ends at %s, after its true end %s: %q", engine.FormatMS(e.T), engine.FormatMS(trueEnd), e.Message)
							}
						}
					}
					if early == 0 && crash > 15000 {
						t.Errorf("node-1's clock is well behind when it crashes: the lease should end early in true time")
					}
				})
			}
		}
	}
}
