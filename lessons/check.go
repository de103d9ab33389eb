package lessons

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/leaselab/playground/engine"
)

// Attempt is one answer to one exercise.
type Attempt struct {
	Exercise string `json:"exercise"`
	Answer   string `json:"answer"`
	Variant  int    `json:"variant"`
	// Tries is how many wrong answers the learner gave before this one; it
	// unlocks hints.
	Tries int `json:"tries"`
}

// Result is the checker's verdict on an attempt. Its JSON is what the CLI
// prints and the web API returns.
type Result struct {
	Exercise string `json:"exercise"`
	Kind     string `json:"kind"`
	Variant  int    `json:"variant"`
	Correct  bool   `json:"correct"`
	// Graded is false for an open (text) answer: the learner, or a teacher,
	// compares it with the model answer and the rubric.
	Graded   bool   `json:"graded"`
	Feedback string `json:"feedback"`
	// FormatError is set when the answer could not be read ("forty"). Such
	// an attempt costs no try: Correct is false but it is not wrong.
	FormatError string `json:"format_error"`
	// Read is how the answer was understood ("900 s", "b").
	Read string `json:"read,omitempty"`
	// Expected is the right answer; it is only filled in once it is no
	// secret: after a correct answer, or for a prediction once the engine
	// has run.
	Expected string   `json:"expected,omitempty"`
	Hints    []string `json:"hints,omitempty"`
	// Solution is the worked solution (Markdown), after a correct answer.
	Solution string `json:"solution,omitempty"`
	// ModelAnswer and Rubric answer an open question.
	ModelAnswer string        `json:"model_answer,omitempty"`
	Rubric      []RubricPoint `json:"rubric,omitempty"`
	// Mentioned lists the rubric points the answer seems to touch on, as a
	// hint for the learner's own judgement.
	Mentioned []string `json:"mentioned,omitempty"`
	// Timeline is the engine run the answer was graded on: the real run of
	// a prediction, or for a scenario the shortest failing run (or the
	// first run when all passed).
	Timeline *Timeline `json:"timeline,omitempty"`
	// Runs reports each run of a scenario answer.
	Runs []RunReport `json:"runs,omitempty"`
}

// RunReport is one run of a scenario answer: a fault schedule and a seed.
type RunReport struct {
	Name    string         `json:"name"`
	Seed    int64          `json:"seed"`
	Passed  bool           `json:"passed"`
	Goal    string         `json:"goal"`
	Explain string         `json:"explain"`
	Events  int            `json:"events"`
	Summary engine.Summary `json:"summary"`
}

// Check grades one answer: the whole API a command or a web handler needs.
// The error is an *InputError for a request that cannot be taken (too long,
// variant out of range), wraps ErrUnknown for an unknown exercise, and is
// anything else only when the engine itself failed. An unreadable answer is
// not an error: it comes back with FormatError set.
func (c *Catalog) Check(ctx context.Context, exerciseID, answer string, variant int) (Result, error) {
	return c.CheckAttempt(ctx, Attempt{Exercise: exerciseID, Answer: answer, Variant: variant})
}

// CheckAttempt is Check with the number of earlier wrong tries, which
// unlocks hints.
func (c *Catalog) CheckAttempt(ctx context.Context, a Attempt) (Result, error) {
	ex, err := c.Exercise(a.Exercise)
	if err != nil {
		return Result{}, err
	}
	return ex.Check(ctx, a)
}

// Check grades an attempt at this exercise (see Catalog.Check).
func (ex *Exercise) Check(ctx context.Context, a Attempt) (Result, error) {
	if len(a.Answer) > MaxAnswerLen {
		return Result{}, &InputError{fmt.Sprintf("the answer is %d characters long; at most %d are accepted", len(a.Answer), MaxAnswerLen)}
	}
	if !utf8.ValidString(a.Answer) {
		return Result{}, &InputError{"the answer is not valid UTF-8 text"}
	}
	if a.Tries < 0 {
		a.Tries = 0
	}
	env, err := ex.params(a.Variant)
	if err != nil {
		return Result{}, err
	}
	r := Result{Exercise: ex.ID, Kind: ex.Kind, Variant: a.Variant, Graded: ex.Kind != KindText}
	switch ex.Kind {
	case KindNumber:
		err = ex.checkNumber(&r, a.Answer, env, nil)
	case KindChoice:
		err = ex.checkChoice(&r, a.Answer, env, nil)
	case KindPredict:
		err = ex.checkPredict(ctx, &r, a.Answer, env)
	case KindScenario:
		err = ex.checkScenario(ctx, &r, a.Answer, env)
	case KindText:
		ex.checkText(&r, a.Answer)
	}
	if err != nil {
		return Result{}, err
	}
	switch {
	case r.Correct:
		r.Solution = fill(ex.spec.Solution, env)
	case r.FormatError == "" && r.Graded:
		r.Hints = ex.HintsAfter(a.Tries+1, a.Variant)
	}
	return r, nil
}

