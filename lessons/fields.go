package lessons

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/leaselab/playground/engine"
)

// Field is one setting a scenario answer may change, as a form shows it:
// what it is called, what kind of value it takes, and the range the
// checker accepts. A value outside the range is a format error naming the
// field and the range, and costs no try.
type Field struct {
	Path  string `json:"path"`
	Label string `json:"label"`
	// Unit is the kind of value: "duration" (Go style: 10s, 400ms,
	// 1m30s), "on/off", "nodes", "choice" or "text".
	Unit    string   `json:"unit"`
	Min     string   `json:"min,omitempty"`
	Max     string   `json:"max,omitempty"`
	Choices []string `json:"choices,omitempty"`
	// Default is the value the form starts with, "" for none.
	Default string `json:"default"`
	// Empty says what leaving the field empty means, if it may be empty
	// ("never renews").
	Empty string `json:"empty,omitempty"`
	// Range says the allowed values in words: "1 s to 30 s".
	Range string `json:"range"`
}

// fieldSpec is the YAML form of a field's settings in an exercise file;
// anything left out comes from the defaults for its path.
type fieldSpec struct {
	Label   string   `yaml:"label"`
	Min     string   `yaml:"min"`
	Max     string   `yaml:"max"`
	Choices []string `yaml:"choices"`
	Empty   string   `yaml:"empty"`
}

// maxKeyLen bounds a text field (an idempotency key).
const maxKeyLen = 64

var (
	clientFieldRE = regexp.MustCompile(`^clients\[([^\]]+)\]\.(renew_every|retry_every|start)$`)
	stepFieldRE   = regexp.MustCompile(`^clients\[([^\]]+)\]\.steps\[(\d+)\]\.(idempotency_key|for)$`)
	faultFieldRE  = regexp.MustCompile(`^faults\[(\d+)\]\.(for|at|by)$`)
)

// defaultField is what a path is called and takes when an exercise file
// says nothing more about it.
func defaultField(path string) Field {
	dur := func(label, min, max string) Field {
		return Field{Path: path, Label: label, Unit: "duration", Min: min, Max: max}
	}
	switch path {
	case "fencing":
		return Field{Path: path, Label: "Fencing tokens", Unit: "on/off", Choices: []string{"true", "false"}}
	case "lock.lease":
		return dur("Lease", "1s", "10m")
	case "lock.backend":
		return Field{Path: path, Label: "Lock service", Unit: "choice", Choices: tokenBackends()}
	case "lock.nodes":
		raft, _ := engine.LookupBackend(engine.BackendRaft)
		return Field{Path: path, Label: "Raft nodes", Unit: "nodes", Choices: itoas(raft.Nodes)}
	}
	if f, ok := optionField(path); ok {
		return f
	}
	if m := clientFieldRE.FindStringSubmatch(path); m != nil {
		switch m[2] {
		case "renew_every":
			f := dur(m[1]+" renews every", "100ms", "10m")
			f.Empty = "never renews"
			return f
		case "retry_every":
			return dur(m[1]+" asks again every", "100ms", "1m")
		}
		return dur(m[1]+" starts at", "0s", "10m")
	}
	if m := stepFieldRE.FindStringSubmatch(path); m != nil {
		if m[3] == "idempotency_key" {
			return Field{Path: path, Label: m[1] + "'s send: idempotency key", Unit: "text", Max: fmt.Sprint(maxKeyLen), Empty: "no key"}
		}
		return dur(m[1]+", step "+m[2]+": lasts", "0s", "10m")
	}
	if m := faultFieldRE.FindStringSubmatch(path); m != nil {
		what := map[string]string{"for": "lasts", "at": "strikes at", "by": "holds the message for"}[m[2]]
		return dur("Fault "+m[1]+": "+what, "0s", "10m")
	}
	return Field{Path: path, Label: path, Unit: "text", Max: fmt.Sprint(maxKeyLen)}
}

// tokenBackends lists the registered backends that hand out fencing
// tokens: the lock services a scenario answer may choose between (one
// without a token cannot run a fenced scenario).
func tokenBackends() []string {
	var out []string
	for _, name := range engine.Backends() {
		if b, _ := engine.LookupBackend(name); b.Tokens {
			out = append(out, name)
		}
	}
	return out
}

// optionField is the field of a lock option some backends take
// (lock.replication_lag), with the bounds its registry entry declares.
// An exercise file usually narrows them.
func optionField(path string) (Field, bool) {
	name, ok := strings.CutPrefix(path, "lock.")
	if !ok {
		return Field{}, false
	}
	for _, backend := range engine.Backends() {
		b, _ := engine.LookupBackend(backend)
		for _, o := range b.Options {
			if o.Name == name {
				return Field{Path: path, Label: o.Label, Unit: "duration", Min: shortDuration(o.Min), Max: shortDuration(o.Max), Empty: o.Unset}, true
			}
		}
	}
	return Field{}, false
}

