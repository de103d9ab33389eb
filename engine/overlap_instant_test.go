package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestTwoHoldersAtOneInstantAreADoubleGrantNotAnOverlap: a primary cut
// off with client-1 still serves it while the promoted replica serves
// client-2, and both, at 3 s and at no latency, acquire, read, write and
// release in the same instant. Both believed they held the lock at once,
// for no time at all: overlap_ms, a length, stays 0, and the summary says
// the breach as a count (a double grant, token 33 handed out twice) and
// the verdict in words.
func TestTwoHoldersAtOneInstantAreADoubleGrantNotAnOverlap(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(`{"title":"zero-length jobs in a split brain","seed":1,"fencing":false,"until":"20s",
		"lock":{"backend":"async-replica","nodes":2,"lease":"10s","election":"1s","latency":"0s"},
		"storage":{"key":"account-42","initial":1000},
		"clients":[{"name":"client-1","start":"3s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":100},{"do":"release"}]},
		{"name":"client-2","start":"3s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":200},{"do":"release"}]}],
		"faults":[{"at":"0s","do":"partition","side":["node-1","client-1"],"for":"10s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sc)
	// Both grants come before either release, all at 3 s.
	var order []string
	for _, e := range res.Events {
		if e.T == 3000 && (e.Kind == engine.KindGranted || e.Kind == engine.KindReleased) {
			order = append(order, e.Actor+" "+e.Kind)
		}
	}
	if strings.Join(order, ", ") != "client-1 granted, client-2 granted, client-1 released, client-2 released" {
		t.Fatalf("at 3 s: %v: the run no longer has two holders at one instant", order)
	}
	s := res.Summary
	if s.OverlapMS != 0 || s.DoubleGrants != 1 || s.DuplicateTokens != 1 || s.LockSafe {
		t.Errorf("overlap %dms, double grants %d, duplicate tokens %d, lock safe %v; want 0, 1, 1, false", s.OverlapMS, s.DoubleGrants, s.DuplicateTokens, s.LockSafe)
	}
	if v := engine.Verdict(s); !strings.Contains(v, "the lock was granted twice at once 1 time") || strings.Contains(v, "believed they held the lock for") {
		t.Errorf("verdict %q", v)
	}
}
