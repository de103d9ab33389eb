package lessons

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// choice loads a choice exercise: its options and which are correct.
func (l *loader) choice() {
	spec := l.ex.spec
	l.options(false)
	if len(spec.Correct) == 0 {
		l.bad([]string{"correct"}, "a choice exercise lists its correct option keys")
	}
	for _, k := range spec.Correct {
		if l.ex.option(k) == nil {
			l.bad([]string{"correct"}, "correct names %q, which is not an option key", k)
		}
	}
	if len(spec.Correct) > 1 && !spec.Multiple {
		l.bad([]string{"multiple"}, "several options are correct: set multiple: true")
	}
}

var choiceSepRE = regexp.MustCompile(`\s*(?:,|;|\band\b|&|\+|/)\s*|\s+`)

// parseChoice reads an answer to a choice as the file keys of the
// options it names: this variant's letters ("b", "a, c", "A and C",
// "acd"), served ids (PublicOptionID, as a form sends them) or an
// option's aliases ("refused", "0 rows"), and, when fileKeys is set,
// stable ids ("option-b", as answers kept from before served ids hold
// them). Letters are the ones shown on this variant, not the options'
// own keys.
func (ex *Exercise) parseChoice(answer string, lt lettering, fileKeys bool) ([]string, error) {
	s := strings.ToLower(strings.TrimSpace(answer))
	s = strings.TrimRight(s, ".!")
	if s == "" {
		return nil, formatErrorf("Pick an option first.")
	}
	// A whole alias first: "0 rows" must not be read as two words; then
	// an alias in a phrase ("0 rows affected.", "a fencing token").
	if k := ex.aliasKey(s); k != "" {
		return []string{k}, nil
	}
	if k := ex.phraseKey(s); k != "" {
		return []string{k}, nil
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
			if tok == "" || tok == "option" || tok == "options" {
				continue // "option b"
			}
			if k, ok := strings.CutPrefix(tok, OptionIDPrefix); ok && fileKeys && ex.option(k) != nil {
				keys = append(keys, k)
				continue
			}
			if k := ex.keyOfPublicID(tok); k != "" {
				keys = append(keys, k)
				continue
			}
			if k, ok := lt.toKey[tok]; ok {
				keys = append(keys, k)
				continue
			}
			if ex.spec.Multiple && allLetters(tok, lt) {
				// "abd": letters typed together.
				for _, r := range tok {
					keys = append(keys, lt.toKey[string(r)])
				}
				continue
			}
			return nil, formatErrorf("%q is not one of the options: answer with their letters, like %q.", clip(tok), ex.exampleKeys())
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

// allLetters reports whether every letter of s is one this variant shows.
func allLetters(s string, lt lettering) bool {
	for _, r := range s {
		if _, ok := lt.toKey[string(r)]; !ok {
			return false
		}
	}
	return s != ""
}

// fillerWords are words around an option's plain word that change
// nothing about which option is meant: "0 rows affected", "it is
// refused", "a fencing token", "option b".
var fillerWords = map[string]bool{"a": true, "an": true, "the": true, "it": true, "it's": true, "its": true,
	"is": true, "was": true, "are": true, "be": true, "gets": true, "get": true, "got": true,
	"affected": true, "changed": true, "updated": true, "matched": true, "token": true, "tokens": true,
	"answer": true, "i": true, "think": true}

var phrasePunctRE = regexp.MustCompile(`[.!?;:()"]+(\s|$)`)

// plainWords is a phrase without its filler words and punctuation.
func plainWords(s string) string {
	s = phrasePunctRE.ReplaceAllString(strings.ToLower(s)+" ", " ")
	var out []string
	for _, w := range strings.Fields(s) {
		if !fillerWords[w] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// phraseKey reads an answer that is one option's alias once filler words
// and full stops are taken away; "" when it names no option, or several.
// Letters are left to the caller: "a" is a filler word and a letter.
func (ex *Exercise) phraseKey(s string) string {
	p := plainWords(s)
	if p == "" {
		return ""
	}
	found := ""
	for _, o := range ex.options {
		for _, al := range o.Aliases {
			if plainWords(al) == p {
				if found != "" && found != o.Key {
					return ""
				}
				found = o.Key
			}
		}
	}
	return found
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

// checkChoice grades chosen options against the right ones (the
// exercise's, or the options that held on a real run). Feedback names
// options by the letters this variant shows; a wrong choice is named by
// the option's stable id, the same on every variant however the options
// are shuffled, and the answer is read as stable ids.
func (ex *Exercise) checkChoice(r *Result, answer string, env map[string]float64, correct []string, variant int, fileKeys bool) error {
	lt := ex.lettering(variant)
	keys, err := ex.parseChoice(answer, lt, fileKeys)
	if err != nil {
		return formatProblem(r, err)
	}
	if correct == nil {
		correct = append([]string(nil), ex.spec.Correct...)
	}
	sort.Strings(correct)
	r.Read = ids(keys)
	if strings.Join(keys, ",") == strings.Join(correct, ",") {
		r.Correct = true
		r.Feedback = "Right."
		if len(correct) == 1 {
			if o := ex.option(correct[0]); o.Feedback != "" {
				r.Feedback += " " + ex.fillOptions(fill(o.Feedback, env), variant)
			}
		}
		if ex.spec.Success != "" {
			r.Feedback += " " + ex.fillOptions(fill(ex.spec.Success, env), variant)
		}
		return nil
	}
	var notes, wrongKeys, missed []string
	for _, k := range keys {
		if !contains(correct, k) {
			wrongKeys = append(wrongKeys, k)
			if o := ex.option(k); o.Feedback != "" {
				notes = append(notes, fmt.Sprintf("(%s) %s", lt.toLetter[k], ex.fillOptions(fill(o.Feedback, env), variant)))
			} else {
				notes = append(notes, fmt.Sprintf("(%s) is not right.", lt.toLetter[k]))
			}
		}
	}
	for _, k := range correct {
		if !contains(keys, k) {
			missed = append(missed, k)
		}
	}
	if ex.spec.Multiple && len(missed) > 0 {
		notes = append(notes, fmt.Sprintf("You have %d of the %d right options.", len(correct)-len(missed), len(correct)))
	}
	switch {
	case len(wrongKeys) == 1:
		r.Mistake = optionID(wrongKeys[0])
	case len(wrongKeys) == 0 && len(missed) > 0:
		r.Mistake = "missed-" + strings.Join(missed, "-")
	}
	r.Feedback = "Not quite. " + strings.Join(notes, " ")
	return nil
}

// joinKeys writes option keys in order: "a, c".
func joinKeys(keys []string) string {
	k := slices.Clone(keys)
	sort.Strings(k)
	return strings.Join(k, ", ")
}

// reservedMistake reports a name the checker gives mistakes itself, which
// an exercise file may not use for one of its own.
func reservedMistake(name string) bool {
	return name == MistakePercent || strings.HasPrefix(name, "option-") || strings.HasPrefix(name, "missed-") || strings.HasPrefix(name, "run-")
}

// MistakeLabel says in a few words what a mistake of this exercise is,
// for a teacher's list: the label of a named wrong answer, the option a
// wrong choice picked, the run a scenario answer failed.
func (ex *Exercise) MistakeLabel(id string) string {
	for _, w := range ex.spec.Wrong {
		if w.Name == id {
			if w.Label != "" {
				return w.Label
			}
			return strings.ReplaceAll(id, "-", " ")
		}
	}
	switch {
	case id == MistakePercent:
		return "gave a percentage where a count is asked"
	case strings.HasPrefix(id, OptionIDPrefix):
		// Letters differ between variants: the option is named by its text.
		if o := ex.option(strings.TrimPrefix(id, OptionIDPrefix)); o != nil {
			return "chose: " + clip(fill(o.Text, ex.defaults()))
		}
	case strings.HasPrefix(id, "missed-"):
		var texts []string
		for _, k := range strings.Split(strings.TrimPrefix(id, "missed-"), "-") {
			if o := ex.option(k); o != nil {
				texts = append(texts, clip(fill(o.Text, ex.defaults())))
			}
		}
		return "left out: " + strings.Join(texts, "; ")
	case strings.HasPrefix(id, "run-"):
		var i int
		if _, err := fmt.Sscanf(id, "run-%d", &i); err == nil && i >= 0 && i < len(ex.runs) {
			return "fails the run " + strconv.Quote(fill(ex.runs[i].Name, ex.defaults()))
		}
	}
	return id
}
