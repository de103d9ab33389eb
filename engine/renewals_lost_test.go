package engine_test

import (
	"fmt"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestLostRenewalsAreSaid: a single server that saves every 4 s restarts,
// wherever its crash falls, from a save older than client-1's last
// renewals. Its record holds client-1's lease to an earlier end than the
// renewals did: when that end has passed, the grant is said forgotten;
// when it is still to come, the lease's end says the renewals were lost.
// Either way, client-2 is not granted the lock, nor client-1 refused,
// inside client-1's renewed lease with nothing said. Before, the service
// kept the grant without the renewals and said nothing: client-2 was
// granted the lock while client-1's renewed lease ran.
func TestLostRenewalsAreSaid(t *testing.T) {
	for crash := int64(3100); crash < 16000; crash += 700 {
		for _, down := range []int64{200, 3000} {
			sc := engine.Scenario{
				Title: "a restart loses renewals", Seed: 1, Fencing: true, Until: engine.Sec(60),
				Lock:    engine.Lock{Backend: engine.BackendSingle, Lease: engine.Sec(5), PersistEvery: engine.Sec(4)},
				Storage: engine.Storage{Initial: 1000},
				Clients: []engine.Client{
					{Name: "client-1", RenewEvery: engine.Sec(2), Steps: []engine.Step{
						{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(20)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
					{Name: "client-2", Start: engine.Sec(1), RetryEvery: engine.Ms(500), Steps: []engine.Step{
						{Do: "acquire"}, {Do: "read"}, {Do: "write", Add: ptr(int64(200))}, {Do: "release"}}},
				},
				Faults: []engine.Fault{
					{At: engine.Ms(crash), Do: "crash", Target: "node-1"},
					{At: engine.Ms(crash + down), Do: "restart", Target: "node-1"},
				},
			}
			checkLostGrantsNamed(t, fmt.Sprintf("crash at %dms, down %dms", crash, down), mustRun(t, sc))
		}
	}
}
