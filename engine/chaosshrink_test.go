package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestShrinkDropsMovesAndShortens starts from paused-holder (fencing off,
// a single server, no renewals) padded with what the failure does not need: a third
// client, a late message of client-2's release, a check step, and a pause
// that starts later and lasts longer than it must. The shrinker drops the
// padding, moves the pause earlier, shortens what it can, and what it
// returns still lets the stale write land when run as it is.
func TestShrinkDropsMovesAndShortens(t *testing.T) {
	sc := mustPreset(t, "paused-holder", false, "lock.backend", "single", "lock.nodes", "1")
	// client-1 does not renew: it carries on after the pause whichever
	// way the client notices a lost lease.
	sc.Clients[0].RenewEvery = engine.Duration{}
	sc.Clients[1].Steps = slices.Insert(sc.Clients[1].Steps, 2, engine.Step{Do: engine.StepCheck})
	extra := sc.Clients[1]
	extra.Name, extra.Start = "client-3", engine.Sec(30)
	sc.Clients = append(sc.Clients, extra)
	sc.Faults = []engine.Fault{
		{At: engine.Ms(3500), Do: engine.FaultPause, Target: "client-1", For: engine.Sec(25)},
		{At: engine.Sec(12), Do: engine.FaultDelay, Target: "client-2", Kind: engine.MsgRelease, By: engine.Ms(300)},
	}
	stale := func(s engine.Summary) bool { return s.StaleWritesAccepted > 0 }
	if !stale(mustRun(t, sc).Summary) {
		t.Fatal("the padded scenario should fail to begin with")
	}
	small, res := engine.Shrink(context.Background(), sc, stale)
	t.Logf("shrunk: %s", jsonOf(t, small))
	if !stale(res.Summary) || !stale(mustRun(t, small).Summary) {
		t.Fatalf("the shrunk scenario no longer fails: %+v", res.Summary)
	}
	if len(small.Clients) != 2 || len(small.Faults) != 1 || small.Faults[0].Do != engine.FaultPause {
		t.Fatalf("want the two clients and the pause, got %d clients and faults %+v", len(small.Clients), small.Faults)
	}
	for _, c := range small.Clients {
		for _, st := range c.Steps {
			if st.Do == engine.StepCheck {
				t.Errorf("the check step should be dropped: %+v", c.Steps)
			}
		}
	}
	p := small.Faults[0]
	if p.At.MS() >= 3500 || p.For.MS() >= 25000 {
		t.Errorf("the pause should move earlier and be shorter: at %s for %s", p.At, p.For)
	}
}
