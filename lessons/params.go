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
	if !IsClassVariant(variant) {
		if err := CheckPracticeVariant(variant); err != nil {
			return nil, err
		}
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

// defaults is the notes' own numbers (variant 0), for labels that name a
// mistake the same way for every variant.
func (ex *Exercise) defaults() map[string]float64 {
	env, err := ex.params(0)
	if err != nil {
		return nil
	}
	return env
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

// solutionText is the worked solution for a variant's numbers, as
// Markdown and HTML; for an open question, its model answer.
func (ex *Exercise) solutionText(env map[string]float64, variant int) (markdown, html string, err error) {
	text := ex.fillOptions(fill(ex.spec.Solution, env), variant)
	if ex.Kind == KindText {
		text = ex.spec.ModelAnswer
	}
	html, err = renderMarkdown(text)
	return text, html, err
}

// Solution returns the worked solution for a variant, as Markdown and HTML.
// It is for a learner who has earned it (Standing.Earned) or for the
// command line's --solution; a page never carries it before then.
func (ex *Exercise) Solution(variant int) (markdown, html string, err error) {
	env, err := ex.params(variant)
	if err != nil {
		return "", "", err
	}
	return ex.solutionText(env, variant)
}

// HintsAfter returns the hints unlocked after that many wrong tries.
func (ex *Exercise) HintsAfter(tries int, variant int) []string {
	env, err := ex.params(variant)
	if err != nil {
		return nil
	}
	out := []string{}
	for _, h := range ex.spec.Hints {
		if tries >= h.After {
			out = append(out, ex.fillOptions(fill(h.Text, env), variant))
		}
	}
	return out
}
