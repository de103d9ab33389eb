package classroom

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"
)

// Names are what a dashboard row, a CSV cell and a teacher reading the
// room tell people apart by, so two learners must not be able to look the
// same. Three layers, each for a different trick:
//
//  1. CleanName refuses characters that hide or reorder text: format
//     characters (zero-width spaces, bidi overrides, soft hyphens), Hangul
//     fillers and other default-ignorable code points, private-use and
//     unassigned code points, and accents stacked more than
//     maxStackedMarks high. Zero-width joiners stay where a script or an
//     emoji needs them.
//  2. CleanLearnerName also refuses a word that mixes scripts ("Аna" with
//     a Cyrillic А): UTS #39's "highly restrictive" level, applied per
//     word, so "Иван Smith" is fine but a Latin word with one Cyrillic
//     letter is not. Latin with Han, Kana, Hangul or Bopomofo is allowed,
//     as Japanese, Chinese and Korean write it.
//  3. NameKey compares names by a confusables skeleton (UTS #39, the
//     Unicode confusables table), after NFKC and case folding, so a whole
//     word in another script that looks the same ("Аре" in Cyrillic and
//     "Ape"), full-width letters, "I" for "l" and "rn" for "m" collide
//     with the name they imitate.
//
// A skeleton alone would miss nothing that the mixed-script rule catches,
// but its error would name only the clash; the rule refuses "Аna" even in
// an empty class, with a message saying why. The skeleton is the one
// that catches whole-script look-alikes, which no rule about a single name
// can. The price is a few false clashes ("Arnie" and "Amie"), which the
// message turns into "add an initial".

// maxStackedMarks bounds the combining marks on one letter: Vietnamese
// needs two, and a tower of dozens ("Zalgo" text) spills over other rows.
const maxStackedMarks = 3

// CleanName trims a class or learner name and checks it: valid UTF-8, 1 to
// MaxNameLen characters, no control, invisible or text-direction
// characters, something visible. field names the field in the error
// ("name"). The name is kept as typed otherwise, in Unicode's composed form
// (NFC, which changes no glyph) with each run of spaces made one space:
// "<script>" is a valid name, and escaping it is the job of whatever
// displays it.
func CleanName(field, name string) (string, error) {
	if !utf8.ValidString(name) {
		return "", Errorf(EINVALID, "%s: must be valid UTF-8 text", field)
	}
	name = strings.TrimSpace(name)
	// Bound the work before normalising: a name is short, a body is not.
	if n := utf8.RuneCountInString(name); n > 4*MaxNameLen {
		return "", Errorf(EINVALID, "%s: must be at most %d characters (it has %d)", field, MaxNameLen, n)
	}
	// Control characters first: collapsing spaces would hide a tab or a
	// line break.
	if strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }) {
		return "", Errorf(EINVALID, "%s: must not contain control characters or line breaks", field)
	}
	name = collapseSpaces(norm.NFC.String(name))
	n := utf8.RuneCountInString(name)
	if n == 0 {
		return "", Errorf(EINVALID, "%s: must not be empty", field)
	}
	if n > MaxNameLen {
		return "", Errorf(EINVALID, "%s: must be at most %d characters (it has %d)", field, MaxNameLen, n)
	}
	rs := []rune(name)
	marks, visible := 0, false
	for i, r := range rs {
		switch {
		case r == zwj || r == zwnj:
			if !joinerAllowed(rs, i) {
				return "", invisible(field, r, i)
			}
		case isVariationSelector(r):
			// A variation selector picks an emoji's or an ideograph's
			// glyph; after an ASCII letter it does nothing but make the
			// name another string.
			if i == 0 || rs[i-1] < utf8.RuneSelf {
				return "", invisible(field, r, i)
			}
		case unicode.Is(defaultIgnorable, r) || unicode.Is(unicode.Cf, r) || r == '\u2800':
			return "", invisible(field, r, i)
		case !unicode.IsGraphic(r):
			return "", Errorf(EINVALID, "%s: must not contain %s (character %d): an unassigned or private-use character shows differently on every screen", field, charName(r), i+1)
		}
		if unicode.In(r, unicode.Mn, unicode.Me) {
			if marks++; marks > maxStackedMarks {
				return "", Errorf(EINVALID, "%s: must not stack more than %d accents on one letter (character %d)", field, maxStackedMarks, i+1)
			}
		} else {
			marks = 0
		}
		visible = visible || unicode.In(r, unicode.L, unicode.N, unicode.S)
	}
	if !visible {
		return "", Errorf(EINVALID, "%s: must contain a letter, a digit or a symbol", field)
	}
	return name, nil
}

