package lessons

import (
	"crypto/sha256"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"strings"
)

// Options are lettered after shuffling: a variant shows them in its own
// order as (a), (b), (c)..., so the letter of the right option differs
// between neighbours and says nothing about the option. Each option also
// has a stable id, "option-" and the key its file gives it, which names
// it on every variant: answers sent by a form, the mistakes of a class
// and stored attempts refer to options by id.

// OptionIDPrefix starts every option's stable id ("option-b").
const OptionIDPrefix = "option-"

// optionID is the stable id of the option with file key k: what the
// checker reads an answer as (Result.Read), and names a mistake by.
func optionID(k string) string { return OptionIDPrefix + k }

// PublicOptionID is the id a page and the API give the option with file
// key k, and a form sends back: "option-" and eight hex digits of a
// SHA-256 of the exercise and the key. The stable id would name the
// file's key, and the right option's key is the same letter in most
// files, so a learner could pick by the id and not by the text; this one
// says nothing of the key, and is as stable. A hash whose last input byte
// barely stirs its output (FNV) will not do: keys a, b, c gave ids one
// digit apart, which sorted back into the file's order. The checker reads
// this id, the stable id and that older one (kept attempts).
func (ex *Exercise) PublicOptionID(k string) string {
	sum := sha256.Sum256([]byte("option/" + ex.ID + "/" + k))
	return fmt.Sprintf("%s%x", OptionIDPrefix, sum[:4])
}

// oldPublicOptionID is the id pages gave the option with file key k
// before PublicOptionID: still read, so attempts kept with it regrade as
// they were graded; never served.
func (ex *Exercise) oldPublicOptionID(k string) string {
	h := fnv.New64a()
	h.Write([]byte("option/" + ex.ID + "/" + k))
	return fmt.Sprintf("%s%08x", OptionIDPrefix, h.Sum64()>>32)
}

// keyOfPublicID is the file key of the option whose PublicOptionID (or
// old one) is id, or "".
func (ex *Exercise) keyOfPublicID(id string) string {
	if len(id) != len(OptionIDPrefix)+8 {
		return ""
	}
	for _, o := range ex.options {
		if ex.PublicOptionID(o.Key) == id || ex.oldPublicOptionID(o.Key) == id {
			return o.Key
		}
	}
	return ""
}

// letter is the letter shown at position i of a variant's order.
func letter(i int) string { return string(rune('a' + i)) }

// optionOrder is the order a variant shows the options in: indexes into
// ex.options. Every variant, the notes' own included, is shuffled. In a
// choice with one right option, that option is then moved to the position
// (variant + a number drawn from the exercise's id) modulo the number of
// options, so that over any run of consecutive variants the right letter
// takes each position equally often, and different exercises put it in
// different places on the same variant. A prediction is placed the same
// way when its file says which option its run makes right.
func (ex *Exercise) optionOrder(variant int) []int {
	n := len(ex.options)
	h := fnv.New64a()
	h.Write([]byte("options/" + ex.ID))
	salt := h.Sum64()
	rng := rand.New(rand.NewPCG(uint64(variant), salt))
	order := rng.Perm(n)
	if right := ex.singleRight(); right >= 0 && n > 0 {
		want := int((uint64(variant) + salt%uint64(n)) % uint64(n))
		for i, o := range order {
			if o == right {
				order[i], order[want] = order[want], order[i]
				break
			}
		}
	}
	return order
}

// singleRight is the index of the one right option of a single-answer
// choice or prediction (whose file says which option its run makes
// right), or -1.
func (ex *Exercise) singleRight() int {
	if ex.spec.Multiple || len(ex.spec.Correct) != 1 {
		return -1
	}
	for i, o := range ex.options {
		if o.Key == ex.spec.Correct[0] {
			return i
		}
	}
	return -1
}

// lettering maps a variant's letters to file keys and back.
type lettering struct {
	toKey    map[string]string
	toLetter map[string]string
}

func (ex *Exercise) lettering(variant int) lettering {
	l := lettering{toKey: map[string]string{}, toLetter: map[string]string{}}
	for pos, i := range ex.optionOrder(variant) {
		k := ex.options[i].Key
		l.toKey[letter(pos)] = k
		l.toLetter[k] = letter(pos)
	}
	return l
}

// letters writes file keys as this variant's letters, in letter order:
// "a, c".
func (l lettering) letters(keys []string) string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, l.toLetter[k])
	}
	return joinKeys(out)
}

// ids writes file keys as stable ids: "option-b, option-d".
func ids(keys []string) string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, optionID(k))
	}
	return strings.Join(out, ", ")
}

// optionRefRE is how an exercise's text names an option: {@b} is written
// as the letter option b is shown under on the variant.
var optionRefRE = regexp.MustCompile(`\{@([a-z])\}`)

// fillOptions writes each {@key} in text as this variant's letter for that
// option.
func (ex *Exercise) fillOptions(text string, variant int) string {
	if len(ex.options) == 0 || !strings.Contains(text, "{@") {
		return text
	}
	lt := ex.lettering(variant)
	return optionRefRE.ReplaceAllStringFunc(text, func(m string) string {
		if l, ok := lt.toLetter[m[2:3]]; ok {
			return l
		}
		return m
	})
}

// LegacyChoiceAnswer rewrites an answer recorded before options were
// lettered after shuffling, when a letter was the option's own key on
// every variant, into stable ids ("b, d" becomes "option-b, option-d";
// "bd", keys typed together in a choose-several, too), so that regrading
// it reads it as it was meant. It reads the answer as the parser of that
// time did: an option's alias stays as written (aliases do not move with
// the shuffle), and an answer that was not made of this exercise's keys
// and aliases is returned as it is.
func (ex *Exercise) LegacyChoiceAnswer(answer string) string {
	if len(ex.options) == 0 {
		return answer
	}
	s := strings.TrimRight(strings.ToLower(strings.TrimSpace(answer)), ".!")
	if s == "" || ex.aliasKey(s) != "" {
		return answer
	}
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if ex.aliasKey(part) != "" {
			out = append(out, part)
			continue
		}
		for _, tok := range choiceSepRE.Split(part, -1) {
			tok = strings.Trim(tok, "()[]. ")
			switch {
			case tok == "":
			case ex.option(tok) != nil:
				out = append(out, optionID(tok))
			case ex.spec.Multiple && ex.allKeys(tok):
				for _, r := range tok {
					out = append(out, optionID(string(r)))
				}
			default:
				return answer
			}
		}
	}
	if len(out) == 0 {
		return answer
	}
	return strings.Join(out, ", ")
}

// allKeys reports whether every letter of s is one of the options' own
// keys: how choose-several answers typed together ("bd") were read
// before the shuffle.
func (ex *Exercise) allKeys(s string) bool {
	for _, r := range s {
		if ex.option(string(r)) == nil {
			return false
		}
	}
	return s != ""
}
