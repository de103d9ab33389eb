package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// forgottenFenceScenario: node-1 grants client-2 token 33 at 0s with
// lease ms, client-2 renewing every 2s; node-1's clock jumps at jumpAt
// past the lease's end, ending it early, and node-1 grants the waiting
// client-1 token 34, which client-1's fenced read shows to the storage.
// node-1 crashes before copying that grant; node-2, promoted, still
// counts client-2 with its renewals. client-2 then writes (or reads).
func forgottenFenceScenario(lease, jumpAt int64, last string) engine.Scenario {
	step := engine.Step{Do: "read"}
	if last == "write" {
		step = engine.Step{Do: "write", Add: ptr(int64(700))}
	}
	return engine.Scenario{
		Title: "a forgotten grant's fence", Seed: 1, Fencing: true, Until: engine.Sec(60),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Ms(lease), FirstToken: 33,
			ReplicationLag: engine.Ms(600), Election: engine.Ms(500)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{
			{Name: "client-1", Start: engine.Ms(1000), RetryEvery: engine.Ms(500), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(20)}, {Do: "write", Add: ptr(int64(900))}, {Do: "release"}}},
			{Name: "client-2", RenewEvery: engine.Sec(2), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(15)}, step, {Do: "release"}}},
		},
		Faults: []engine.Fault{
			{At: engine.Ms(jumpAt), Do: "clock_jump", Target: "node-1", By: engine.Ms(lease + 1000)},
			{At: engine.Ms(jumpAt + 400), Do: "crash", Target: "node-1"},
		},
	}
}

// TestForgottenGrantFenceRefusesTheHolder: the storage refuses client-2,
// still the holder by the promoted replica's record, because it saw token
// 34 from client-1's grant, which node-1 made after its clock ended
// client-2's lease early and the promoted node-2 never received. No token
// was handed out again (duplicate_tokens is 0): the refusal names the
// forgotten grant, the summary counts it among the holder's refused
// writes as the events say, and the verdict blames the forgotten grant.
// Before, both said "token 33 was handed out again". Swept over the
// lease, when node-1's clock jumps, and a write or a fenced read.
func TestForgottenGrantFenceRefusesTheHolder(t *testing.T) {
	for _, lease := range []int64{5000, 8000} {
		for _, jumpAt := range []int64{3500, 4700} {
			for _, last := range []string{"write", "read"} {
				res := mustRun(t, forgottenFenceScenario(lease, jumpAt, last))
				name := fmt.Sprintf("lease %dms, node-1's clock jumps at %dms, client-2 %ss", lease, jumpAt, last)
				g1 := find(res, "client-1", engine.KindGranted)
				if len(g1) != 1 || g1[0].Token != 34 || len(find(res, "", engine.KindGrantForgotten)) != 1 {
					t.Fatalf("%s: client-1 granted %v, grants forgotten %v: not the run meant", name, g1, find(res, "", engine.KindGrantForgotten))
				}
				says := "token 34 came from client-1's grant by node-1 at "
				holds := "which the lock service forgot: it still counts client-2 as its holder of token 33"
				var refused []engine.Event
				for _, e := range append(writes(res, "client-2"), find(res, "client-2", engine.KindReadRefused)...) {
					if e.Kind != engine.KindWriteAccepted {
						refused = append(refused, e)
					}
				}
				if len(refused) != 1 {
					t.Fatalf("%s: client-2 refused %d times: %v", name, len(refused), refused)
				}
				e := refused[0]
				if !strings.Contains(e.Reason, says) || !strings.Contains(e.Reason, holds) || strings.Contains(e.Reason, "handed out again") {
					t.Errorf("%s: %s says %q; want the forgotten grant named", name, e.Kind, e.Reason)
				}
				if last == "read" {
					continue
				}
				s, v := res.Summary, engine.Verdict(res.Summary)
				forgot := 0
				for _, e := range find(res, engine.ActorStorage, engine.KindWriteRefused) {
					if e.Holder == e.Client && strings.Contains(e.Reason, "which the lock service forgot") {
						forgot++
					}
				}
				if e.Holder != "client-2" || s.HolderWritesRefused != 1 || s.ForgottenGrantWritesRefused != forgot || forgot != 1 || s.DuplicateTokens != 0 {
					t.Errorf("%s: holder %q; summary %d holder's refused, %d by a forgotten grant, %d duplicate tokens; the events %d", name, e.Holder,
						s.HolderWritesRefused, s.ForgottenGrantWritesRefused, s.DuplicateTokens, forgot)
				}
				if want := "the lock holder's own write was refused (1 refused): a higher token came from a grant the lock service forgot"; !strings.Contains(v, want) || strings.Contains(v, "handed out again") {
					t.Errorf("%s: the verdict %q does not say %q", name, v, want)
				}
			}
		}
	}
}