// CleanLearnerName is CleanName for a learner's display name, which must
// also write each word in one script (see the rules above), since a
// learner's name is how the teacher tells them from the others.
func CleanLearnerName(field, name string) (string, error) {
	name, err := CleanName(field, name)
	if err != nil {
		return "", err
	}
	for _, word := range words(name) {
		if ss := scriptsOf(word); !scriptsMayMix(ss) {
			return "", Errorf(EINVALID, "%s: the word %q mixes %s letters, which is how a name is made to look like another; type it in one alphabet",
				field, word, joinAnd(ss))
		}
	}
	return name, nil
}

// NameKey returns the form of a cleaned name that must be unique in a
// class: its confusables skeleton, after compatibility normalisation
// (NFKC: full-width and ligature letters become plain ones) and case
// folding, with default-ignorable characters dropped and spaces collapsed.
// "Ana", "ana", "ＡＮＡ" and "Аna" (Cyrillic А) share a key, as do
// "Alice", "ALICE", "AIice" and "Alı̇ce" (a dotless ı with a dot put on
// it). The key is not for display.
//
// A capital I is two things at once: the capital of i, and a look-alike
// of l; the skeleton takes it for l, the fold for i. Taking the skeleton
// before the fold, as this did, made "ALICE" "allce" and "Alice" "alice",
// two keys for one name. So the key counts i and l as one letter: "Ivan"
// and "ivan" meet, and so do "AIice" and "Alice". The price is a few more
// false clashes ("Eli" and "Ell"), which the message turns into "add an
// initial". The skeleton is taken before the fold, so that capitals that
// look alike across scripts ("ΑΒС", Greek and Cyrillic, and "ABC") meet,
// and again after it for the lower-case forms the fold makes; and a dot
// above an i, l or j is dropped: an i has its dot already.
func NameKey(name string) string {
	s := norm.NFKC.String(name)
	s = strings.Map(func(r rune) rune {
		if unicode.Is(defaultIgnorable, r) {
			return -1
		}
		return r
	}, s)
	s = confusables.Skeleton(s)
	s = norm.NFKC.String(cases.Fold().String(s))
	s = cases.Fold().String(confusables.Skeleton(s))
	s = dropDotAbove(strings.ReplaceAll(norm.NFD.String(s), "i", "l"))
	return collapseSpaces(strings.TrimSpace(norm.NFC.String(s)))
}

// dropDotAbove removes a combining dot above (U+0307) that follows an l
// (which stands for i too, above) or a j, in decomposed text: "i̇" looks
// like "i", and "İ" is a capital I with its dot.
func dropDotAbove(s string) string {
	if !strings.ContainsRune(s, '\u0307') {
		return s
	}
	rs := []rune(s)
	out := rs[:0]
	for i, r := range rs {
		if r == '\u0307' && i > 0 && (rs[i-1] == 'l' || rs[i-1] == 'j') {
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

const (
	zwnj = '\u200C'
	zwj  = '\u200D'
)

// joinerAllowed says whether the zero-width (non-)joiner at rs[i] does
// visible work: between two letters of a script that joins them (Arabic,
// Persian, the Indic scripts), or, for the joiner, between two emoji
// (👩‍💻). Between Latin, Greek or Cyrillic letters, at either end, or
// next to a space it only makes one name two strings.
func joinerAllowed(rs []rune, i int) bool {
	if i == 0 || i == len(rs)-1 {
		return false
	}
	a, b := rs[i-1], rs[i+1]
	if rs[i] == zwj && unicode.Is(unicode.So, a) && unicode.Is(unicode.So, b) {
		return true
	}
	letter := func(r rune) bool { return unicode.In(r, unicode.L, unicode.M) }
	if !letter(a) || !letter(b) {
		return false
	}
	sa, sb := scriptOf(a), scriptOf(b)
	switch sa {
	case "", "Latin", "Greek", "Cyrillic", "Han", "Hiragana", "Katakana", "Hangul":
		return false
	}
	return sa == sb
}

func isVariationSelector(r rune) bool {
	return '\uFE00' <= r && r <= '\uFE0F' || 0xE0100 <= r && r <= 0xE01EF
}

// invisible is the error for a character that hides or reorders text.
func invisible(field string, r rune, i int) error {
	return Errorf(EINVALID, "%s: must not contain %s (character %d), an invisible or text-direction character that can make a name look like another",
		field, charName(r), i+1)
}

// charName names a code point as "U+200B ZERO WIDTH SPACE".
func charName(r rune) string {
	s := fmt.Sprintf("U+%04X", r)
	if n := runenames.Name(r); n != "" && !strings.HasPrefix(n, "<") {
		s += " " + n
	}
	return s
}

// collapseSpaces makes every run of white space one ASCII space.
func collapseSpaces(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) && r != ' ' }) && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// words splits a name into runs of letters and combining marks: the
// units the mixed-script rule looks at.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.In(r, unicode.L, unicode.M) })
}

