package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestChaosClaimsSearchesClaimRaces: a claims batch generates scenarios of
// ride-claim's kind (clients that take no lock and claim once, faults
// striking them), finds that exactly one client wins each race whatever
// the faults do, and would report two winners as a double claim.
func TestChaosClaimsSearchesClaimRaces(t *testing.T) {
	opt := engine.ChaosOptions{Runs: 60, Seed: 7, Kind: engine.ChaosClaims}
	for seed := int64(7); seed < 17; seed++ {
		sc, err := engine.GenerateScenario(context.Background(), seed, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Clients) < 2 || len(sc.Clients) > 6 || len(sc.Faults) == 0 {
			t.Errorf("seed %d: %d clients, %d faults", seed, len(sc.Clients), len(sc.Faults))
		}
		for _, c := range sc.Clients {
			if !slices.Equal(c.Steps, []engine.Step{{Do: engine.StepClaim}}) {
				t.Errorf("seed %d: %s does %+v, not one claim", seed, c.Name, c.Steps)
			}
		}
	}
	rep, err := engine.Chaos(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kind != engine.ChaosClaims || rep.Runs != 60 || rep.Violations != 0 || rep.ByKind.DoubleClaim != 0 || rep.RunsWithoutFaults > 3 {
		t.Errorf("claims batch: %+v", rep)
	}
	// No lock ran: the report names no lock service and counts no lock
	// history (an empty one would read as linearizable).
	if rep.Backend != "" || rep.Nodes != 0 || rep.Linearizability != (engine.LinearizabilityCounts{}) {
		t.Errorf("a claims batch reports backend %q, %d nodes, histories %+v", rep.Backend, rep.Nodes, rep.Linearizability)
	}
	if got := engine.Violations(engine.Summary{ClaimsWon: 2, ClaimsLost: 1}); !slices.Contains(got, engine.ViolationDoubleClaim) {
		t.Errorf("two winners of one claim: violations %v", got)
	}
	if err := (engine.ChaosOptions{Runs: 1, Kind: "rides"}).Check(); err == nil {
		t.Error("an unknown kind is accepted")
	}
}
