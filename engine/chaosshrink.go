package engine

import (
	"context"
	"slices"
)

// shrinkBudget bounds the runs one Shrink may spend (a Raft run costs tens
// of milliseconds of wall time).
const shrinkBudget = 150

// Shrink makes a failing scenario smaller while fails still holds of its
// summary: it drops faults, clients and steps, moves faults earlier and
// shortens durations (of faults and of work), keeping each change after
// which the scenario still fails, until no change helps or its budget of
// runs is spent. It returns the smallest failing scenario and its result.
// A scenario that does not fail to begin with is returned as it is.
func Shrink(ctx context.Context, sc Scenario, fails func(Summary) bool) (Scenario, *Result) {
	return shrink(ctx, sc, fails, ChaosOptions{}.run)
}

// shrink is Shrink with the way each scenario is run.
func shrink(ctx context.Context, sc Scenario, fails func(Summary) bool, exec func(context.Context, Scenario) (*Result, error)) (Scenario, *Result) {
	budget := shrinkBudget
	run := func(s Scenario) (*Result, bool) {
		if budget <= 0 || ctx.Err() != nil {
			return nil, false
		}
		budget--
		res, err := exec(ctx, s)
		if err != nil {
			return nil, false
		}
		return res, fails(res.Summary)
	}
	best, ok := run(sc)
	if !ok {
		return sc, best
	}
	try := func(s Scenario) bool {
		if res, ok := run(s); ok {
			sc, best = s, res
			return true
		}
		return false
	}
	for changed := true; changed && budget > 0 && ctx.Err() == nil; {
		changed = false
		for i := len(sc.Faults) - 1; i >= 0; i-- {
			if i < len(sc.Faults) && try(withoutFault(sc, i)) {
				changed = true
			}
		}
		for i := len(sc.Clients) - 1; i >= 0 && len(sc.Clients) > 1; i-- {
			if i < len(sc.Clients) && try(withoutClient(sc, i)) {
				changed = true
			}
		}
		for c := range sc.Clients {
			for j := len(sc.Clients[c].Steps) - 1; j >= 0; j-- {
				if j < len(sc.Clients[c].Steps) && droppable(sc.Clients[c].Steps[j]) && try(withoutStep(sc, c, j)) {
					changed = true
				}
			}
		}
		for i := range sc.Faults {
			for _, at := range earlier(sc.Faults[i].At.MS()) {
				s := sc.clone()
				s.Faults[i].At = Ms(at)
				if try(s) {
					changed = true
					break
				}
			}
		}
		for i := range sc.Faults {
			if s, ok := shorterFault(sc, i); ok && try(s) {
				changed = true
			}
		}
		for c := range sc.Clients {
			for j, st := range sc.Clients[c].Steps {
				if st.Do != StepWork && st.Do != StepPause {
					continue
				}
				if d := shorter(st.For.MS()); d > 0 {
					s := sc.clone()
					s.Clients[c].Steps[j].For = Ms(d)
					if try(s) {
						changed = true
					}
				}
			}
		}
	}
	return sc, best
}

// earlier lists times before t to move a fault to, earliest first: half
// of t, and t rounded down to a second and to a tenth of one.
func earlier(t int64) []int64 {
	var out []int64
	for _, c := range []int64{t / 2 / 100 * 100, t / 1000 * 1000, t / 100 * 100} {
		if c < t && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// shorter is half of d, rounded down to a tenth of a second when that
// leaves something, or 0 when d cannot usefully shrink.
func shorter(d int64) int64 {
	h := d / 2
	if r := h / 100 * 100; r > 0 {
		h = r
	}
	if h <= 0 || h >= d {
		return 0
	}
	return h
}

// shorterFault halves a fault's duration: a pause's or partition's "for",
// a delay's "by", a clock jump's size.
func shorterFault(sc Scenario, i int) (Scenario, bool) {
	s := sc.clone()
	f := &s.Faults[i]
	switch {
	case f.For.IsSet():
		d := shorter(f.For.MS())
		if d == 0 {
			return s, false
		}
		f.For = Ms(d)
	case f.By.IsSet():
		by := f.By.MS()
		d := shorter(max(by, -by))
		if d == 0 {
			return s, false
		}
		if by < 0 {
			d = -d
		}
		f.By = Ms(d)
	default:
		return s, false
	}
	return s, true
}

func withoutFault(sc Scenario, i int) Scenario {
	out := sc.clone()
	out.Faults = slices.Delete(out.Faults, i, i+1)
	return out
}

// droppable reports whether the shrinker may drop a step. Taking the
// lock, reading and writing stay: without them the example would show a
// client that never used the lock, not the lock failing.
func droppable(st Step) bool {
	switch st.Do {
	case StepWork, StepCheck, StepRelease, StepPause:
		return true
	}
	return false
}

func withoutStep(sc Scenario, c, j int) Scenario {
	out := sc.clone()
	out.Clients[c].Steps = slices.Delete(out.Clients[c].Steps, j, j+1)
	return out
}

// withoutClient drops a client and the faults aimed at it.
func withoutClient(sc Scenario, i int) Scenario {
	name := sc.Clients[i].Name
	out := sc.clone()
	out.Clients = slices.Delete(out.Clients, i, i+1)
	out.Faults = slices.DeleteFunc(out.Faults, func(f Fault) bool { return f.Target == name })
	return out
}