// scriptsOf lists, sorted, the scripts of a word's letters; Common and
// Inherited (digits, punctuation, combining accents) belong to none.
func scriptsOf(word string) []string {
	seen := map[string]bool{}
	for _, r := range word {
		if s := scriptOf(r); s != "" {
			seen[s] = true
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// scriptMixes are the sets of scripts one word may combine: UTS #39's
// highly restrictive level. Japanese, Chinese and Korean text mixes Han
// with its own scripts, and all three take Latin letters.
var scriptMixes = [][]string{
	{"Han", "Hiragana", "Katakana", "Latin"},
	{"Bopomofo", "Han", "Latin"},
	{"Han", "Hangul", "Latin"},
}

func scriptsMayMix(ss []string) bool {
	if len(ss) <= 1 {
		return true
	}
	for _, mix := range scriptMixes {
		all := true
		for _, s := range ss {
			all = all && contains(mix, s)
		}
		if all {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// joinAnd writes "Cyrillic and Latin", "Cyrillic, Greek and Latin".
func joinAnd(ss []string) string {
	if len(ss) < 2 {
		return strings.Join(ss, "")
	}
	return strings.Join(ss[:len(ss)-1], ", ") + " and " + ss[len(ss)-1]
}

// frequentScripts are tried first: almost every name is in one of these.
var frequentScripts = []string{"Latin", "Cyrillic", "Greek", "Han", "Arabic", "Hiragana", "Katakana", "Hangul", "Devanagari", "Hebrew"}

// allScripts are the rest of Unicode's scripts, sorted so the search is
// deterministic.
var allScripts = func() []string {
	var out []string
	for name := range unicode.Scripts {
		if name != "Common" && name != "Inherited" && !contains(frequentScripts, name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}()

// scriptOf names the script of a code point, "" for Common and Inherited.
func scriptOf(r rune) string {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return "Latin"
		}
		return ""
	}
	if unicode.In(r, unicode.Common, unicode.Inherited) {
		return ""
	}
	for _, list := range [][]string{frequentScripts, allScripts} {
		for _, name := range list {
			if unicode.Is(unicode.Scripts[name], r) {
				return name
			}
		}
	}
	return ""
}

// defaultIgnorable is Unicode's Default_Ignorable_Code_Point property
// (DerivedCoreProperties.txt): code points a renderer shows as nothing.
// The standard library has only the Other_ part of it.
var defaultIgnorable = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00AD, Hi: 0x00AD, Stride: 1},
		{Lo: 0x034F, Hi: 0x034F, Stride: 1},
		{Lo: 0x061C, Hi: 0x061C, Stride: 1},
		{Lo: 0x115F, Hi: 0x1160, Stride: 1},
		{Lo: 0x17B4, Hi: 0x17B5, Stride: 1},
		{Lo: 0x180B, Hi: 0x180F, Stride: 1},
		{Lo: 0x200B, Hi: 0x200F, Stride: 1},
		{Lo: 0x202A, Hi: 0x202E, Stride: 1},
		{Lo: 0x2060, Hi: 0x206F, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xFE00, Hi: 0xFE0F, Stride: 1},
		{Lo: 0xFEFF, Hi: 0xFEFF, Stride: 1},
		{Lo: 0xFFA0, Hi: 0xFFA0, Stride: 1},
		{Lo: 0xFFF0, Hi: 0xFFF8, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x1BCA0, Hi: 0x1BCA3, Stride: 1},
		{Lo: 0x1D173, Hi: 0x1D17A, Stride: 1},
		{Lo: 0xE0000, Hi: 0xE0FFF, Stride: 1},
	},
}
