package web_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// TestFoldMovesALeaseItsBackendExtends: in etcd-leader-change node-2,
// elected at 14 s, gives client-1's lease its full TTL again, to 24 s,
// and refuses client-2 "held by client-1 (token 33) until 24s". The lock
// panel says the same end, not the 13 s the last renewal gave it.
func TestFoldMovesALeaseItsBackendExtends(t *testing.T) {
	p, err := engine.LoadPreset("etcd-leader-change")
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Execute(t.Context(), p.Prepared())
	if err != nil {
		t.Fatal(err)
	}
	s := web.NewState(p.Prepared().Scenario())
	refused := false
	for _, e := range res.Events {
		s.Apply(e)
		if e.Kind == engine.KindAcquireRefused && strings.Contains(e.Reason, "until 24s") {
			refused = true
			if s.Lock.Holder != "client-1" || s.Lock.LeaseUntil != 24000 {
				t.Fatalf("at %dms client-2 is refused %q, and the lock panel shows %+v", e.T, e.Reason, s.Lock)
			}
		}
	}
	if !refused {
		t.Fatal("no refusal names the extended lease: the preset no longer shows it")
	}
}
