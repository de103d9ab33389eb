package engine

import (
	"context"
	"runtime"
)

// setupGate lets a few runs set up at a time (a Raft group booted or taken
// from a pool, the database opened). When hundreds of runs start in the
// same instant (a class pressing Run together), the runs already under
// way keep their pace instead of queueing for the processor behind
// hundreds of set-ups: Go's scheduler gives every runnable goroutine its
// turn, so 500 set-ups at once delay a paced run's next event by hundreds
// of milliseconds, while a few at a time delay it by a few (see
// docs/web-benchmarks.md). The set-ups take the same processor time
// either way; a run that waits here has not begun, so its timeline starts
// later but is not stretched.
var setupGate = newGate(2 * runtime.GOMAXPROCS(0))

// gate is a counting semaphore.
type gate chan struct{}

func newGate(n int) gate { return make(gate, max(n, 1)) }

// enter waits for a place, or for ctx to end.
func (g gate) enter(ctx context.Context) error {
	select {
	case g <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leave gives the place back.
func (g gate) leave() { <-g }
