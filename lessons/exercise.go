package lessons

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Exercise kinds.
const (
	KindNumber   = "number"   // a number with a tolerance and a unit
	KindChoice   = "choice"   // one or several options
	KindPredict  = "predict"  // a prediction graded against a real engine run
	KindScenario = "scenario" // settings run through the engine and tested against a goal
	KindText     = "text"     // an open answer, compared with a model answer and a rubric
)

// Bounds on exercise files, so a folder of material cannot make the checker
// slow.
const (
	MaxVariant   = 1_000_000 // variants are 0 (the notes' numbers) to MaxVariant
	maxRuns      = 12        // engine runs one scenario answer may cost
	maxSettings  = 20        // fields a scenario answer may set
	drawAttempts = 500       // draws tried before a variant's constraints are given up
)

// Exercise is one exercise of the catalog, loaded from its YAML file.
type Exercise struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Title  string `json:"title"`
	Lesson string `json:"lesson"` // the slug of the lesson that lists it
	File   string `json:"-"`

	spec        exerciseFile
	answer      *expr
	measure     *expr
	lets        []letDef
	constraints []*expr
	wrong       []compiledWrong
	options     []compiledOption
	runs        []compiledRun
	allowed     map[string]bool

	cacheMu sync.Mutex
	cache   map[string]cachedRun // predict runs by scenario and parameters
}

// exerciseFile is the YAML form of an exercise (see doc.go for every field).
type exerciseFile struct {
	ID             string               `yaml:"id"`
	Kind           string               `yaml:"kind"`
	Title          string               `yaml:"title"`
	Prompt         string               `yaml:"prompt"`
	Params         map[string]paramSpec `yaml:"params"`
	Let            []string             `yaml:"let"`
	Constraints    []string             `yaml:"constraints"`
	Answer         string               `yaml:"answer"`
	Tolerance      toleranceSpec        `yaml:"tolerance"`
	Unit           string               `yaml:"unit"`
	UnitWords      []string             `yaml:"unit_words"`
	Options        []optionSpec         `yaml:"options"`
	Correct        []string             `yaml:"correct"`
	Multiple       bool                 `yaml:"multiple"`
	Wrong          []wrongSpec          `yaml:"wrong"`
	Hints          []hintSpec           `yaml:"hints"`
	Solution       string               `yaml:"solution"`
	Success        string               `yaml:"success"`
	Scenario       *scenarioSpec        `yaml:"scenario"`
	Measure        string               `yaml:"measure"`
	Allowed        []string             `yaml:"allowed"`
	Defaults       map[string]any       `yaml:"defaults"`
	Runs           []runSpec            `yaml:"runs"`
	Seeds          []int64              `yaml:"seeds"`
	SolutionAnswer string               `yaml:"solution_answer"`
	ModelAnswer    string               `yaml:"model_answer"`
	Rubric         []RubricPoint        `yaml:"rubric"`
}

type paramSpec struct {
	Default float64   `yaml:"default"`
	Min     float64   `yaml:"min"`
	Max     float64   `yaml:"max"`
	Step    float64   `yaml:"step"`
	Choices []float64 `yaml:"choices"`
}

type toleranceSpec struct {
	Abs float64 `yaml:"abs"`
	Rel float64 `yaml:"rel"`
}

type optionSpec struct {
	Key      string   `yaml:"key"`
	Text     string   `yaml:"text"`
	Aliases  []string `yaml:"aliases"`
	Feedback string   `yaml:"feedback"`
	When     string   `yaml:"when"` // predict: the option is right when this holds on the run
}

type wrongSpec struct {
	Name     string `yaml:"name"`
	Answer   string `yaml:"answer"` // a formula (number, predict) or a settings object (scenario)
	Feedback string `yaml:"feedback"`
}

type hintSpec struct {
	After int    `yaml:"after"`
	Text  string `yaml:"text"`
}

// scenarioSpec is the base scenario of a predict or scenario exercise: a
// preset changed by field paths, whose values may name parameters.
type scenarioSpec struct {
	Preset string         `yaml:"preset"`
	Set    map[string]any `yaml:"set"`
}

