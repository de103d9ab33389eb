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
		// correct is optional here: the option the run is known to make
		// right on every variant, which lets the options be placed so the
		// right letter is spread evenly. Verify checks it against the run.
		for _, k := range spec.Correct {
			if l.ex.option(k) == nil {
				l.bad([]string{"correct"}, "correct names %q, which is not an option key", k)
			}
		}
		if len(spec.Correct) > 1 && !spec.Multiple {
			l.bad([]string{"correct"}, "one option is right on a run: set multiple: true for several")
		}
		return
	}
	if len(spec.Correct) > 0 {
		l.bad([]string{"correct"}, "correct belongs to options; a prediction of a number has answer")
	}
	if spec.Measure == "" {
		l.bad([]string{"measure"}, "a predict exercise needs measure: what to read from the run (e.g. final_value)")
	} else {
		l.ex.measure = l.value([]string{"measure"}, spec.Measure, l.runNames())
	}
	l.numberAnswer()
}

// predicted is what a prediction's run really gave: the timeline, the
// right option keys or the measured value, and that answer as a learner
// would write it.
type predicted struct {
	tl       *Timeline
	correct  []string // the options that held (a choice prediction)
	actual   float64  // the measure (a numeric prediction)
	expected string
}

// predictOutcome runs a prediction's scenario for a variant and reads
// what a right prediction is.
func (ex *Exercise) predictOutcome(ctx context.Context, env map[string]float64) (*predicted, error) {
	tl, m, err := ex.predictRun(ctx, env)
	if err != nil {
		return nil, err
	}
	for k, v := range env {
		m[k] = v
	}
	p := &predicted{tl: tl}
	if len(ex.options) > 0 {
		for _, o := range ex.options {
			ok, err := o.when.truth(m)
			if err != nil {
				return nil, err
			}
			if ok {
				p.correct = append(p.correct, o.Key)
			}
		}
		if len(p.correct) != 1 && !ex.spec.Multiple {
			return nil, fmt.Errorf("%s: %d options hold on the run, not exactly one", ex.ID, len(p.correct))
		}
		p.expected = strings.Join(p.correct, ", ")
		return p, nil
	}
	if p.actual, err = ex.measure.value(m); err != nil {
		return nil, err
	}
	p.expected = formatIn(p.actual, ex.spec.Unit)
	return p, nil
}

// checkPredict reads the prediction first (an unreadable one runs nothing
// and costs no try), then runs the engine and grades the prediction against
// what really happened. What the run gave is only shown once the answer is
// earned (see Check).
func (ex *Exercise) checkPredict(ctx context.Context, r *Result, answer string, env map[string]float64, variant int, fileKeys bool) (*predicted, error) {
	if len(ex.options) > 0 {
		if _, err := ex.parseChoice(answer, ex.lettering(variant), fileKeys); err != nil {
			return nil, formatProblem(r, err)
		}
	} else if _, err := parseNumber(answer, ex.numberOptions()); err != nil {
		return nil, formatProblem(r, err)
	}
	p, err := ex.predictOutcome(ctx, env)
	if err != nil {
		return nil, err
	}
	if len(ex.options) > 0 {
		err = ex.checkChoice(r, answer, env, p.correct, variant, fileKeys)
	} else {
		err = ex.checkNumber(r, answer, env, &p.actual)
	}
	return p, err
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
	tl, m, err := prepareAndExecute(ctx, ex.spec.Scenario.Preset, sc)
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
