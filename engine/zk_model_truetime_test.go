package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
)

// TestZooKeeperHistoryAgreesWithDoubleGrants: the summary's double grants
// and the linearizability verdict judge the same thing by true time. Here
// node-1 leads with a slow clock, so the session deadline it sets when the
// holder checks lies behind true time; it crashes, and node-2, whose clock
// is true, closes the session before its true end; the waiter is granted
// the lock. Wherever the holder's last check falls around that close
// (before it, at the same instant, or after), a double grant in the
// summary is a history that is not linearizable by true time and legal by
// the nodes' clocks, and no double grant is a linearizable history.
func TestZooKeeperHistoryAgreesWithDoubleGrants(t *testing.T) {
	for _, rate := range []string{"0.25", "0.5"} {
		for _, last := range []int64{4000, 5000, 5500, 6000, 7000} {
			t.Run(fmt.Sprintf("rate=%s/last-check=+%s", rate, engine.FormatMS(last)), func(t *testing.T) {
				sc := mustPreset(t, "zookeeper-session-expiry", true, "lock.election", "1s", "clients[1].start", "1s",
					"faults[0]", fmt.Sprintf(`{"at":"0s","do":"clock_drift","target":"node-1","rate":%s}`, rate),
					"faults[1]", `{"at":"3s","do":"crash","target":"leader"}`)
				c := &sc.Clients[0]
				c.RenewEvery = engine.Duration{}
				c.Steps = []engine.Step{{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Ms(2000)}, {Do: "check"},
					{Do: "work", For: engine.Ms(3000)}, {Do: "work", For: engine.Ms(last)}, {Do: "check"},
					{Do: "write", Add: ptrInt(2000)}, {Do: "release"}}
				res := mustRun(t, sc)
				h := res.History()
				lin := h.Check(10 * time.Second)
				if res.Summary.DoubleGrants > 0 {
					if lin != engine.LinearizableIllegal {
						t.Errorf("the summary counts %d double grant(s), but the history is %q", res.Summary.DoubleGrants, lin)
					}
					if note := h.ClockNote(10 * time.Second); !strings.Contains(note, "each grant was legal") {
						t.Errorf("a slow clock broke the lock: the note should say so: %q", note)
					}
				} else if lin != engine.LinearizableOK {
					t.Errorf("no double grant, but the history is %q", lin)
				}
			})
		}
	}
}
