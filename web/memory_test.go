package web

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestApplyMemoryBudget: the budget becomes the runtime's soft limit and
// GOGC becomes GCPercent, unless GOMEMLIMIT or GOGC is set; restore puts
// the previous settings back.
func TestApplyMemoryBudget(t *testing.T) {
	gcPercent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	limit0, gc0 := debug.SetMemoryLimit(-1), gcPercent()
	if limit0 != math.MaxInt64 { // the runtime's default: no limit
		t.Skipf("the test process runs with a memory limit (%d): GOMEMLIMIT is set", limit0)
	}

	restore := ApplyMemoryBudget(512<<20, func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != 512<<20 {
		t.Errorf("memory limit %d, want the budget %d", got, 512<<20)
	}
	if got := gcPercent(); got != GCPercent {
		t.Errorf("GOGC %d, want %d", got, GCPercent)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != limit0 {
		t.Errorf("after restore: memory limit %d, want %d", got, limit0)
	}
	if got := gcPercent(); got != gc0 {
		t.Errorf("after restore: GOGC %d, want %d", got, gc0)
	}

	env := map[string]string{"GOMEMLIMIT": "2GiB", "GOGC": "100"}
	restore = ApplyMemoryBudget(512<<20, func(k string) string { return env[k] })
	defer restore()
	if got := debug.SetMemoryLimit(-1); got != limit0 {
		t.Errorf("with GOMEMLIMIT set: memory limit %d, want it left at %d", got, limit0)
	}
	if got := gcPercent(); got != gc0 {
		t.Errorf("with GOGC set: GOGC %d, want it left at %d", got, gc0)
	}
}
