package web

import (
	"slices"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestShareChanges names each setting a shared scenario changed from its
// preset, by the scenario's own field names, and nothing else.
func TestShareChanges(t *testing.T) {
	p, err := engine.LoadPreset("paused-holder")
	if err != nil {
		t.Fatal(err)
	}
	if got := shareChanges(p.Scenario, p.Scenario); len(got) != 0 {
		t.Errorf("the preset itself changes %q", got)
	}
	sc := p.Scenario
	sc.Fencing = true
	sc.Lock.Lease = engine.Ms(600_000)
	sc.Clients = slices.Clone(sc.Clients)
	sc.Clients[1].Start = engine.Ms(9000)
	sc.Title = "my run"
	want := []string{
		`clients[client-2].start: "9s" (the preset has "6s")`,
		`fencing: true (the preset has false)`,
		`lock.lease: "10m0s" (the preset has "10s")`,
	}
	if got := shareChanges(p.Scenario, sc); !slices.Equal(got, want) {
		t.Errorf("changes %q, want %q", got, want)
	}
}
