package web

import (
	"slices"
	"time"

	"github.com/leaselab/playground/engine"
)

// observeEvery bounds how often a live run's Raft nodes are asked how
// they see themselves.
const observeEvery = 200 * time.Millisecond

// observe sends what the run's real Raft nodes report about themselves
// (role, term, log and commit index: engine.Run.Nodes) when it changed,
// soon after the run emitted events (each emit pokes it), and once more as
// the run ends, so that every Raft run's last step has its observation,
// however fast it went: a paused run sends nothing. The figures are observed on the wall
// clock and differ from run to run, so they go beside the timeline, never
// into it. A run without a Raft group sends nothing. It runs on the live
// run's own goroutine, which would otherwise only wait for the run's end.
func (ss *session) observe(run *engine.Run, poke <-chan struct{}) {
	var last []engine.NodeStatus
	var asked time.Time
	var later <-chan time.Time
	send := func() {
		asked, later = time.Now(), nil
		nodes := run.Nodes()
		if nodes == nil || slices.Equal(nodes, last) {
			return
		}
		last = nodes
		ss.send(ServerMessage{Type: MsgObserved, Nodes: nodes})
	}
	for {
		select {
		case <-run.Done():
			send() // the nodes as they were at the run's last step
			return
		case <-poke:
			if wait := observeEvery - time.Since(asked); wait > 0 {
				if later == nil {
					later = time.After(wait)
				}
				continue
			}
			send()
		case <-later:
			send()
		}
	}
}
