package classroom_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

func TestCleanName(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"  Ana  ", "Ana", ""},
		{"<script>alert(1)</script>", "<script>alert(1)</script>", ""},
		{strings.Repeat("ü", 40), strings.Repeat("ü", 40), ""},
		// Decomposed u + diaeresis is stored composed: 40 characters.
		{strings.Repeat("u\u0308", 40), strings.Repeat("ü", 40), ""},
		{"Ana \u00a0  Li", "Ana Li", ""},
		{"", "", "learner name: must not be empty"},
		{"\u00a0\u3000", "", "learner name: must not be empty"},
		{strings.Repeat("x", 41), "", "learner name: must be at most 40 characters (it has 41)"},
		{strings.Repeat("é", 41), "", "learner name: must be at most 40 characters (it has 41)"},
		{strings.Repeat("x", 10000), "", "learner name: must be at most 40 characters (it has 10000)"},
		{"a\x00b", "", "learner name: must not contain control characters"},
		{"a\u2028b", "", "learner name: must not contain control characters"},
		{"\xc3", "", "learner name: must be valid UTF-8"},
		{"...", "", "learner name: must contain a letter, a digit or a symbol"},
	} {
		got, err := classroom.CleanName("learner name", tc.in)
		if got != tc.want || !strings.HasPrefix(classroom.ErrorMessage(err), tc.err) || (tc.err == "") != (err == nil) {
			t.Errorf("CleanName(%.60q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
		if tc.err != "" && classroom.ErrorCode(err) != classroom.EINVALID {
			t.Errorf("CleanName(%.60q): code %q", tc.in, classroom.ErrorCode(err))
		}
	}
}

// TestCleanNameRefusesInvisibleCharacters: each of these renders as
// "Ana" or close to it, or flips the text around it.
func TestCleanNameRefusesInvisibleCharacters(t *testing.T) {
	for _, tc := range []struct{ in, char string }{
		{"A\u200bna", "U+200B ZERO WIDTH SPACE (character 2)"},
		{"Ana\u200b", "U+200B ZERO WIDTH SPACE (character 4)"},
		{"A\u200dna", "U+200D ZERO WIDTH JOINER (character 2)"},
		{"A\u200cna", "U+200C ZERO WIDTH NON-JOINER (character 2)"},
		{"\u202eanA", "U+202E RIGHT-TO-LEFT OVERRIDE (character 1)"},
		{"Ana\u2066x\u2069", "U+2066 LEFT-TO-RIGHT ISOLATE (character 4)"},
		{"A\u200ena", "U+200E LEFT-TO-RIGHT MARK (character 2)"},
		{"An\u00ada", "U+00AD SOFT HYPHEN (character 3)"},
		{"\ufeffAna", "U+FEFF ZERO WIDTH NO-BREAK SPACE (character 1)"},
		{"A\u2060na", "U+2060 WORD JOINER (character 2)"},
		{"Ana\u3164", "U+3164 HANGUL FILLER (character 4)"},
		{"Ana\u115f", "U+115F HANGUL CHOSEONG FILLER (character 4)"},
		{"A\u034fna", "U+034F COMBINING GRAPHEME JOINER (character 2)"},
		{"Ana\u2800", "U+2800 BRAILLE PATTERN BLANK (character 4)"},
		{"A\ufe0fna", "U+FE0F VARIATION SELECTOR-16 (character 2)"},
		{"Ana\U000e0041", "U+E0041 TAG LATIN CAPITAL LETTER A (character 4)"},
	} {
		_, err := classroom.CleanName("name", tc.in)
		msg := classroom.ErrorMessage(err)
		if classroom.ErrorCode(err) != classroom.EINVALID || !strings.Contains(msg, tc.char) || !strings.Contains(msg, "invisible or text-direction") {
			t.Errorf("CleanName(%q): %q; want it refused naming %s", tc.in, msg, tc.char)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"Ana\ue000", "U+E000 (character 4): an unassigned or private-use character"},
		{"Ana\U000f0000", "U+F0000 (character 4): an unassigned or private-use character"},
		{"Za\u0301\u0301\u0301\u0301\u0301lgo", "must not stack more than 3 accents on one letter (character 6)"},
	} {
		_, err := classroom.CleanName("name", tc.in)
		if msg := classroom.ErrorMessage(err); !strings.Contains(msg, tc.want) {
			t.Errorf("CleanName(%q): %q; want %q", tc.in, msg, tc.want)
		}
	}
}

// TestCleanLearnerNameKeepsRealNames: names from many scripts, including
// the joiners that Persian and emoji sequences need, are accepted as
// typed.
func TestCleanLearnerNameKeepsRealNames(t *testing.T) {
	for _, name := range []string{
		"Zoë O'Brien", "José", "Jean-Luc", "Nguyễn Văn Anh", "Иван", "Иван Smith", "Ζωή",
		"山田太郎", "やまだ たろう", "山田 Taro", "김민준", "محمد", "علی\u200cرضا", "प्रिया", "דנה",
		"👩\u200d💻 Ada", "Ana 2", "A. B.", "=1+2", "❤\ufe0f Bo",
	} {
		got, err := classroom.CleanLearnerName("name", name)
		if err != nil || got != name {
			t.Errorf("CleanLearnerName(%q) = %q, %v; want it kept", name, got, err)
		}
	}
}

// TestCleanLearnerNameRefusesMixedScripts: a Latin word with a Cyrillic
// or Greek letter in it is the classic way to imitate a name.
func TestCleanLearnerNameRefusesMixedScripts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\u0410na", `the word "Аna" mixes Cyrillic and Latin letters`},         // Cyrillic А
		{"Bo \u0392ob", `the word "Βob" mixes Greek and Latin letters`},         // Greek Β
		{"Ali\u0441e", `the word "Aliсe" mixes Cyrillic and Latin letters`},     // Cyrillic с
		{"P\u0430ul\u03bf", `the word "Pаulο" mixes Cyrillic, Greek and Latin`}, // а and ο
	} {
		_, err := classroom.CleanLearnerName("name", tc.in)
		msg := classroom.ErrorMessage(err)
		if classroom.ErrorCode(err) != classroom.EINVALID || !strings.Contains(msg, tc.want) || !strings.Contains(msg, "type it in one alphabet") {
			t.Errorf("CleanLearnerName(%q): %q; want %q", tc.in, msg, tc.want)
		}
	}
	// A class's name is a title, not a person: it may mix scripts.
	if _, err := classroom.CleanName("name", "Распределённые системы, week 3"); err != nil {
		t.Errorf("class name: %v", err)
	}
}

