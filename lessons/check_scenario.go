package lessons

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/leaselab/playground/engine"
)

// scenario loads a scenario challenge: the fields a learner may set, the
// fault schedules their settings run under with a goal each, settings
// that pass, and settings known to fail.
func (l *loader) scenario() {
	spec := l.ex.spec
	l.scenarioBase()
	if len(spec.Allowed) == 0 {
		l.bad([]string{"allowed"}, "a scenario exercise lists the fields a learner may set")
	}
	l.ex.allowed = map[string]bool{}
	for _, a := range spec.Allowed {
		l.ex.allowed[a] = true
	}
	for k := range spec.Defaults {
		if !l.ex.allowed[k] {
			l.bad([]string{"defaults", k}, "default for %q, which is not in allowed", k)
		}
	}
	l.loadFields()
	if len(spec.Runs) == 0 {
		l.bad([]string{"runs"}, "a scenario exercise needs at least one run with a goal")
	}
	seeds := max(1, len(spec.Seeds))
	if len(spec.Runs)*seeds > maxRuns {
		l.bad([]string{"runs"}, "%d runs x %d seeds is more than %d engine runs per answer", len(spec.Runs), seeds, maxRuns)
	}
	for i, r := range spec.Runs {
		path := []string{"runs", fmt.Sprint(i)}
		if r.Name == "" || r.Goal == "" || r.Explain == "" {
			l.bad(path, "a run needs name, goal and explain")
			continue
		}
		if f := l.cond(append(path, "goal"), r.Goal, l.runNames()); f != nil {
			l.ex.runs = append(l.ex.runs, compiledRun{r, f})
		}
	}
	if spec.SolutionAnswer == "" {
		l.bad([]string{"solution_answer"}, "a scenario exercise needs solution_answer: settings that pass")
	}
	l.wrongNames()
	for i, w := range spec.Wrong {
		if w.Answer == "" || w.Feedback == "" {
			l.bad([]string{"wrong", fmt.Sprint(i)}, "a wrong answer needs answer and feedback")
		}
		l.ex.wrong = append(l.ex.wrong, compiledWrong{wrongSpec: w})
	}
}

// parseSettings reads a scenario answer: a JSON object of field paths to
// values, limited to the fields the exercise allows.
func (ex *Exercise) parseSettings(answer string) (map[string]string, error) {
	s := strings.TrimSpace(answer)
	if s == "" {
		return nil, formatErrorf(`Give your settings as a JSON object, like {"lock.lease":"30s"}.`)
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return nil, formatErrorf(`I could not read the settings as one JSON object (like {"lock.lease":"30s","fencing":false}).`)
	}
	if k := repeatedKey(s); k != "" {
		return nil, formatErrorf("%q is set twice; give each setting once.", clip(k))
	}
	if len(raw) > maxSettings {
		return nil, formatErrorf("That is %d settings; at most %d are taken.", len(raw), maxSettings)
	}
	out := map[string]string{}
	for k, v := range raw {
		if !ex.allowed[k] {
			return nil, formatErrorf("%q cannot be changed in this exercise; you may set %s.", clip(k), strings.Join(ex.spec.Allowed, ", "))
		}
		var str string
		if json.Unmarshal(v, &str) == nil {
			if strings.TrimSpace(str) == "" {
				if ex.field(k).Empty != "" {
					out[k] = "" // cleared: what the field's range says empty means
				}
				continue // else an empty form field leaves the setting as it is
			}
			out[k] = strings.TrimSpace(str)
		} else {
			out[k] = string(bytes.TrimSpace(v))
		}
	}
	for k, v := range out {
		if v != "" {
			out[k] = normalizeValue(ex.field(k), v)
		}
	}
	return out, nil
}

// field is how the exercise's form shows path, before any variant's
// starting value.
func (ex *Exercise) field(path string) Field {
	return mergeField(defaultField(path), ex.spec.Fields[path])
}

