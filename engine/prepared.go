package engine

import (
	"encoding/json"
	"slices"
)

// Prepared is a scenario that passed Prepare: every default filled in and
// every field within its bounds. Start and Execute take only a Prepared, so
// nothing runs unvalidated and no caller validates the same scenario twice.
// A Prepared never changes; Scenario hands out copies.
type Prepared struct {
	sc Scenario
}

// Scenario returns a copy of the normalised scenario (defaults filled in),
// which the caller may change freely.
func (p *Prepared) Scenario() Scenario { return p.sc.clone() }

// WithSeed returns the same prepared scenario under another seed. A seed
// is any number, so nothing is validated again.
func (p *Prepared) WithSeed(seed int64) *Prepared {
	if seed == p.sc.Seed {
		return p
	}
	return &Prepared{sc: p.sc.withSeed(seed)}
}

// withSeed is sc with another seed; sc's slices are shared, which is safe
// because a Prepared never changes its scenario.
func (sc Scenario) withSeed(seed int64) Scenario {
	sc.Seed = seed
	return sc
}

// Title is the scenario's title.
func (p *Prepared) Title() string { return p.sc.Title }

// Seed is the scenario's seed.
func (p *Prepared) Seed() int64 { return p.sc.Seed }

// MarshalJSON writes the normalised scenario.
func (p *Prepared) MarshalJSON() ([]byte, error) { return json.Marshal(p.sc) }

// clone copies sc deeply enough that changing the copy's clients, steps
// or faults leaves sc as it was.
func (sc Scenario) clone() Scenario {
	n := sc
	n.Clients = slices.Clone(sc.Clients)
	for i := range n.Clients {
		steps := slices.Clone(sc.Clients[i].Steps)
		for j := range steps {
			steps[j].Add = clonePtr(steps[j].Add)
			steps[j].Set = clonePtr(steps[j].Set)
		}
		n.Clients[i].Steps = steps
	}
	n.Faults = slices.Clone(sc.Faults)
	for i := range n.Faults {
		n.Faults[i].Side = slices.Clone(sc.Faults[i].Side)
	}
	return n
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
