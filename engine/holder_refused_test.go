package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestTheHoldersRefusedWriteIsNotCalledStale: a promoted replica that
// never got client-2's grant of token 34 hands token 33 to client-3, the
// holder by the service's record; the storage, which saw 34, refuses
// client-3's write and read. Before, the verdict said "every stale write
// was refused" and the read "a newer holder has begun": neither was
// true. The refused write's event names client-3 as holder, the summary
// counts it apart, and the verdict and the read's reason say what
// happened.
func TestTheHoldersRefusedWriteIsNotCalledStale(t *testing.T) {
	scenario := func(client3 string) engine.Scenario {
		sc, err := engine.DecodeScenario([]byte(`{"title":"a lower token after a failover","seed":1,"fencing":true,"until":"30s",
 "lock":{"backend":"async-replica","lease":"10s","replication_lag":"1s","election":"1s"},
 "storage":{"key":"k","initial":100},
 "clients":[
  {"name":"client-1","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1},{"do":"release"}]},
  {"name":"client-2","start":"300ms","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":10}]},
  {"name":"client-3","start":"2s","retry_every":"500ms","steps":` + client3 + `}],
 "faults":[{"at":"500ms","do":"crash","target":"node-1"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	res := mustRun(t, scenario(`[{"do":"acquire"},{"do":"write","set":500},{"do":"release"}]`))
	s := res.Summary
	if s.WritesRefused != 1 || s.HolderWritesRefused != 1 || s.DuplicateTokens == 0 {
		t.Fatalf("summary %+v: want the one refused write counted as the holder's", s)
	}
	v := engine.Verdict(s)
	if strings.Contains(v, "every stale write was refused") || !strings.Contains(v, "the lock holder's own write was refused") {
		t.Errorf("verdict %q", v)
	}
	for _, e := range res.Events {
		if e.Kind == engine.KindWriteRefused && (e.Holder != "client-3" || !strings.Contains(e.Reason, "counts client-3 as its holder")) {
			t.Errorf("the refused write's event: holder %q, reason %q", e.Holder, e.Reason)
		}
	}
	res = mustRun(t, scenario(`[{"do":"acquire"},{"do":"read"},{"do":"write","add":100},{"do":"release"}]`))
	for _, e := range res.Events {
		if e.Kind == engine.KindReadRefused && (strings.Contains(e.Reason, "a newer holder has begun") || !strings.Contains(e.Reason, "counts client-3 as its holder")) {
			t.Errorf("the holder's refused read says %q", e.Reason)
		}
	}
	// A stale writer's refusal is still a stale write refused.
	if v := engine.Verdict(mustRun(t, mustPreset(t, "paused-holder", true)).Summary); !strings.Contains(v, "every stale write was refused") {
		t.Errorf("paused-holder with fencing: %q", v)
	}
}
