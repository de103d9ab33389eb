package classroom

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ExcerptLen is how many characters of a user's input an error message
// quotes at most: enough to recognise it, never a whole body sent back.
const ExcerptLen = 40

// Excerpt quotes s for an error message (Go's %q form, so control and
// invisible characters show as escapes) and, past max characters, cuts it
// and says how long it was: "aaaa…" (70000 characters). Lengths are
// characters, not bytes.
func Excerpt(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	n := utf8.RuneCountInString(s)
	if n <= max {
		return strconv.Quote(s)
	}
	i := 0
	for k := range s {
		if i == max {
			s = s[:k]
			break
		}
		i++
	}
	return fmt.Sprintf("%s… (%d characters)", strconv.Quote(s), n)
}