// shortDuration writes milliseconds as a Go duration without zero units
// ("1h", not "1h0m0s"; "10s" stays).
func shortDuration(ms int64) string {
	s := engine.FormatMS(ms)
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
	}
	if t, ok := strings.CutSuffix(s, "h0m"); ok {
		s = t + "h"
	}
	return s
}

func itoas(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = fmt.Sprint(n)
	}
	return out
}

// loadFields checks the fields section of a scenario exercise.
func (l *loader) loadFields() {
	spec := l.ex.spec
	for _, path := range sortedKeys(spec.Fields) {
		fs := spec.Fields[path]
		at := []string{"fields", path}
		if !l.ex.allowed[path] {
			l.bad(at, "field %q is not in allowed", path)
			continue
		}
		f := mergeField(defaultField(path), fs)
		if f.Unit == "duration" {
			lo, err1 := time.ParseDuration(f.Min)
			hi, err2 := time.ParseDuration(f.Max)
			if err1 != nil || err2 != nil || hi < lo {
				l.bad(at, "field %q: min and max must be durations (like 1s, 90s), with max at least min", path)
			}
		}
		if len(fs.Choices) > 0 && f.Unit != "choice" && f.Unit != "nodes" {
			l.bad(at, "field %q takes a %s; choices are for the lock service or the number of nodes", path, f.Unit)
		}
	}
}

// mergeField lays an exercise file's settings over a default field.
func mergeField(f Field, fs fieldSpec) Field {
	if fs.Label != "" {
		f.Label = fs.Label
	}
	if fs.Min != "" {
		f.Min = fs.Min
	}
	if fs.Max != "" {
		f.Max = fs.Max
	}
	if len(fs.Choices) > 0 {
		f.Choices = fs.Choices
	}
	if fs.Empty != "" {
		f.Empty = fs.Empty
	}
	return f
}

// fields lists a scenario exercise's fields for a variant, in the order
// of allowed, with the variant's starting values.
func (ex *Exercise) fields(env map[string]float64) ([]Field, error) {
	base, err := ex.baseScenario(env)
	if err != nil {
		return nil, err
	}
	out := make([]Field, 0, len(ex.spec.Allowed))
	for _, path := range ex.spec.Allowed {
		f := mergeField(defaultField(path), ex.spec.Fields[path])
		// A field starts at what the scenario runs, unless the file says
		// how to write it.
		f.Default = fieldValue(base, path)
		if v, ok := ex.spec.Defaults[path]; ok {
			s, err := fillValue(v, env)
			if err != nil {
				return nil, err
			}
			f.Default = strings.Trim(s, `"`)
		}
		f.Range = rangeWords(f)
		out = append(out, f)
	}
	return out, nil
}

// rangeWords says what a field takes: "1 s to 30 s", "raft, single or
// async-replica".
func rangeWords(f Field) string {
	var s string
	switch {
	case f.Unit == "on/off":
		s = "on or off"
	case len(f.Choices) > 0:
		s = orList(f.Choices)
	case f.Unit == "duration":
		s = fmt.Sprintf("from %s to %s (a bare number is seconds)", f.Min, f.Max)
	case f.Unit == "text":
		s = "at most " + f.Max + " letters, digits, dashes or dots"
	}
	if f.Empty != "" {
		s += "; empty: " + f.Empty
	}
	return s
}

// orList writes "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// checkField tests one learner value against its field: a format error
// naming the field and the range when it is outside it.
func checkField(f Field, v string) error {
	bad := func() error {
		return formatErrorf("%s (%s) takes %s, not %q.", f.Path, f.Label, f.Range, clip(v))
	}
	switch {
	case f.Unit == "on/off":
		if v != "true" && v != "false" {
			return bad()
		}
	case len(f.Choices) > 0:
		if !slices.Contains(f.Choices, strings.Trim(v, `"`)) {
			return bad()
		}
	case f.Unit == "duration":
		d, err := time.ParseDuration(strings.Trim(v, `"`))
		lo, _ := time.ParseDuration(f.Min)
		hi, _ := time.ParseDuration(f.Max)
		if err != nil || d < lo || d > hi {
			return bad()
		}
	case f.Unit == "text":
		v = strings.Trim(v, `"`)
		if len(v) > maxKeyLen || strings.IndexFunc(v, func(r rune) bool {
			return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.' || r == '_' || r == ':')
		}) >= 0 {
			return bad()
		}
	}
	return nil
}
