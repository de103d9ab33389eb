package engine

import (
	"fmt"
	"sort"
)

// summarize computes the summary at the end of the run (time end): the
// auditor's account, and the record as the storage holds it.
func (w *world) summarize(end int64) (Summary, error) {
	r, err := w.store.get()
	if err != nil {
		return Summary{}, fmt.Errorf("storage read: %w", err)
	}
	s := w.audit.summary(end, r.Value, w.truncated)
	s.LockSafe = s.DoubleGrants == 0 && s.DuplicateTokens == 0
	return s, nil
}

// span is a half-open interval of simulated time.
type span struct{ from, to int64 }

// overlap measures the time covered by spans of two or more different
// owners (each owner's own spans never overlap one another).
func overlap(owners [][]span) int64 {
	type edge struct {
		t     int64
		delta int
	}
	var edges []edge
	for _, spans := range owners {
		for _, sp := range spans {
			if sp.to > sp.from {
				edges = append(edges, edge{sp.from, +1}, edge{sp.to, -1})
			}
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].t != edges[j].t {
			return edges[i].t < edges[j].t
		}
		return edges[i].delta < edges[j].delta
	})
	var total, last int64
	depth := 0
	for _, e := range edges {
		if depth >= 2 {
			total += e.t - last
		}
		depth += e.delta
		last = e.t
	}
	return total
}