type runSpec struct {
	Name    string         `yaml:"name"`
	Set     map[string]any `yaml:"set"`
	Goal    string         `yaml:"goal"`
	Explain string         `yaml:"explain"`
}

// RubricPoint is one thing a good open answer covers. Keywords let the
// checker point out which points an answer seems to mention; the learner or
// a teacher makes the judgement.
type RubricPoint struct {
	Point    string   `yaml:"point" json:"point"`
	Keywords []string `yaml:"keywords" json:"-"`
}

type letDef struct {
	name string
	f    *expr
}

type compiledWrong struct {
	wrongSpec
	f *expr // number and predict
}

type compiledOption struct {
	optionSpec
	when *expr
}

type compiledRun struct {
	runSpec
	goal *expr
}

var (
	idRE          = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
	nameRE        = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	placeholderRE = regexp.MustCompile(`\{([a-z_][a-z0-9_]*)\}`)
	optionKeyRE   = regexp.MustCompile(`^[a-z]$`)
)

// parseExercise reads and checks one exercise file. Every problem is
// reported with the line of the field at fault.
func parseExercise(file string, data []byte) (*Exercise, []error) {
	var spec exerciseFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil {
		return nil, yamlErrors(file, 0, err)
	}
	var doc yaml.Node
	_ = yaml.Unmarshal(data, &doc) // it decoded above, so it parses
	ex := &Exercise{ID: spec.ID, Kind: spec.Kind, Title: spec.Title, File: file, spec: spec}
	var errs []error
	bad := func(path []string, format string, args ...any) {
		errs = append(errs, &LoadError{File: file, Line: lineOf(&doc, path...), Msg: fmt.Sprintf(format, args...)})
	}
	if !idRE.MatchString(spec.ID) {
		bad([]string{"id"}, "id %q: use lower-case letters, digits and dashes (at most 64)", spec.ID)
	}
	if spec.Title == "" {
		bad([]string{"title"}, "title is required")
	}
	if strings.TrimSpace(spec.Prompt) == "" {
		bad([]string{"prompt"}, "prompt is required")
	}

	// Names a formula may use: parameters, then lets in order.
	names := map[string]bool{}
	for name, p := range spec.Params {
		if !nameRE.MatchString(name) {
			bad([]string{"params", name}, "parameter %q: use lower-case letters, digits and _", name)
		}
		names[name] = true
		switch {
		case len(p.Choices) > 0:
			if !slices.Contains(p.Choices, p.Default) {
				bad([]string{"params", name}, "parameter %q: its default %g is not one of its choices", name, p.Default)
			}
		case p.Max > p.Min:
			if p.Step <= 0 {
				bad([]string{"params", name}, "parameter %q: a range needs a positive step", name)
			}
			if p.Default < p.Min || p.Default > p.Max {
				bad([]string{"params", name}, "parameter %q: its default %g is outside %g..%g", name, p.Default, p.Min, p.Max)
			}
		case p.Min != 0 || p.Max != 0:
			bad([]string{"params", name}, "parameter %q: max must be above min", name)
		}
	}
	compile := func(path []string, src string) *expr {
		f, err := compileExpr(src)
		if err != nil {
			bad(path, "%v", err)
			return nil
		}
		return f
	}
	checkNames := func(path []string, f *expr, extra map[string]bool) {
		if f == nil {
			return
		}
		for _, v := range f.vars {
			if !names[v] && !extra[v] {
				bad(path, "formula %q uses %q, which is not a parameter here", f.src, v)
			}
		}
	}
	for i, l := range spec.Let {
		path := []string{"let", fmt.Sprint(i)}
		name, src, ok := strings.Cut(l, "=")
		name = strings.TrimSpace(name)
		if !ok || !nameRE.MatchString(name) {
			bad(path, "write a let as \"name = formula\", not %q", l)
			continue
		}
		f := compile(path, strings.TrimSpace(src))
		checkNames(path, f, nil)
		names[name] = true
		if f != nil {
			ex.lets = append(ex.lets, letDef{name, f})
		}
	}
	for i, c := range spec.Constraints {
		path := []string{"constraints", fmt.Sprint(i)}
		f := compile(path, c)
		checkNames(path, f, nil)
		if f != nil {
			ex.constraints = append(ex.constraints, f)
		}
	}
	for _, field := range []struct {
		key, text string
	}{{"prompt", spec.Prompt}, {"solution", spec.Solution}, {"success", spec.Success}} {
		for _, m := range placeholderRE.FindAllStringSubmatch(field.text, -1) {
			if !names[m[1]] {
				bad([]string{field.key}, "{%s} is not a parameter of this exercise", m[1])
			}
		}
	}
	if strings.TrimSpace(spec.Solution) == "" && spec.Kind != KindText {
		bad([]string{"solution"}, "a worked solution is required")
	}
	for i, h := range spec.Hints {
		if h.After < 1 || strings.TrimSpace(h.Text) == "" {
			bad([]string{"hints", fmt.Sprint(i)}, "a hint needs after (1 or more wrong tries) and text")
		}
	}
	metricNames := map[string]bool{}
	for _, m := range metricList {
		metricNames[m] = true
	}

	switch spec.Kind {
	case KindNumber:
		ex.compileNumber(bad, compile, checkNames, nil)
	case KindChoice:
		ex.compileOptions(bad, compile, nil)
		if len(spec.Correct) == 0 {
			bad([]string{"correct"}, "a choice exercise lists its correct option keys")
		}
		for _, k := range spec.Correct {
			if ex.option(k) == nil {
				bad([]string{"correct"}, "correct names %q, which is not an option key", k)
			}
		}
		if len(spec.Correct) > 1 && !spec.Multiple {
			bad([]string{"multiple"}, "several options are correct: set multiple: true")
		}
	case KindPredict:
		ex.compileScenarioBase(bad)
		if len(spec.Options) > 0 {
			ex.compileOptions(bad, compile, metricNames)
			for i, o := range ex.options {
				if o.When == "" {
					bad([]string{"options", fmt.Sprint(i)}, "option %q of a predict exercise needs when: a condition on the run", o.Key)
				}
			}
		} else {
			if spec.Measure == "" {
				bad([]string{"measure"}, "a predict exercise needs measure: what to read from the run (e.g. final_value)")
			} else if ex.measure = compile([]string{"measure"}, spec.Measure); ex.measure != nil {
				checkNames([]string{"measure"}, ex.measure, metricNames)
			}
			ex.compileNumber(bad, compile, checkNames, nil)
		}
	case KindScenario:
		ex.compileScenarioBase(bad)
		if len(spec.Allowed) == 0 {
			bad([]string{"allowed"}, "a scenario exercise lists the fields a learner may set")
		}
		ex.allowed = map[string]bool{}
		for _, a := range spec.Allowed {
			ex.allowed[a] = true
		}
		for k := range spec.Defaults {
			if !ex.allowed[k] {
				bad([]string{"defaults", k}, "default for %q, which is not in allowed", k)
			}
		}
		if len(spec.Runs) == 0 {
			bad([]string{"runs"}, "a scenario exercise needs at least one run with a goal")
		}
		seeds := max(1, len(spec.Seeds))
		if len(spec.Runs)*seeds > maxRuns {
			bad([]string{"runs"}, "%d runs x %d seeds is more than %d engine runs per answer", len(spec.Runs), seeds, maxRuns)
		}
		for i, r := range spec.Runs {
			path := []string{"runs", fmt.Sprint(i)}
			if r.Name == "" || r.Goal == "" || r.Explain == "" {
				bad(path, "a run needs name, goal and explain")
				continue
			}
			f := compile(append(path, "goal"), r.Goal)
			checkNames(append(path, "goal"), f, metricNames)
			if f != nil {
				ex.runs = append(ex.runs, compiledRun{r, f})
			}
		}
		if spec.SolutionAnswer == "" {
			bad([]string{"solution_answer"}, "a scenario exercise needs solution_answer: settings that pass")
		}
		for i, w := range spec.Wrong {
			if w.Answer == "" || w.Feedback == "" {
				bad([]string{"wrong", fmt.Sprint(i)}, "a wrong answer needs answer and feedback")
			}
			ex.wrong = append(ex.wrong, compiledWrong{wrongSpec: w})
		}
	case KindText:
		if strings.TrimSpace(spec.ModelAnswer) == "" {
			bad([]string{"model_answer"}, "a text exercise needs model_answer")
		}
		if len(spec.Rubric) == 0 {
			bad([]string{"rubric"}, "a text exercise needs a rubric")
		}
	default:
		bad([]string{"kind"}, "kind %q: use number, choice, predict, scenario or text", spec.Kind)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return ex, nil
}

type badFunc func(path []string, format string, args ...any)

func (ex *Exercise) compileNumber(bad badFunc, compile func([]string, string) *expr, checkNames func([]string, *expr, map[string]bool), extra map[string]bool) {
	spec := ex.spec
	switch spec.Unit {
	case "", UnitCount, UnitSeconds, UnitRupees, UnitPerSecond:
	default:
		bad([]string{"unit"}, "unit %q: use count, seconds, rupees or per_second", spec.Unit)
	}
	if spec.Answer == "" {
		bad([]string{"answer"}, "answer: the formula of the right answer is required")
	} else if ex.answer = compile([]string{"answer"}, spec.Answer); ex.answer != nil {
		checkNames([]string{"answer"}, ex.answer, extra)
	}
	if spec.Tolerance.Abs < 0 || spec.Tolerance.Rel < 0 || spec.Tolerance.Rel >= 1 {
		bad([]string{"tolerance"}, "tolerance: abs must be 0 or more and rel between 0 and 1")
	}
	for i, w := range spec.Wrong {
		path := []string{"wrong", fmt.Sprint(i)}
		if w.Answer == "" || w.Feedback == "" {
			bad(path, "a wrong answer needs answer (a formula) and feedback")
			continue
		}
		f := compile(append(path, "answer"), w.Answer)
		checkNames(append(path, "answer"), f, extra)
		if f != nil {
			ex.wrong = append(ex.wrong, compiledWrong{w, f})
		}
	}
}

func (ex *Exercise) compileOptions(bad badFunc, compile func([]string, string) *expr, metrics map[string]bool) {
	seen := map[string]bool{}
	if len(ex.spec.Options) < 2 {
		bad([]string{"options"}, "a choice needs at least two options")
	}
	for i, o := range ex.spec.Options {
		path := []string{"options", fmt.Sprint(i)}
		if !optionKeyRE.MatchString(o.Key) || seen[o.Key] {
			bad(path, "option key %q: use a single letter, once each", o.Key)
		}
		seen[o.Key] = true
		if o.Text == "" {
			bad(path, "option %q needs text", o.Key)
		}
		co := compiledOption{optionSpec: o}
		if o.When != "" {
			co.when = compile(append(path, "when"), o.When)
			if co.when != nil {
				for _, v := range co.when.vars {
					if _, isParam := ex.spec.Params[v]; !metrics[v] && !isParam {
						bad(append(path, "when"), "formula %q uses %q, which is not a run measure", o.When, v)
					}
				}
			}
		}
		ex.options = append(ex.options, co)
	}
}

func (ex *Exercise) compileScenarioBase(bad badFunc) {
	if ex.spec.Scenario == nil || ex.spec.Scenario.Preset == "" {
		bad([]string{"scenario"}, "this kind runs the engine: give scenario.preset (and scenario.set)")
	}
}

// option returns the option with key k, or nil.
func (ex *Exercise) option(k string) *compiledOption {
	for i := range ex.options {
		if ex.options[i].Key == k {
			return &ex.options[i]
		}
	}
	return nil
}

// sortedKeys returns a map's keys in order, so that settings are applied
// the same way every time.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
