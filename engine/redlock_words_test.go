package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestRedlockRefusalNamesNoEmptyList: a Redlock acquire that no server
// granted says "none of the 5 servers agreed", not "only 0 of 5 servers
// () agreed", wherever client-2 starts asking.
func TestRedlockRefusalNamesNoEmptyList(t *testing.T) {
	seen := 0
	for start := 1000; start <= 9000; start += 2000 {
		sc := mustPreset(t, "paused-holder", false, "lock.backend", "redlock", "lock.nodes", "5",
			"clients[client-2].start", fmt.Sprintf("%dms", start))
		res := mustRun(t, sc)
		for _, e := range res.Events {
			text := engine.Describe(e)
			if strings.Contains(text, "()") || strings.Contains(text, "only 0 of") {
				t.Errorf("client-2 from %dms: %q", start, text)
			}
			if e.Kind == engine.KindAcquireRefused && strings.Contains(text, "none of the 5 servers agreed; 3 are needed") {
				seen++
			}
		}
	}
	if seen == 0 {
		t.Fatal("no acquire refused by every server: the test checks nothing")
	}
}
