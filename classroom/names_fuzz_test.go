package classroom_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leaselab/playground/classroom"
)

// FuzzCleanName feeds the name rules anything a join or create request can
// carry. They never panic; a refusal is EINVALID naming the field, in a
// short message; an accepted name is valid UTF-8 of 1 to MaxNameLen
// characters that the rules accept again unchanged (so what is stored is
// what was checked), and its key is the key of the name as typed.
func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"Ana", "  Ana  ", "Zoë O'Brien", "Иван", "\u0410na", "A\u200bna", "\u202eanA",
		"Ａｎａ", "علی\u200cرضا", "👩\u200d💻 Ada", "❤\ufe0f", "Za\u0301\u0301\u0301\u0301lgo", "tab\there", "\xff",
		strings.Repeat("é", 41), "山田 Taro", "...", "\u3164", "AIice", "a\u2028b", "\U000e0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, clean := range []func(string, string) (string, error){classroom.CleanName, classroom.CleanLearnerName} {
			got, err := clean("name", name)
			if err != nil {
				msg := classroom.ErrorMessage(err)
				if classroom.ErrorCode(err) != classroom.EINVALID || !strings.HasPrefix(msg, "name: ") || utf8.RuneCountInString(msg) > 300 {
					t.Fatalf("%q: refused with %v", name, err)
				}
				continue
			}
			n := utf8.RuneCountInString(got)
			if !utf8.ValidString(got) || n < 1 || n > classroom.MaxNameLen {
				t.Fatalf("%q: accepted as %q (%d characters)", name, got, n)
			}
			again, err := clean("name", got)
			if err != nil || again != got {
				t.Fatalf("%q: accepted as %q, which cleans to %q, %v", name, got, again, err)
			}
			if k := classroom.NameKey(got); k == "" {
				t.Fatalf("%q: accepted as %q with an empty key", name, got)
			}
		}
		_ = classroom.NameKey(name) // any string, never a panic
		_ = classroom.NormalizeCode(name)
	})
}
