package lessons

import (
	"strings"
	"testing"
)

// TestMeasuresAreSaidInWords: every measure a goal may read has words of
// its own, with times in seconds and counts agreeing with their noun,
// so no feedback shows an engine field name like overlap_ms.
func TestMeasuresAreSaidInWords(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    float64
		want string
	}{
		{"overlap_ms", 5000, "two holders at once for 5 s"},
		{"overlap_ms", 0, "never two holders at once"},
		{"stale_writes_accepted", 1, "1 stale write landed"},
		{"stale_writes_accepted", 2, "2 stale writes landed"},
		{"blocked_after_crash_ms", 74000, "the lock was blocked for 74 s after the crash"},
		{"fencing", 0, "fencing off"},
	} {
		if got := measureWords(tc.name, tc.v); got != tc.want {
			t.Errorf("%s = %g: %q, want %q", tc.name, tc.v, got, tc.want)
		}
	}
	for _, name := range metricList {
		for _, v := range []float64{0, 1, 2500} {
			if got := measureWords(name, v); strings.Contains(got, "_") || strings.HasPrefix(got, strings.ReplaceAll(name, "_", " ")+":") {
				t.Errorf("%s = %g is said %q", name, v, got)
			}
		}
	}
}