// TestNameKeyCatchesLookAlikes: pairs a dashboard would show the same,
// and pairs it would not.
func TestNameKeyCatchesLookAlikes(t *testing.T) {
	same := [][2]string{
		{"Ana", "ana"},
		{"Ana", "ANA"},
		{"Ana", "Ａｎａ"},                // full-width
		{"Ape", "\u0410\u0440\u0435"}, // all Cyrillic: А р е
		{"Ana", "\u0410n\u0430"},      // mixed (CleanLearnerName refuses it anyway)
		{"ABC", "\u0391\u0392\u0421"}, // Greek Α Β, Cyrillic С
		{"Alice", "AIice"},            // capital I for l
		{"Alice", "A1ice"},            // digit one
		{"Kim", "Kirn"},               // rn for m
		{"Bob", "B\u200bob"},          // a zero-width space, were it stored
		{"Ana Li", "Ana  Li"},         // two spaces
		{"Ana Li", "Ana\u00a0Li"},     // a no-break space
		{"Zoë", "Zoe\u0308"},          // decomposed
		{"ﬁona", "fiona"},             // ligature
		{"Straße", "STRASSE"},         // case folding, not lower-casing
		{"Oscar", "0scar"},            // digit zero
		{"Alice", "ALICE"},            // capitals: the fold before the skeleton's I-for-l
		{"Ivan", "ivan"},              //
		{"Alice", "Alı̇ce"},           // a dotless ı with a dot put on it
		{"Alice", "ALİCE"},            // a capital İ with its dot
	}
	for _, p := range same {
		if a, b := classroom.NameKey(p[0]), classroom.NameKey(p[1]); a != b {
			t.Errorf("NameKey(%q) = %q, NameKey(%q) = %q; want the same", p[0], a, p[1], b)
		}
	}
	differ := [][2]string{
		{"Ana", "Ann"},
		{"Ana", "Anna"},
		{"Zoë", "Zoe"},
		{"José", "Jose"},
		{"Иван", "Ivan"},
		{"Ana Li", "AnaLi"},
		{"山田", "山本"},
	}
	for _, p := range differ {
		if a, b := classroom.NameKey(p[0]), classroom.NameKey(p[1]); a == b {
			t.Errorf("NameKey(%q) = NameKey(%q) = %q; want them apart", p[0], p[1], a)
		}
	}
}
