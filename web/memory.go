package web

import "runtime/debug"

// GCPercent is the garbage collector's target (GOGC) for a server with a
// memory budget: the heap may grow to five times what is live before a
// collection, instead of twice, and the budget (the runtime's soft limit)
// caps it. 500 live sessions hold about 120 MB, so the heap stays well
// inside the default budget of 1 GiB, and a collection comes about a
// quarter as often: each one, on two cores, makes the goroutines that
// allocate during it help mark, and the events they carry arrive up to
// 100 to 200 ms late (docs/web-benchmarks.md, "After (3)").
const GCPercent = 400

// ApplyMemoryBudget sets the Go runtime for a server that plans for
// budget bytes: the budget becomes the soft memory limit and GCPercent the
// collector's target, each unless the runtime's own environment variable
// (GOMEMLIMIT, GOGC) is set, which wins. getenv reads the environment
// (os.Getenv). It returns a function that puts the previous settings back.
func ApplyMemoryBudget(budget int64, getenv func(string) string) (restore func()) {
	prevLimit, prevGC := debug.SetMemoryLimit(-1), -2
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(budget)
	}
	if getenv("GOGC") == "" {
		prevGC = debug.SetGCPercent(GCPercent)
	}
	return func() {
		debug.SetMemoryLimit(prevLimit)
		if prevGC != -2 {
			debug.SetGCPercent(prevGC)
		}
	}
}