// formatProblem fills a result for an answer that could not be read.
func formatProblem(r *Result, err error) error {
	var fe *formatError
	if errors.As(err, &fe) {
		r.FormatError = fe.msg
		r.Feedback = fe.msg
		return nil
	}
	return err
}

// close reports whether got is within the exercise's tolerance of want.
func (ex *Exercise) close(got, want float64) bool {
	tol := math.Max(ex.spec.Tolerance.Abs, ex.spec.Tolerance.Rel*math.Abs(want))
	return math.Abs(got-want) <= tol+1e-9*math.Max(1, math.Abs(want))
}

// nearWrong reports whether got is a named mistake's value, as precisely
// as the learner typed it: whoever types 0.022 for 20/900 made the
// upside-down mistake all the same.
func (ex *Exercise) nearWrong(got parsedNumber, wrong float64) bool {
	return ex.close(got.value, wrong) || math.Abs(got.value-wrong) <= got.step/2+1e-12
}

// checkNumber grades a number against the answer formula, or against
// actual when the engine measured it (a prediction).
func (ex *Exercise) checkNumber(r *Result, answer string, env map[string]float64, actual *float64) error {
	unit := ex.spec.Unit
	got, err := parseNumber(answer, unit, ex.spec.UnitWords)
	if err != nil {
		return formatProblem(r, err)
	}
	r.Read = got.read
	want, err := ex.answer.value(env)
	if err != nil {
		return err
	}
	if actual != nil {
		want = *actual
	}
	if ex.close(got.value, want) {
		r.Correct = true
		r.Expected = formatIn(want, unit)
		r.Feedback = "Right: " + formatIn(want, unit) + "."
		if ex.spec.Success != "" {
			r.Feedback += " " + fill(ex.spec.Success, env)
		}
		return nil
	}
	for _, w := range ex.wrong {
		v, err := w.f.value(env)
		if err != nil {
			return err
		}
		if ex.close(v, want) {
			continue // this mistake gives the right number in this variant
		}
		if ex.nearWrong(got, v) {
			r.Feedback = fill(w.Feedback, env)
			return nil
		}
	}
	if got.value > want {
		r.Feedback = fmt.Sprintf("Not quite: %s is too high.", got.read)
	} else {
		r.Feedback = fmt.Sprintf("Not quite: %s is too low.", got.read)
	}
	return nil
}

var choiceSepRE = regexp.MustCompile(`\s*(?:,|;|\band\b|&|\+|/)\s*|\s+`)

// parseChoice reads option keys ("b", "a, c", "A and C") or an option's
// aliases ("refused", "0 rows").
func (ex *Exercise) parseChoice(answer string) ([]string, error) {
	s := strings.ToLower(strings.TrimSpace(answer))
	s = strings.TrimRight(s, ".!")
	if s == "" {
		return nil, formatErrorf("Pick an option first.")
	}
	// A whole alias first: "0 rows" must not be read as two words.
	for _, o := range ex.options {
		for _, al := range o.Aliases {
			if s == strings.ToLower(al) {
				return []string{o.Key}, nil
			}
		}
	}
	var keys []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if k := ex.aliasKey(part); k != "" {
			keys = append(keys, k)
			continue
		}
		for _, tok := range choiceSepRE.Split(part, -1) {
			tok = strings.Trim(tok, "()[]. ")
			if tok == "" {
				continue
			}
			if ex.option(tok) == nil && ex.spec.Multiple && ex.allKeys(tok) {
				// "abd": letters typed together.
				for _, r := range tok {
					keys = append(keys, string(r))
				}
				continue
			}
			if ex.option(tok) == nil {
				return nil, formatErrorf("%q is not one of the options: answer with their letters, like %q.", clip(tok), ex.exampleKeys())
			}
			keys = append(keys, tok)
		}
	}
	if len(keys) == 0 {
		return nil, formatErrorf("Pick an option first.")
	}
	sort.Strings(keys)
	keys = uniq(keys)
	if len(keys) > 1 && !ex.spec.Multiple {
		return nil, formatErrorf("Pick one option, not %d.", len(keys))
	}
	return keys, nil
}

// allKeys reports whether every letter of s is an option key.
func (ex *Exercise) allKeys(s string) bool {
	for _, r := range s {
		if ex.option(string(r)) == nil {
			return false
		}
	}
	return s != ""
}

func (ex *Exercise) aliasKey(s string) string {
	for _, o := range ex.options {
		for _, al := range o.Aliases {
			if s == strings.ToLower(al) {
				return o.Key
			}
		}
	}
	return ""
}

func (ex *Exercise) exampleKeys() string {
	if ex.spec.Multiple {
		return "a, c"
	}
	return "b"
}

