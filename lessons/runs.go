package lessons

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/leaselab/playground/engine"
)

// metricList names what a goal, a measure or a predict option may read
// from a run: the engine's summary fields, a few measures taken from the
// timeline, and two of the scenario's own settings.
var metricList = []string{
	"final_value", "expected_value", "lost_update", "writes_accepted", "writes_refused",
	"stale_writes_accepted", "overlap_ms", "double_grants", "duplicate_tokens", "unavailable_ms",
	"side_effects", "duplicate_side_effects", "claims_won", "claims_lost", "grants", "end_ms",
	"truncated", "safe", "lock_safe", "stale_reads",
	// From the timeline.
	"blocked_after_crash_ms", // from a client's crash to the next grant to anyone else
	"locks_lost",             // lock_lost events: holders that learned they lost the lock
	"gave_up",                // clients that gave up their job
	"finished",               // clients that finished their job
	"renewals",               // successful renewals
	// From the scenario.
	"lease_ms", "fencing",
}

// Timeline is one engine run as the checker shows it: what ran, what
// happened and what it means.
type Timeline struct {
	Name     string          `json:"name,omitempty"` // the fault schedule, for scenario exercises
	Seed     int64           `json:"seed"`
	Scenario engine.Scenario `json:"scenario"`
	Events   []engine.Event  `json:"events"`
	Summary  engine.Summary  `json:"summary"`
	Verdict  string          `json:"verdict"`
}

// baseScenario builds an exercise's scenario for a variant: the preset
// with the exercise's settings, parameters filled in.
func (ex *Exercise) baseScenario(env map[string]float64) (engine.Scenario, error) {
	p, err := engine.LoadPreset(ex.spec.Scenario.Preset)
	if err != nil {
		return engine.Scenario{}, err
	}
	return applySet(p.Scenario, ex.spec.Scenario.Set, env)
}

// applySet changes fields by path, in sorted path order so the result never
// depends on map order.
func applySet(sc engine.Scenario, set map[string]any, env map[string]float64) (engine.Scenario, error) {
	for _, k := range sortedKeys(set) {
		v, err := fillValue(set[k], env)
		if err != nil {
			return sc, err
		}
		if sc, err = engine.SetField(sc, k, v); err != nil {
			return sc, err
		}
	}
	return sc, nil
}

// Runner runs one prepared scenario for the checker. A server passes its
// own, which waits for an admission slot on behalf of the learner whose
// answer is being checked; without one, engine.Execute runs it.
type Runner func(ctx context.Context, p *engine.Prepared) (*engine.Result, error)

type runnerKey struct{}

// WithRunner returns a context under which every engine run of a check
// (a prediction's run, each schedule of a scenario answer, a playground's
// expect) goes through run. The runner belongs to one request (it carries
// that requester's place in the server's queue), hence the context.
func WithRunner(ctx context.Context, run Runner) context.Context {
	return context.WithValue(ctx, runnerKey{}, run)
}

func runnerFrom(ctx context.Context) Runner {
	if r, ok := ctx.Value(runnerKey{}).(Runner); ok && r != nil {
		return r
	}
	return engine.Execute
}

// prepareAndExecute validates a scenario and runs it (execute).
func prepareAndExecute(ctx context.Context, name string, sc engine.Scenario) (*Timeline, map[string]float64, error) {
	prepared, err := engine.Prepare(sc)
	if err != nil {
		return nil, nil, err
	}
	return execute(ctx, name, prepared)
}

// execute runs a prepared scenario and returns its timeline and measures.
func execute(ctx context.Context, name string, prepared *engine.Prepared) (*Timeline, map[string]float64, error) {
	res, err := runnerFrom(ctx)(ctx, prepared)
	if err != nil {
		return nil, nil, fmt.Errorf("running %s: %w", name, err)
	}
	norm := prepared.Scenario()
	tl := &Timeline{Name: name, Seed: norm.Seed, Scenario: norm, Events: res.Events,
		Summary: res.Summary, Verdict: engine.Verdict(res.Summary)}
	return tl, measures(norm, res), nil
}

// measures flattens a run into the names of metricList.
func measures(sc engine.Scenario, res *engine.Result) map[string]float64 {
	m := map[string]float64{}
	for _, name := range metricList {
		m[name] = 0
	}
	raw, _ := json.Marshal(res.Summary)
	var fields map[string]any
	_ = json.Unmarshal(raw, &fields)
	for k, v := range fields {
		switch v := v.(type) {
		case float64:
			m[k] = v
		case bool:
			m[k] = truth01(v)
		}
	}
	m["lease_ms"] = float64(sc.Lock.Lease.MS())
	m["fencing"] = truth01(sc.Fencing)
	crashed, crashAt, blocked := "", int64(-1), false
	for _, e := range res.Events {
		switch e.Kind {
		case engine.KindCrashed:
			if crashAt < 0 {
				crashed, crashAt = e.Actor, e.T
			}
		case engine.KindGranted:
			if crashAt >= 0 && e.Actor != crashed && !blocked {
				m["blocked_after_crash_ms"], blocked = float64(e.T-crashAt), true
			}
		case engine.KindLockLost:
			m["locks_lost"]++
		case engine.KindGaveUp:
			m["gave_up"]++
		case engine.KindDone:
			m["finished"]++
		case engine.KindRenewed:
			m["renewals"]++
		}
	}
	if crashAt >= 0 && !blocked {
		// Nobody got the lock before the end: blocked for the rest of the run.
		m["blocked_after_crash_ms"] = float64(res.Summary.EndMS - crashAt)
	}
	return m
}
