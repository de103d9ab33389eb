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
	answer      *formula
	measure     *formula
	lets        []letDef
	constraints []*formula
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
	BareUnit       string               `yaml:"bare_unit"`
	Ratio          bool                 `yaml:"ratio"`
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
	Fields         map[string]fieldSpec `yaml:"fields"`
	Runs           []runSpec            `yaml:"runs"`
	Seeds          []int64              `yaml:"seeds"`
	SolutionAnswer string               `yaml:"solution_answer"`
	ModelAnswer    string               `yaml:"model_answer"`
	Rubric         []RubricPoint        `yaml:"rubric"`
	// Reveals are phrases that would state a prediction's outcome; the
	// self-check makes sure none is shown before the prediction.
	Reveals []string `yaml:"reveals"`
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
	// Name identifies the mistake on every variant, for a class's list of
	// mistakes; Label says it in a few words for a teacher.
	Name     string `yaml:"name"`
	Label    string `yaml:"label"`
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

// RubricPoint is one thing a good open answer covers. Nothing matches it
// against an answer: the learner compares, and a teacher scores.
type RubricPoint struct {
	Point string `yaml:"point" json:"point"`
}

type letDef struct {
	name string
	f    *formula
}

type compiledWrong struct {
	wrongSpec
	f *formula // number and predict
}

type compiledOption struct {
	optionSpec
	when *formula
}

type compiledRun struct {
	runSpec
	goal *formula
}

var (
	idRE          = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
	nameRE        = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	placeholderRE = regexp.MustCompile(`\{([a-z_][a-z0-9_]*)\}`)
	optionKeyRE   = regexp.MustCompile(`^[a-z]$`)
)

// loader checks and compiles one exercise file. Every problem is kept,
// with the line of the field at fault, so a teacher sees them all at once.
type loader struct {
	ex   *Exercise
	file string
	doc  yaml.Node
	errs []error
	// names are what a formula over parameters may read: the parameters,
	// then the lets in order.
	names []string
}

// bad records a problem at the line of a field path ("runs", "1", "goal").
func (l *loader) bad(path []string, format string, args ...any) {
	l.errs = append(l.errs, &LoadError{File: l.file, Line: lineOf(&l.doc, path...), Msg: fmt.Sprintf(format, args...)})
}

// value compiles a formula giving a number over names; nil after a
// reported problem.
func (l *loader) value(path []string, src string, names []string) *formula {
	f, err := compileValue(src, names)
	if err != nil {
		l.bad(path, "%v", err)
		return nil
	}
	return f
}

// cond compiles a condition over names; nil after a reported problem.
func (l *loader) cond(path []string, src string, names []string) *formula {
	f, err := compileCond(src, names)
	if err != nil {
		l.bad(path, "%v", err)
		return nil
	}
	return f
}

// runNames are what a condition or measure over a run may read: the run's
// measures and the exercise's parameters.
func (l *loader) runNames() []string {
	return append(slices.Clone(metricList), l.names...)
}

// kindLoaders check and compile the fields of each kind. Each lives beside
// the checker of its kind, in check_<kind>.go.
var kindLoaders = map[string]func(*loader){
	KindNumber:   (*loader).number,
	KindChoice:   (*loader).choice,
	KindPredict:  (*loader).predict,
	KindScenario: (*loader).scenario,
	KindText:     (*loader).text,
}

// parseExercise reads and checks one exercise file: the fields every kind
// shares here, the rest in the kind's loader.
func parseExercise(file string, data []byte) (*Exercise, []error) {
	var spec exerciseFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil {
		return nil, yamlErrors(file, 0, err)
	}
	l := &loader{file: file, ex: &Exercise{ID: spec.ID, Kind: spec.Kind, Title: spec.Title, File: file, spec: spec}}
	_ = yaml.Unmarshal(data, &l.doc) // it decoded above, so it parses
	if !idRE.MatchString(spec.ID) {
		l.bad([]string{"id"}, "id %q: use lower-case letters, digits and dashes (at most 64)", spec.ID)
	}
	if spec.Title == "" {
		l.bad([]string{"title"}, "title is required")
	}
	if strings.TrimSpace(spec.Prompt) == "" {
		l.bad([]string{"prompt"}, "prompt is required")
	}
	l.params()
	for _, field := range []struct {
		key, text string
	}{{"prompt", spec.Prompt}, {"solution", spec.Solution}, {"success", spec.Success}} {
		for _, m := range placeholderRE.FindAllStringSubmatch(field.text, -1) {
			if !slices.Contains(l.names, m[1]) {
				l.bad([]string{field.key}, "{%s} is not a parameter of this exercise", m[1])
			}
		}
	}
	if strings.TrimSpace(spec.Solution) == "" && spec.Kind != KindText {
		l.bad([]string{"solution"}, "a worked solution is required")
	}
	for i, h := range spec.Hints {
		if h.After < 1 || strings.TrimSpace(h.Text) == "" {
			l.bad([]string{"hints", fmt.Sprint(i)}, "a hint needs after (1 or more wrong tries) and text")
		}
	}
	if len(spec.Reveals) > 0 && spec.Kind != KindPredict {
		l.bad([]string{"reveals"}, "reveals belongs to a predict exercise: the phrases that would give its outcome away")
	}
	if load, ok := kindLoaders[spec.Kind]; ok {
		load(l)
	} else {
		l.bad([]string{"kind"}, "kind %q: use number, choice, predict, scenario or text", spec.Kind)
	}
	if len(l.errs) > 0 {
		return nil, l.errs
	}
	return l.ex, nil
}

