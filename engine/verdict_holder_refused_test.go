package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestVerdictBlamesWhatRefusedTheHolder: a verdict whose lock holder had
// its own writes refused says why by what refused each: a token handed out
// again, another primary's higher token on the other side of a partition,
// a higher token from a grant the service forgot, or some of each with
// how many. Before, a run with stale writes refused
// beside the holder's blamed a token handed out again even when every one
// of the holder's refusals came from the other primary.
func TestVerdictBlamesWhatRefusedTheHolder(t *testing.T) {
	const (
		again = "handed out again"
		split = "another primary, serving the other side of a partition, had granted a higher token"
	)
	const forgot = "a higher token came from a grant the lock service forgot"
	for _, c := range []struct {
		name                           string
		refused, holder, split, forgot int
		want, not                      []string
	}{
		{"only the holder's, a forgotten grant", 1, 1, 0, 1, []string{"own write was refused (1 refused): " + forgot}, []string{again, split}},
		{"stale writes too, a forgotten grant and the other primary", 4, 3, 1, 2, []string{"own 3 writes too (4 refused in all): " + split + " (1), or " + forgot + " (2)"}, []string{again}},
		{"only the holder's, its token again", 2, 2, 0, 0, []string{"own write was refused (2 refused): its token was " + again}, []string{split}},
		{"only the holder's, the other primary", 2, 2, 2, 0, []string{"own write was refused (2 refused): " + split}, []string{again}},
		{"only the holder's, some of each", 3, 3, 1, 0, []string{again + ", lower than one the storage had seen (2), or " + split + " (1)"}, nil},
		{"stale writes too, the other primary", 3, 1, 1, 0, []string{"every stale write was refused, and the lock holder's own 1 write too (3 refused in all): " + split}, []string{again}},
		{"stale writes too, its token again", 3, 1, 0, 0, []string{"own 1 write too (3 refused in all): a token " + again}, []string{split}},
		{"stale writes too, some of each", 5, 3, 2, 0, []string{"own 3 writes too (5 refused in all): a token " + again + ", lower than one the storage had seen (1), or " + split + " (2)"}, nil},
	} {
		got := engine.Verdict(engine.Summary{WritesRefused: c.refused, HolderWritesRefused: c.holder, SplitBrainWritesRefused: c.split, ForgottenGrantWritesRefused: c.forgot,
			FinalValue: 1000, ExpectedValue: 1000})
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the verdict %q does not say %q", c.name, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: the verdict %q says %q", c.name, got, n)
			}
		}
	}
}
