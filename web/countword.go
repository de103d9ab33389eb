package web

import "strconv"

// countWord writes a count with its noun, one or many: "1 score",
// "4 scores", "1 exercise". The lesson index and the grades card say
// their counts with it.
func countWord(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
