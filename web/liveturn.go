package web

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web/admission"
)

// turnWatch ends a live run once it has held its live place for LiveTurn
// and a run waiting for a place could start in it. Without it a paused
// tab, or a run paced at 0.1x, holds its place for MaxRunTime (20
// minutes) while a classmate waits. A run nobody waits for goes on. It is
// a timer, not a goroutine: a live session's goroutines stay as few as
// they were.
type turnWatch struct {
	mu      sync.Mutex
	t       *time.Timer
	stopped bool
	over    atomic.Bool // it ended the run
}

// watchTurn starts watching a run that got its place at since.
func (ss *session) watchTurn(run *engine.Run, live *admission.Ticket, since time.Time) *turnWatch {
	turn := ss.srv.cfg.LiveTurn
	every := min(max(turn/4, 50*time.Millisecond), 15*time.Second)
	w := &turnWatch{}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t = time.AfterFunc(max(turn-time.Since(since), 0), func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.stopped {
			return
		}
		if !live.Yield() {
			w.t.Reset(every)
			return
		}
		w.over.Store(true)
		ss.srv.metrics.liveEnded.Inc()
		run.Stop()
	})
	return w
}

// stop ends the watch; it reports whether the watch ended the run.
func (w *turnWatch) stop() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.t.Stop()
	return w.over.Load()
}
