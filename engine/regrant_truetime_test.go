package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// regrantScenario: node-1 grants client-1 token 33 at 300ms with lease
// ms, and node-2 receives the copy; node-1's clock then jumps past the
// lease's end, ending it early, so client-1's check fails and it takes
// the lock again, token 34, which node-1 crashes before copying. node-2,
// promoted, forgot token 34 but still holds 33's lease: client-1's next
// check fails, and its acquire gets 33 back. node-2's clock jumps by
// before at 3s (before that re-grant) and by late at 10s.
func regrantScenario(lease, before, late int64) engine.Scenario {
	faults := []engine.Fault{
		{At: engine.Ms(1000), Do: "clock_jump", Target: "node-1", By: engine.Ms(lease + 600)},
		{At: engine.Ms(2500), Do: "crash", Target: "node-1"},
	}
	if before != 0 {
		faults = append(faults, engine.Fault{At: engine.Ms(3000), Do: "clock_jump", Target: "node-2", By: engine.Ms(before)})
	}
	if late != 0 {
		faults = append(faults, engine.Fault{At: engine.Ms(10000), Do: "clock_jump", Target: "node-2", By: engine.Ms(late)})
	}
	return engine.Scenario{
		Title: "a lease brought back", Seed: 1, Fencing: true, Until: engine.Sec(60),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Ms(lease), FirstToken: 33,
			ReplicationLag: engine.Sec(1), Election: engine.Ms(700)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{{Name: "client-1", Start: engine.Ms(300), RetryEvery: engine.Ms(1500), OnRefused: engine.OnRefusedRetry,
			Steps: []engine.Step{{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(2)}, {Do: "check"},
				{Do: "write", Add: ptr(int64(100))}, {Do: "release"}}}},
		Faults: faults,
	}
}

// TestRegrantKeepsTheLeaseTrueEnd: a promoted async replica that still
// holds a lease another node's clock ended early, asked again by its
// holder, answers with that lease as it was granted. Its true end is the
// grant's, 300ms plus the lease: the grant event says no other true end
// ("by node-2's clock; in true time it runs until" the re-grant plus the
// lease, before), and the lease_expired that ends it, early or late by
// node-2's clock, says it was to run until then. The client redoes its
// job at once each time (on_refused retry), and each time the service
// hands the same lease back and the storage refuses its read, until it
// gives up: the events say so, once a redo, and each refusal names the
// grant of token 34 the service forgot, not a token handed out again. Swept over the lease and
// node-2's clock jumps before the re-grant and after.
func TestRegrantKeepsTheLeaseTrueEnd(t *testing.T) {
	for _, lease := range []int64{15000, 20000} {
		for _, before := range []int64{0, 2000, -3000} {
			for _, late := range []int64{0, -8000, 4000} {
				res := mustRun(t, regrantScenario(lease, before, late))
				name := fmt.Sprintf("lease %dms, node-2 jumps %dms then %dms", lease, before, late)
				end := engine.FormatMS(300 + lease)
				var back []engine.Event
				for _, e := range find(res, "client-1", engine.KindGranted) {
					if e.Token == 33 && e.Node == "node-2" {
						back = append(back, e)
					}
				}
				if len(back) == 0 {
					t.Fatalf("%s: node-2 never gave client-1 token 33 back: not the run meant", name)
				}
				for _, e := range back {
					if e.LeaseUntil != 300+lease {
						t.Fatalf("%s: token 33 back until %s, want the lease as granted", name, engine.FormatMS(e.LeaseUntil))
					}
					if strings.Contains(e.Reason, "in true time") && !strings.HasSuffix(e.Reason, "in true time it runs until "+end) {
						t.Errorf("%s: the lease brought back says %q; it was granted to run until %s", name, e.Reason, end)
					}
				}
				var expired []engine.Event
				for _, e := range find(res, "", engine.KindLeaseExpired) {
					if e.Token == 33 && e.T > 3000 {
						expired = append(expired, e)
					}
				}
				if len(expired) != 1 {
					t.Fatalf("%s: token 33's lease ended %d times after the re-grant: %v", name, len(expired), expired)
				}
				if e := expired[0]; (before+late != 0) != strings.Contains(e.Message, "in true time") ||
					strings.Contains(e.Message, "in true time") && !strings.HasSuffix(e.Message, end) {
					t.Errorf("%s: the lease's end at %s says %q; it was to run until %s", name, engine.FormatMS(e.T), e.Message, end)
				}
				redo, refused := find(res, "client-1", engine.KindRetrying), find(res, "client-1", engine.KindReadRefused)
				for _, e := range refused {
					if !strings.Contains(e.Reason, "token 34 came from client-1's own grant by node-1 at") || strings.Contains(e.Reason, "handed out again") {
						t.Errorf("%s: the read refused says %q; want the forgotten grant of token 34 named", name, e.Reason)
					}
				}
				if len(refused) != len(back) || len(redo) != 5 || len(find(res, "client-1", engine.KindGaveUp)) != 1 {
					t.Errorf("%s: %d redos, %d leases back, %d reads refused", name, len(redo), len(back), len(refused))
				}
			}
		}
	}
}
