package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestSplitPrimariesFenceWords: an async primary cut off with client-2
// goes on renewing its lease while the promoted replica, its copy of that
// lease run out, grants client-1 a higher token, which client-1's fenced
// read shows the storage. client-2's next write is refused though the
// primary on its side counts it as holder, and so is a fenced read of
// its. The refusal says what
// happened: two primaries granted the lock at once, naming both, the
// other grant and its token, though the promoted node then crashed
// (leaving no primary, and node-1's record the service's); the summary
// counts the write so refused, and the verdict says another primary had
// granted a higher token. Before, it said "token 33 was handed out
// again, lower than one the storage had seen", and the verdict that
// the holder's token was handed out again: no token was handed out
// twice. Swept over when the partition begins, when client-2 writes, and
// the crash, and whether client-2 writes or reads.
func TestSplitPrimariesFenceWords(t *testing.T) {
	said := 0
	for _, step := range []string{"write", "read"} {
		for _, part := range []int64{1500, 2500} {
			for _, write := range []int64{12000, 15000} {
				for _, crash := range []int64{8000, 11000} {
					last := engine.Step{Do: "read"}
					if step == "write" {
						last = engine.Step{Do: "write", Add: ptr(int64(200))}
					}
					sc := engine.Scenario{
						Title: "two primaries fence", Seed: 1, Fencing: true, Until: engine.Sec(60),
						Lock:    engine.Lock{Backend: engine.BackendAsyncReplica, Lease: engine.Sec(5), Election: engine.Sec(1)},
						Storage: engine.Storage{Initial: 1000},
						Clients: []engine.Client{
							{Name: "client-1", Start: engine.Sec(1), RetryEvery: engine.Ms(500), Steps: []engine.Step{
								{Do: "acquire"}, {Do: "read"}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
							{Name: "client-2", RenewEvery: engine.Sec(1), Steps: []engine.Step{
								{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Ms(write)}, last, {Do: "release"}}},
						},
						Faults: []engine.Fault{{At: engine.Ms(part), Do: "partition", Side: []string{"node-1", "client-2"}, For: engine.Sec(30)}},
					}
					sc.Faults = append(sc.Faults, engine.Fault{At: engine.Ms(crash), Do: "crash", Target: "node-2"})
					res := mustRun(t, sc)
					name := fmt.Sprintf("partition at %dms, client-2 %ss at %dms, node-2 crashes at %dms", part, step, write, crash)
					g1 := find(res, "client-1", engine.KindGranted)
					if len(g1) == 0 || g1[0].Node != "node-2" || res.Summary.SplitBrainGrants != 1 {
						t.Fatalf("%s: client-1 granted %v, split-brain grants %d: not two primaries", name, g1, res.Summary.SplitBrainGrants)
					}
					says := fmt.Sprintf("node-1, cut off from node-2 by a partition, counts client-2 as its holder of token 33, while node-2, primary on the other side, granted client-1 token %d at %s: two primaries granted the lock at once, each on its own side",
						g1[0].Token, engine.FormatMS(g1[0].T))
					refused := 0
					for _, e := range append(find(res, engine.ActorStorage, engine.KindWriteRefused), find(res, "client-2", engine.KindReadRefused)...) {
						if e.Kind == engine.KindWriteRefused && e.Client != "client-2" {
							continue
						}
						refused++
						if (e.Kind == engine.KindWriteRefused) != (e.Holder == "client-2") || !strings.Contains(e.Reason, says) || strings.Contains(e.Reason, "handed out again") {
							t.Errorf("%s: the storage says %q (holder %q), want %q", name, e.Reason, e.Holder, says)
						}
					}
					if refused != 1 {
						t.Errorf("%s: client-2's %ss refused: %d, want 1", name, step, refused)
					}
					v := engine.Verdict(res.Summary)
					if step == "write" && (res.Summary.SplitBrainWritesRefused != 1 ||
						!strings.Contains(v, "the lock holder's own write was refused (1 refused): another primary, serving the other side of a partition, had granted a higher token") ||
						strings.Contains(v, "handed out again")) {
						t.Errorf("%s: %d refused writes counted split, verdict %q", name, res.Summary.SplitBrainWritesRefused, v)
					}
					said += refused
				}
			}
		}
	}
	if said == 0 {
		t.Fatal("no holder's write refused: the sweep proves nothing")
	}
}
