package lessons

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
)

// InputError is a request the checker cannot take as it is (an answer too
// long, a variant out of range): the caller's mistake, worth a 400 or exit
// status 2, not an internal error.
type InputError struct {
	// Field names the request field at fault ("answer", "variant",
	// "tries"), or "body" for the request as a whole.
	Field string
	// Msg says what is wrong with the field, in words that can be shown as
	// they are ("must be a whole number").
	Msg string
	// TooLarge is set when the request is over a size limit: worth a 413
	// rather than a 400.
	TooLarge bool
}

// Error returns the message prefixed with the field it names, the form every
// API error takes: "variant: must be a whole number".
func (e *InputError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// params draws the exercise's parameters for a variant. Variant 0 is the
// notes' own numbers; any other variant is drawn from a source seeded by the
// variant and the exercise id, so neighbours get different numbers and the
// same learner always gets the same ones. Draws that break a constraint are
// thrown away and drawn again.
func (ex *Exercise) params(variant int) (map[string]float64, error) {
	if variant < 0 || variant > MaxVariant {
		return nil, &InputError{Field: "variant", Msg: fmt.Sprintf("must be between 0 and %d, not %d", MaxVariant, variant)}
	}
	names := sortedKeys(ex.spec.Params)
	h := fnv.New64a()
	h.Write([]byte(ex.ID))
	rng := rand.New(rand.NewPCG(uint64(variant), h.Sum64()))
	for attempt := 0; attempt < drawAttempts; attempt++ {
		env := map[string]float64{}
		for _, name := range names {
			p := ex.spec.Params[name]
			switch {
			case variant == 0:
				env[name] = p.Default
			case len(p.Choices) > 0:
				env[name] = p.Choices[rng.IntN(len(p.Choices))]
			case p.Max > p.Min:
				steps := int(math.Floor((p.Max-p.Min)/p.Step + 1e-9))
				env[name] = p.Min + float64(rng.IntN(steps+1))*p.Step
			default:
				env[name] = p.Default
			}
		}
		ok, err := ex.complete(env)
		if err != nil {
			return nil, err
		}
		if ok {
			return env, nil
		}
		if variant == 0 {
			return nil, fmt.Errorf("%s: the default parameters break a constraint", ex.ID)
		}
	}
	return nil, fmt.Errorf("%s: no parameters satisfying the constraints were found for variant %d", ex.ID, variant)
}

// complete computes the lets and tests the constraints.
func (ex *Exercise) complete(env map[string]float64) (bool, error) {
	for _, l := range ex.lets {
		v, err := l.f.value(env)
		if err != nil {
			return false, fmt.Errorf("%s: let %s: %w", ex.ID, l.name, err)
		}
		env[l.name] = v
	}
	for _, c := range ex.constraints {
		ok, err := c.truth(env)
		if err != nil || !ok {
			return false, nil
		}
	}
	return true, nil
}

// fill replaces {name} placeholders with the parameter values, written the
// way the lessons write numbers (5,000).
func fill(text string, env map[string]float64) string {
	return placeholderRE.ReplaceAllStringFunc(text, func(m string) string {
		v, ok := env[m[1:len(m)-1]]
		if !ok {
			return m
		}
		return formatNumber(v)
	})
}

// fillValue fills placeholders in a scenario setting. Numbers are written
// plainly (40000, not 40,000) because the engine reads them; a value that
// is not a string is written as JSON.
func fillValue(v any, env map[string]float64) (string, error) {
	s, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		return string(b), err
	}
	return placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		x, ok := env[m[1:len(m)-1]]
		if !ok {
			return m
		}
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", x), "0"), ".")
	}), nil
}

// Prompt is an exercise as one learner sees it.
type Prompt struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	Title    string   `json:"title"`
	Lesson   string   `json:"lesson"`
	Variant  int      `json:"variant"`
	Text     string   `json:"text"` // Markdown, parameters filled in
	HTML     string   `json:"html"`
	Unit     string   `json:"unit,omitempty"`
	Options  []Option `json:"options,omitempty"`
	Multiple bool     `json:"multiple,omitempty"`
	// Allowed and Defaults describe a scenario exercise's form: the fields
	// a learner may set and their starting values.
	Allowed  []string          `json:"allowed,omitempty"`
	Defaults map[string]string `json:"defaults,omitempty"`
	Preset   string            `json:"preset,omitempty"`
}

// Option is one choice as shown to a learner.
type Option struct {
	Key  string `json:"key"`
	Text string `json:"text"`
}

// Prompt renders the exercise for a variant.
func (ex *Exercise) Prompt(variant int) (Prompt, error) {
	env, err := ex.params(variant)
	if err != nil {
		return Prompt{}, err
	}
	text := fill(ex.spec.Prompt, env)
	html, err := renderMarkdown(text)
	if err != nil {
		return Prompt{}, err
	}
	p := Prompt{ID: ex.ID, Kind: ex.Kind, Title: ex.Title, Lesson: ex.Lesson, Variant: variant,
		Text: text, HTML: html, Unit: ex.spec.Unit, Multiple: ex.spec.Multiple, Allowed: ex.spec.Allowed}
	if ex.Kind == KindNumber || (ex.Kind == KindPredict && len(ex.options) == 0) {
		if p.Unit == "" {
			p.Unit = UnitCount
		}
	}
	for _, o := range ex.options {
		p.Options = append(p.Options, Option{o.Key, fill(o.Text, env)})
	}
	if ex.spec.Scenario != nil {
		p.Preset = ex.spec.Scenario.Preset
	}
	if len(ex.spec.Defaults) > 0 {
		p.Defaults = map[string]string{}
		for k, v := range ex.spec.Defaults {
			s, err := fillValue(v, env)
			if err != nil {
				return Prompt{}, err
			}
			p.Defaults[k] = s
		}
	}
	return p, nil
}

// Solution returns the worked solution for a variant, as Markdown and HTML.
// It is meant to be shown after a correct answer or when the learner asks.
func (ex *Exercise) Solution(variant int) (markdown, html string, err error) {
	env, err := ex.params(variant)
	if err != nil {
		return "", "", err
	}
	text := fill(ex.spec.Solution, env)
	if ex.Kind == KindText {
		text = ex.spec.ModelAnswer
	}
	html, err = renderMarkdown(text)
	return text, html, err
}

// HintsAfter returns the hints unlocked after that many wrong tries.
func (ex *Exercise) HintsAfter(tries int, variant int) []string {
	env, err := ex.params(variant)
	if err != nil {
		return nil
	}
	var out []string
	for _, h := range ex.spec.Hints {
		if tries >= h.After {
			out = append(out, fill(h.Text, env))
		}
	}
	return out
}
