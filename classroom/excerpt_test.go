package classroom_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leaselab/playground/classroom"
)

func TestExcerptCountsCharactersAndCuts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"ana", 40, `"ana"`},
		{strings.Repeat("é", 40), 40, `"` + strings.Repeat("é", 40) + `"`},
		{strings.Repeat("é", 41), 40, `"` + strings.Repeat("é", 40) + `"… (41 characters)`},
		{strings.Repeat("x", 70000), 5, `"xxxxx"… (70000 characters)`},
		{"a\u202eb\x00", 40, `"a\u202eb\x00"`},
		{"bad \xff", 40, `"bad �"`},
	} {
		if got := classroom.Excerpt(tc.in, tc.max); got != tc.want {
			t.Errorf("Excerpt(%.20q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
	if got := classroom.Excerpt(strings.Repeat("日本", 1000), classroom.ExcerptLen); utf8.RuneCountInString(got) > classroom.ExcerptLen+30 {
		t.Errorf("excerpt of 2,000 characters is %d characters", utf8.RuneCountInString(got))
	}
}
