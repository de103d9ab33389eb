package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestAmbiguousCommit: the leader commits client-1's acquire at 50 ms and
// crashes before the answer is back at 100 ms, wherever in between it
// crashes. client-1 hears nothing, asks again under the next leader and
// gets the same grant: token 33, once. The history keeps the first
// acquire pending and is linearizable.
func TestAmbiguousCommit(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		for _, crash := range []int64{51, 70, 99} {
			t.Run(fmt.Sprintf("fencing=%v/crash=%dms", fencing, crash), func(t *testing.T) {
				res := mustRun(t, mustPreset(t, "ambiguous-commit", fencing, "faults[0].at", fmt.Sprintf("%dms", crash)))
				lost := find(res, "node-1", engine.KindAnswerLost)
				if len(lost) != 1 || lost[0].Client != "client-1" || lost[0].Message != "acquire" || lost[0].Token != 33 || lost[0].T != 100 {
					t.Fatalf("node-1's grant of token 33 should be applied and its answer lost at 100 ms: %v", lost)
				}
				if u := find(res, "client-1", engine.KindUnavailable); len(u) != 1 || u[0].T != 100 {
					t.Errorf("client-1 should hear nothing back: %v", u)
				}
				g := find(res, "client-1", engine.KindGranted)
				if len(g) != 1 || g[0].Token != 33 || g[0].Node != "node-2" || g[0].T != 1200 {
					t.Fatalf("the retry should get the same grant, token 33, from node-2 at 1.2 s: %v", g)
				}
				grantAt(t, res, "client-2", 34, 3800)
				s := res.Summary
				if !s.Safe || !s.LockSafe || s.DuplicateTokens != 0 || s.DoubleGrants != 0 || s.Grants != 2 {
					t.Errorf("one grant per client: %+v", s)
				}
				h := res.History()
				b, err := json.Marshal(h)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Count(string(b), `"unknown":true`) != 1 {
					t.Errorf("the first acquire should stay pending in the history: %s", b)
				}
				if !h.Linearizable(0) {
					t.Errorf("the history with the pending acquire should be linearizable")
				}
			})
		}
	}
}

// TestCrashBeforeTheRequest: when the leader crashes before the request
// reaches it, nothing was applied: no answer is lost, and the next leader
// grants token 33 afresh.
func TestCrashBeforeTheRequest(t *testing.T) {
	res := mustRun(t, mustPreset(t, "ambiguous-commit", true, "faults[0].at", "40ms"))
	if lost := find(res, "", engine.KindAnswerLost); len(lost) != 0 {
		t.Fatalf("nothing was applied, so no answer was lost: %v", lost)
	}
	b, _ := json.Marshal(res.History())
	if strings.Contains(string(b), `"unknown":true`) {
		t.Errorf("no pending operation: %s", b)
	}
	if g := find(res, "client-1", engine.KindGranted); len(g) != 1 || g[0].Token != 33 {
		t.Fatalf("client-1 should be granted token 33 by the next leader: %v", g)
	}
}