// checkScenario applies the learner's settings to the base scenario, runs
// every fault schedule with every seed, and tests each run's goal. A
// failure is shown with the shortest failing timeline, the easiest to read.
func (ex *Exercise) checkScenario(ctx context.Context, r *Result, answer string, env map[string]float64) error {
	settings, err := ex.parseSettings(answer)
	if err != nil {
		return formatProblem(r, err)
	}
	fields, err := ex.fields(env)
	if err != nil {
		return err
	}
	for _, f := range fields {
		if v, ok := settings[f.Path]; ok && v != "" {
			if err := checkField(f, v); err != nil {
				return formatProblem(r, err)
			}
		}
	}
	base, err := ex.baseScenario(env)
	if err != nil {
		return fmt.Errorf("%s: base scenario: %w", ex.ID, err)
	}
	learner, err := applySettings(base, settings)
	if err != nil {
		return formatProblem(r, &formatError{err.Error()})
	}
	learnerPrep, err := engine.Prepare(learner)
	if err != nil {
		return formatProblem(r, &formatError{err.Error()})
	}
	r.Read = canonicalSettings(settings)
	seeds := ex.spec.Seeds
	if len(seeds) == 0 {
		seeds = []int64{learner.Seed}
	}
	var failed *Timeline
	var failedRun *compiledRun
	var failedMeasures map[string]float64
	failedIndex := -1
	for i := range ex.runs {
		run := &ex.runs[i]
		name := fill(run.Name, env)
		// Each scenario is validated once: a run that sets nothing runs
		// the learner's as prepared, and a seed changes nothing a check
		// looks at.
		prep := learnerPrep
		if len(run.Set) > 0 {
			sc, err := applySet(learner, run.Set, env)
			if err != nil {
				return fmt.Errorf("%s: run %q: %w", ex.ID, name, err)
			}
			if prep, err = engine.Prepare(sc); err != nil {
				// The learner's settings clash with this schedule (a lease
				// beyond the run's end): say so in their terms.
				return formatProblem(r, &formatError{fmt.Sprintf("With the run %q these settings are not valid: %v", name, err)})
			}
		}
		for _, seed := range seeds {
			tl, m, err := execute(ctx, name, prep.WithSeed(seed))
			if err != nil {
				return err
			}
			for k, v := range env {
				m[k] = v
			}
			pass, err := run.goal.truth(m)
			if err != nil {
				return err
			}
			pass = pass && !tl.Summary.Truncated
			r.Runs = append(r.Runs, RunReport{Name: name, Seed: seed, Passed: pass, Goal: run.Goal,
				Explain: fill(run.Explain, env), Events: len(tl.Events), Summary: tl.Summary})
			if !pass && (failed == nil || len(tl.Events) < len(failed.Events)) {
				failed, failedRun, failedMeasures, failedIndex = tl, run, m, i
			}
			if r.Timeline == nil {
				r.Timeline = tl
			}
		}
	}
	if failed == nil {
		r.Correct = true
		r.Feedback = fmt.Sprintf("Every run passed (%d).", len(r.Runs))
		if ex.spec.Success != "" {
			r.Feedback += " " + fill(ex.spec.Success, env)
		}
		return nil
	}
	r.Timeline = failed
	passed := 0
	for _, rr := range r.Runs {
		if rr.Passed {
			passed++
		}
	}
	r.Feedback = fmt.Sprintf("%d of %d runs passed. The run %q fails: %s", passed, len(r.Runs), fill(failedRun.Name, env), fill(failedRun.Explain, env))
	if failed.Summary.Truncated {
		r.Feedback += " (The run hit the engine's event limit: renewing that often makes too many events.)"
	}
	r.Feedback += " Measured: " + describeMeasures(failedRun.goal, failedMeasures) + "."
	r.Feedback += " What happened: " + failed.Verdict
	r.Mistake = fmt.Sprintf("run-%d", failedIndex)
	for _, w := range ex.wrong {
		if ex.sameScenario(base, learner, fill(w.Answer, env)) {
			r.Feedback = fill(w.Feedback, env) + " " + r.Feedback
			r.Mistake = w.Name
		}
	}
	return nil
}

// describeMeasures says in words the values a goal read, so a learner
// sees by how much a run missed ("the lock was blocked for 74 s after
// the crash").
func describeMeasures(goal *formula, m map[string]float64) string {
	var parts []string
	seen := map[string]bool{}
	for _, v := range goal.vars {
		// The exercise's own numbers are in its goal already.
		if !seen[v] && slices.Contains(metricList, v) {
			seen[v] = true
			parts = append(parts, measureWords(v, m[v]))
		}
	}
	return strings.Join(parts, "; ")
}

// applySettings lays a learner's settings over the exercise's scenario,
// in sorted path order so the result never depends on map order.
func applySettings(base engine.Scenario, settings map[string]string) (engine.Scenario, error) {
	sc := base
	var err error
	for _, k := range sortedKeys(settings) {
		v := settings[k]
		if v == "" {
			v = "null" // a cleared field unsets the setting
		}
		if sc, err = engine.SetField(sc, k, v); err != nil {
			return base, err
		}
	}
	return sc, nil
}

// sameScenario says whether the settings answer make of base the scenario
// learner. Known wrong answers are recognised by what they run, not by how
// they were written: the page's form sends every field, those left at
// their starting values included, and "10s" is "10000ms".
func (ex *Exercise) sameScenario(base, learner engine.Scenario, answer string) bool {
	ws, err := ex.parseSettings(answer)
	if err != nil {
		return false
	}
	sc, err := applySettings(base, ws)
	if err != nil {
		return false
	}
	a, err1 := json.Marshal(sc)
	b, err2 := json.Marshal(learner)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// canonicalSettings writes settings in one stable form, to compare them.
func canonicalSettings(s map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(s) {
		parts = append(parts, k+"="+s[k])
	}
	return strings.Join(parts, ", ")
}

// repeatedKey is the first key a JSON object gives twice, or "". A
// decoder keeps the last silently, so {"fencing": false, "fencing": true}
// would run with fencing on, as the learner may not have meant.
func repeatedKey(object string) string {
	dec := json.NewDecoder(strings.NewReader(object))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		k, _ := t.(string)
		if seen[k] {
			return k
		}
		seen[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}