func uniq(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// checkChoice grades chosen keys against correct ones (the exercise's, or
// the options that held on a real run).
func (ex *Exercise) checkChoice(r *Result, answer string, env map[string]float64, correct []string) error {
	keys, err := ex.parseChoice(answer)
	if err != nil {
		return formatProblem(r, err)
	}
	if correct == nil {
		correct = append([]string(nil), ex.spec.Correct...)
	}
	sort.Strings(correct)
	r.Read = strings.Join(keys, ", ")
	if strings.Join(keys, ",") == strings.Join(correct, ",") {
		r.Correct = true
		r.Expected = strings.Join(correct, ", ")
		r.Feedback = "Right."
		if len(correct) == 1 {
			if o := ex.option(correct[0]); o.Feedback != "" {
				r.Feedback += " " + fill(o.Feedback, env)
			}
		}
		if ex.spec.Success != "" {
			r.Feedback += " " + fill(ex.spec.Success, env)
		}
		return nil
	}
	var notes []string
	for _, k := range keys {
		if !contains(correct, k) {
			if o := ex.option(k); o.Feedback != "" {
				notes = append(notes, fmt.Sprintf("(%s) %s", k, fill(o.Feedback, env)))
			} else {
				notes = append(notes, fmt.Sprintf("(%s) is not right.", k))
			}
		}
	}
	if ex.spec.Multiple {
		found := 0
		for _, k := range keys {
			if contains(correct, k) {
				found++
			}
		}
		if found < len(correct) {
			notes = append(notes, fmt.Sprintf("You have %d of the %d right options.", found, len(correct)))
		}
	}
	r.Feedback = "Not quite. " + strings.Join(notes, " ")
	return nil
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
				continue // an empty form field leaves the setting as it is
			}
			out[k] = strings.TrimSpace(str)
		} else {
			out[k] = string(bytes.TrimSpace(v))
		}
	}
	return out, nil
}

// checkScenario applies the learner's settings to the base scenario, runs
// every fault schedule with every seed, and tests each run's goal. A
// failure is shown with the shortest failing timeline, the easiest to read.
func (ex *Exercise) checkScenario(ctx context.Context, r *Result, answer string, env map[string]float64) error {
	settings, err := ex.parseSettings(answer)
	if err != nil {
		return formatProblem(r, err)
	}
	base, err := ex.baseScenario(env)
	if err != nil {
		return fmt.Errorf("%s: base scenario: %w", ex.ID, err)
	}
	learner := base
	for _, k := range sortedKeys(settings) {
		if learner, err = engine.SetField(learner, k, settings[k]); err != nil {
			return formatProblem(r, &formatError{err.Error()})
		}
	}
	if _, err := engine.Prepare(learner); err != nil {
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
	for i := range ex.runs {
		run := &ex.runs[i]
		name := fill(run.Name, env)
		sc, err := applySet(learner, run.Set, env)
		if err != nil {
			return fmt.Errorf("%s: run %q: %w", ex.ID, name, err)
		}
		for _, seed := range seeds {
			sc.Seed = seed
			if _, err := engine.Prepare(sc); err != nil {
				// The learner's settings clash with this schedule (a lease
				// beyond the run's end): say so in their terms.
				return formatProblem(r, &formatError{fmt.Sprintf("With the run %q these settings are not valid: %v", name, err)})
			}
			tl, m, err := execute(ctx, name, sc)
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
				failed, failedRun, failedMeasures = tl, run, m
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
	for _, w := range ex.wrong {
		if ws, err := ex.parseSettings(fill(w.Answer, env)); err == nil && canonicalSettings(ws) == r.Read {
			r.Feedback = fill(w.Feedback, env) + " " + r.Feedback
		}
	}
	return nil
}

// describeMeasures lists the values a goal read, so a learner sees by how
// much a run missed ("blocked_after_crash_ms = 74,000").
func describeMeasures(goal *expr, m map[string]float64) string {
	var parts []string
	seen := map[string]bool{}
	for _, v := range goal.vars {
		if !seen[v] {
			seen[v] = true
			parts = append(parts, v+" = "+formatNumber(m[v]))
		}
	}
	return strings.Join(parts, ", ")
}

// canonicalSettings writes settings in one stable form, to compare them.
func canonicalSettings(s map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(s) {
		parts = append(parts, k+"="+s[k])
	}
	return strings.Join(parts, ", ")
}

// checkText records an open answer and returns the model answer and the
// rubric to compare it with.
func (ex *Exercise) checkText(r *Result, answer string) {
	words := strings.Fields(answer)
	if len(words) < 3 {
		r.FormatError = "Write your answer in a sentence or two first; then you will see the model answer."
		r.Feedback = r.FormatError
		return
	}
	r.ModelAnswer = ex.spec.ModelAnswer
	r.Rubric = ex.spec.Rubric
	low := strings.ToLower(answer)
	for _, p := range ex.spec.Rubric {
		for _, k := range p.Keywords {
			if strings.Contains(low, strings.ToLower(k)) {
				r.Mentioned = append(r.Mentioned, p.Point)
				break
			}
		}
	}
	r.Feedback = fmt.Sprintf("Answer recorded. Compare it with the model answer and the rubric: a good answer covers all %d points.", len(ex.spec.Rubric))
}
