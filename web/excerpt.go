package web

import (
	"unicode/utf8"

	"github.com/leaselab/playground/classroom"
)

// Bounds on what an error tells a user, in characters: a message names
// the field and the limit and may quote a short excerpt of the input
// (classroom.Excerpt), never the input itself. mapError holds every
// message and field to these, whoever wrote it, so an engine or lesson
// message that quotes a 60 KB client name still comes back short.
const (
	maxMessage = 400
	maxField   = 100
)

// excerpt quotes a short piece of a user's input for an error message.
func excerpt(s string) string { return classroom.Excerpt(s, classroom.ExcerptLen) }

// boundText cuts s to at most max characters, keeping its head and its
// last words (where a message says what to do instead) around "…".
func boundText(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	rs := []rune(s)
	tail := max / 4
	return string(rs[:max-tail-1]) + "…" + string(rs[len(rs)-tail:])
}
