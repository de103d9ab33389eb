package engine

import "time"

// A chaos batch hands a finished run's Raft group to a later run of the
// batch instead of booting a new one for every run: booting three nodes,
// electing node-1 and shutting them down again was a fifth of a batch's
// CPU. A group is handed on only where no run can tell it from a new one:
//
//   - The finished run left it as it was booted: node-1 leads in the term
//     of the boot (the simulation held no election and Raft's own timers
//     never fired), every node runs, no disk was lost and no command is
//     left uncommitted. Links its partitions cut are joined again.
//   - Every node's log ends at the same entry before the group is handed
//     on (reusable waits for it), as after a boot: an election the next
//     run holds is decided as in a new group. The entries up to there are
//     the finished run's, and every node's state machine skips them
//     (raftFSM.since): a follower may still be applying some when the next
//     run swaps in its fresh machines.
//
// So a node of the next run that starts again after a crash, and replays
// its log from the start into a fresh state machine, or that lost its disk
// and is sent the leader's log, skips the earlier runs' commands as well.
// The run sees its own state machines, its own terms and its own account
// of the logs (attach); only the real log's indexes differ, and nothing in
// a run's timeline or summary shows them. A live run's node panel does
// (the real nodes' log and commit indexes), which is why only a chaos
// batch's pool hands groups on. TestReusedGroupsGiveTheSameRuns and
// TestReusedGroupsGiveTheSameChaos compare runs and whole batches both
// ways.

// maxReusedLog retires a group whose log grew this long: far below
// raftSnapshotThreshold, so that a reused group never takes a snapshot
// (which would hold an earlier run's state machine), and its log stays a
// few hundred kilobytes.
const maxReusedLog = 1024

// reuseSettle bounds how long a finished run's group may take to bring
// every follower up to date before it is handed on; past it, the group is
// shut down as any other. A follower that was cut off is sent what it
// lacks as soon as its link is joined again (memTransport holds the
// messages of a cut link), so the wait is a scheduling delay: the bound is
// generous, so that how many groups are handed on does not depend on how
// busy the machine is.
const reuseSettle = 250 * time.Millisecond

// group is the Raft group under a lock service built on one (a backend's
// service may embed it).
func (s *raftService) group() *raftService { return s }

// reusable reports whether the group a run just finished with can serve
// another run, and makes it ready to: every node's links joined, their
// logs ending at the same entry, the finished run's entries skipped by
// their state machines. It leaves the group detached from the run.
func (s *raftService) reusable() bool {
	if s.leader != 0 || s.term != bootTerm || s.wiped || s.withheld || len(s.flights) > 0 || s.electing || s.held {
		return false
	}
	for _, nd := range s.nodes {
		if nd.down || nd.r == nil {
			return false
		}
	}
	lead := s.nodes[0]
	if last, _ := lead.log.LastIndex(); last >= maxReusedLog {
		return false
	}
	s.w = nil // the pool's: every link is up (connected)
	s.hooks = raftHooks{}
	s.links()
	if !s.asBooted() {
		return false // Raft's own timers fired during the run
	}
	// Every follower's log must end where the leader's does, as after a
	// boot (bootRaft), so that an election the next run holds is decided
	// as in a new group.
	end, level := s.level(reuseSettle, nil)
	if !level {
		return false
	}
	for _, nd := range s.nodes {
		nd.answers.Store(false)
		nd.since.Store(end + 1)
	}
	s.mu.Lock()
	s.last, s.lastClock = nil, nil
	s.mu.Unlock()
	s.drainChanged()
	return s.asBooted()
}
