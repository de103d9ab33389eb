package lessons

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
)

// predict loads a prediction: its scenario, then either options whose
// conditions are tested on the run, or a measure read from the run and
// graded like a number.
func (l *loader) predict() {
	spec := l.ex.spec
	l.scenarioBase()
	if len(spec.Options) > 0 {
		l.options(true)
		return
	}
	if spec.Measure == "" {
		l.bad([]string{"measure"}, "a predict exercise needs measure: what to read from the run (e.g. final_value)")
	} else {
		l.ex.measure = l.value([]string{"measure"}, spec.Measure, l.runNames())
	}
	l.numberAnswer()
}

// checkPredict reads the prediction first (an unreadable one runs nothing
// and costs no try), then runs the engine and grades the prediction against
// what really happened.
func (ex *Exercise) checkPredict(ctx context.Context, r *Result, answer string, env map[string]float64) error {
	if len(ex.options) > 0 {
		if _, err := ex.parseChoice(answer); err != nil {
			return formatProblem(r, err)
		}
	} else if _, err := parseNumber(answer, ex.spec.Unit, ex.spec.UnitWords); err != nil {
		return formatProblem(r, err)
	}
	tl, m, err := ex.predictRun(ctx, env)
	if err != nil {
		return err
	}
	r.Timeline = tl
	for k, v := range env {
		m[k] = v
	}
	if len(ex.options) > 0 {
		var correct []string
		for _, o := range ex.options {
			ok, err := o.when.truth(m)
			if err != nil {
				return err
			}
			if ok {
				correct = append(correct, o.Key)
			}
		}
		if len(correct) != 1 && !ex.spec.Multiple {
			return fmt.Errorf("%s: %d options hold on the run, not exactly one", ex.ID, len(correct))
		}
		if err := ex.checkChoice(r, answer, env, correct); err != nil {
			return err
		}
		r.Expected = strings.Join(correct, ", ")
	} else {
		actual, err := ex.measure.value(m)
		if err != nil {
			return err
		}
		if err := ex.checkNumber(r, answer, env, &actual); err != nil {
			return err
		}
		r.Expected = formatIn(actual, ex.spec.Unit)
		if !r.Correct {
			r.Feedback += " The run gave " + r.Expected + "."
		}
	}
	r.Feedback += " " + tl.Verdict
	return nil
}

// predictRun runs a prediction's scenario for a variant. A run is
// deterministic, so the result is kept: a class answering the same variant
// costs one run, not one per learner. The cache is small and simply
// emptied when full, since variants beyond a class's few are rare.
func (ex *Exercise) predictRun(ctx context.Context, env map[string]float64) (*Timeline, map[string]float64, error) {
	sc, err := ex.baseScenario(env)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: base scenario: %w", ex.ID, err)
	}
	raw, err := json.Marshal(sc)
	if err != nil {
		return nil, nil, err
	}
	key := string(raw)
	ex.cacheMu.Lock()
	c, ok := ex.cache[key]
	ex.cacheMu.Unlock()
	if ok {
		return c.tl, maps.Clone(c.m), nil
	}
	tl, m, err := execute(ctx, ex.spec.Scenario.Preset, sc)
	if err != nil {
		return nil, nil, err
	}
	ex.cacheMu.Lock()
	if ex.cache == nil || len(ex.cache) >= predictCacheSize {
		ex.cache = map[string]cachedRun{}
	}
	ex.cache[key] = cachedRun{tl, maps.Clone(m)}
	ex.cacheMu.Unlock()
	return tl, m, nil
}

// predictCacheSize bounds the runs kept per prediction exercise.
const predictCacheSize = 64

type cachedRun struct {
	tl *Timeline // shared: callers must not modify it
	m  map[string]float64
}