// params checks the parameters, then compiles the lets and constraints
// over them.
func (l *loader) params() {
	spec := l.ex.spec
	for _, name := range sortedKeys(spec.Params) {
		p := spec.Params[name]
		if !nameRE.MatchString(name) {
			l.bad([]string{"params", name}, "parameter %q: use lower-case letters, digits and _", name)
		}
		l.names = append(l.names, name)
		switch {
		case len(p.Choices) > 0:
			if !slices.Contains(p.Choices, p.Default) {
				l.bad([]string{"params", name}, "parameter %q: its default %g is not one of its choices", name, p.Default)
			}
		case p.Max > p.Min:
			if p.Step <= 0 {
				l.bad([]string{"params", name}, "parameter %q: a range needs a positive step", name)
			}
			if p.Default < p.Min || p.Default > p.Max {
				l.bad([]string{"params", name}, "parameter %q: its default %g is outside %g..%g", name, p.Default, p.Min, p.Max)
			}
		case p.Min != 0 || p.Max != 0:
			l.bad([]string{"params", name}, "parameter %q: max must be above min", name)
		}
	}
	for i, def := range spec.Let {
		path := []string{"let", fmt.Sprint(i)}
		name, src, ok := strings.Cut(def, "=")
		name = strings.TrimSpace(name)
		if !ok || !nameRE.MatchString(name) {
			l.bad(path, "write a let as \"name = formula\", not %q", def)
			continue
		}
		if f := l.value(path, strings.TrimSpace(src), l.names); f != nil {
			l.ex.lets = append(l.ex.lets, letDef{name, f})
		}
		l.names = append(l.names, name)
	}
	for i, c := range spec.Constraints {
		if f := l.cond([]string{"constraints", fmt.Sprint(i)}, c, l.names); f != nil {
			l.ex.constraints = append(l.ex.constraints, f)
		}
	}
}

// wrongNames checks that every named mistake has a name of its own.
func (l *loader) wrongNames() {
	seen := map[string]bool{}
	for i, w := range l.ex.spec.Wrong {
		if !idRE.MatchString(w.Name) || seen[w.Name] || reservedMistake(w.Name) {
			l.bad([]string{"wrong", fmt.Sprint(i), "name"}, "a wrong answer needs a name of its own (lower-case letters, digits and dashes; not %s, option-..., missed-... or run-...), not %q", MistakePercent, w.Name)
		}
		seen[w.Name] = true
	}
}

// wrongFormulas compiles the named mistakes of a numeric answer.
func (l *loader) wrongFormulas() {
	l.wrongNames()
	for i, w := range l.ex.spec.Wrong {
		path := []string{"wrong", fmt.Sprint(i)}
		if w.Answer == "" || w.Feedback == "" {
			l.bad(path, "a wrong answer needs answer (a formula) and feedback")
			continue
		}
		if f := l.value(append(path, "answer"), w.Answer, l.names); f != nil {
			l.ex.wrong = append(l.ex.wrong, compiledWrong{w, f})
		}
	}
}

// options checks a choice's options; conditions on a run (predict) are
// compiled over runNames.
func (l *loader) options(withWhen bool) {
	seen := map[string]bool{}
	if len(l.ex.spec.Options) < 2 {
		l.bad([]string{"options"}, "a choice needs at least two options")
	}
	for i, o := range l.ex.spec.Options {
		path := []string{"options", fmt.Sprint(i)}
		if !optionKeyRE.MatchString(o.Key) || seen[o.Key] {
			l.bad(path, "option key %q: use a single letter, once each", o.Key)
		}
		seen[o.Key] = true
		if o.Text == "" {
			l.bad(path, "option %q needs text", o.Key)
		}
		for _, al := range o.Aliases {
			if optionKeyRE.MatchString(strings.ToLower(al)) {
				// Letters are given after shuffling: "a" is whichever
				// option a variant shows first.
				l.bad(path, "option %q: the alias %q is a single letter, which names an option by its place", o.Key, al)
			}
		}
		co := compiledOption{optionSpec: o}
		switch {
		case withWhen && o.When == "":
			l.bad(path, "option %q of a predict exercise needs when: a condition on the run", o.Key)
		case withWhen:
			co.when = l.cond(append(path, "when"), o.When, l.runNames())
		case o.When != "":
			l.bad(append(path, "when"), "when belongs to the options of a predict exercise")
		}
		l.ex.options = append(l.ex.options, co)
	}
}

// scenarioBase checks that a kind that runs the engine names its preset.
func (l *loader) scenarioBase() {
	if l.ex.spec.Scenario == nil || l.ex.spec.Scenario.Preset == "" {
		l.bad([]string{"scenario"}, "this kind runs the engine: give scenario.preset (and scenario.set)")
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
