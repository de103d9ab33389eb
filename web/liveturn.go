package web

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web/admission"
)

// watchTurn ends a live run once it has held its live place for LiveTurn
// and a run waiting for a place could start in it. Without it a paused
// tab, or a run paced at 0.1x, holds its place for MaxRunTime (20
// minutes) while a classmate waits. A run nobody waits for goes on. over
// is set when it ends the run; watchTurn returns when ctx ends.
func (ss *session) watchTurn(ctx context.Context, run *engine.Run, live *admission.Ticket, since time.Time, over *atomic.Bool) {
	turn := ss.srv.cfg.LiveTurn
	tick := time.NewTicker(min(max(turn/4, 50*time.Millisecond), 15*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if now.Sub(since) < turn || !live.Yield() {
				continue
			}
			over.Store(true)
			ss.srv.metrics.liveEnded.Inc()
			run.Stop()
			return
		}
	}
}
