package engine_test

import (
	"fmt"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestDeposedPrimaryEndsLeasesByItsClock: an async primary cut off with
// client-2 keeps renewing its lease alone, and ends it, when client-2
// stops renewing, by its own clock, which jumped before the partition or
// after the last renewal. The lease_expired it tells comes when its clock
// reads the lease's end, the true time its renewal said; a jump after
// that renewal ends it early or late, and the event says by how much
// and when it was to end. Before, the lease was timed by the clock of the
// promoted primary on the other side, which never held it: ended when
// that clock read the end, seconds off, and said as a lease that simply
// ran out. Swept over the jump, when it comes, the lease and when the
// partition begins.
func TestDeposedPrimaryEndsLeasesByItsClock(t *testing.T) {
	for _, jump := range []int64{3000, -2000} {
		for _, jumpAt := range []int64{200, 8000} {
			for _, lease := range []int64{5000, 8000} {
				for _, cut := range []int64{1500, 2500} {
					sc := engine.Scenario{
						Title: "a deposed primary's clock", Seed: 1, Fencing: true, Until: engine.Sec(60),
						Lock:    engine.Lock{Backend: engine.BackendAsyncReplica, Lease: engine.Ms(lease), Election: engine.Sec(1)},
						Storage: engine.Storage{Initial: 1000},
						Clients: []engine.Client{
							{Name: "client-1", Start: engine.Sec(1), RetryEvery: engine.Ms(500), Steps: []engine.Step{
								{Do: "acquire"}, {Do: "read"}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
							{Name: "client-2", RenewEvery: engine.Sec(1), Steps: []engine.Step{
								{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(6)}, {Do: "write", Add: ptr(int64(200))}}},
						},
						Faults: []engine.Fault{
							{At: engine.Ms(jumpAt), Do: "clock_jump", Target: "node-1", By: engine.Ms(jump)},
							{At: engine.Ms(cut), Do: "partition", Side: []string{"node-1", "client-2"}, For: engine.Sec(40)}},
					}
					res := mustRun(t, sc)
					name := fmt.Sprintf("node-1's clock jumps %+dms at %dms, lease %dms, cut at %dms", jump, jumpAt, lease, cut)
					var last engine.Event // client-2's last grant or renewal
					for _, e := range res.Events {
						if e.Actor == "client-2" && (e.Kind == engine.KindGranted || e.Kind == engine.KindRenewed) {
							last = e
						}
					}
					if last.T < 6000 || last.Node != "node-1" {
						t.Fatalf("%s: client-2's last renewal %+v: not the run meant", name, last)
					}
					trueEnd := last.T + lease // what the renewal said, in true time
					// When node-1's clock reads the end: it reads true time
					// until the jump when the jump comes after the renewal.
					end := last.LeaseUntil - jump
					if jumpAt > last.T {
						end = max(last.LeaseUntil-jump, jumpAt)
					}
					var ended []engine.Event
					for _, e := range find(res, "", engine.KindLeaseExpired) {
						if e.Holder == "client-2" {
							ended = append(ended, e)
						}
					}
					if len(ended) != 1 || ended[0].Actor != "node-1" || ended[0].T != end {
						t.Errorf("%s: client-2's lease ended %v, want at %s by node-1", name, ended, engine.FormatMS(end))
						continue
					}
					says := ""
					switch {
					case end < trueEnd:
						says = fmt.Sprintf("the lock service's clock, %s ahead of true time, ended it early: in true time it was to last until %s", engine.FormatMS(jump), engine.FormatMS(trueEnd))
					case end > trueEnd:
						says = fmt.Sprintf("the lock service's clock, %s behind true time, ended it late: in true time it ran out at %s", engine.FormatMS(-jump), engine.FormatMS(trueEnd))
					}
					if ended[0].Message != says {
						t.Errorf("%s: client-2's lease ended at %s: %q; want %q", name, engine.FormatMS(end), ended[0].Message, says)
					}
				}
			}
		}
	}
}
