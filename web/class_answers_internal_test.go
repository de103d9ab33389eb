package web

import (
	"slices"
	"testing"
)

// TestCodeSpansCutsAtPairedBackticks: a model answer's `code` comes out
// as the odd pieces, and an unpaired backtick leaves the paragraph whole.
func TestCodeSpansCutsAtPairedBackticks(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"update (`UPDATE t SET a = 1`) first", []string{"update (", "UPDATE t SET a = 1", ") first"}},
		{"no code", []string{"no code"}},
		{"one ` only", []string{"one ` only"}},
	} {
		if got := codeSpans(c.in); !slices.Equal(got, c.want) {
			t.Errorf("codeSpans(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
