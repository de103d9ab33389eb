package engine_test

import (
	"fmt"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestEtcdExtensionLastsItsTTLInTrueTime: a new etcd leader gives the
// lease it inherits its full TTL from its election, by its own clock. When
// that clock runs slow for a while after the election, the leader revokes
// the lease later in true time, and the next holder is granted only after
// the revoke: one holder after the other, never two at once. Swept over
// how slow the clock runs and when it runs true again (before the
// election, between the election and the revoke, past the revoke), with
// the holder dead so that only the revoke frees the lock.
func TestEtcdExtensionLastsItsTTLInTrueTime(t *testing.T) {
	for _, rate := range []string{"0.25", "0.5", "0.8"} {
		for _, drift := range []int64{8000, 16000, 20000, 40000} {
			t.Run(fmt.Sprintf("rate=%s/for=%s", rate, engine.FormatMS(drift)), func(t *testing.T) {
				res := mustRun(t, mustPreset(t, "etcd-leader-change", true, "until", "90s",
					"faults[1]", `{"at":"5s","do":"crash","target":"client-1"}`,
					"faults[2]", fmt.Sprintf(`{"at":"0s","do":"clock_drift","target":"node-2","rate":%s,"for":"%dms"}`, rate, drift)))
				if len(find(res, "node-2", engine.KindLeaseExtended)) != 1 {
					t.Fatalf("node-2 should extend client-1's lease when it is elected")
				}
				exp := find(res, "node-2", engine.KindLeaseExpired)
				g := find(res, "client-2", engine.KindGranted)
				if len(exp) != 1 || len(g) != 1 || g[0].T < exp[0].T {
					t.Fatalf("client-2 should be granted after node-2 revokes client-1's lease: revoke %v, grant %v", exp, g)
				}
				if s := res.Summary; s.DoubleGrants != 0 || !s.LockSafe {
					t.Errorf("client-2 was granted at %s, after the revoke at %s: no double grant: %+v", engine.FormatMS(g[0].T), engine.FormatMS(exp[0].T), s)
				}
			})
		}
	}
}
