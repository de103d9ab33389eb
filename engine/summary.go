package engine

import (
	"fmt"
	"sort"
)

// summarize computes the summary at the end of the run (time end).
func (w *world) summarize(end int64) (Summary, error) {
	s := w.stats
	r, err := w.store.get()
	if err != nil {
		return s, fmt.Errorf("storage read: %w", err)
	}
	s.FinalValue = r.Value
	s.ExpectedValue = w.expected
	s.LostUpdate = s.FinalValue != s.ExpectedValue
	s.UnavailableMS = w.unavail.until(end)
	s.DuplicateSideEffects = 0
	for _, n := range w.sms.sent {
		s.DuplicateSideEffects += n - 1
	}
	var spans [][]span
	for _, c := range w.clients {
		b := c.beliefs
		if c.holding {
			b = append(b[:len(b):len(b)], span{c.since, end})
		}
		spans = append(spans, b)
	}
	s.OverlapMS = overlap(spans)
	s.EndMS = end
	s.Truncated = w.truncated
	s.Safe = s.StaleWritesAccepted == 0 && !s.LostUpdate && s.DuplicateSideEffects == 0
	return s, nil
}

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
