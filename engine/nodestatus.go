package engine

import "slices"

// NodeStatus is one lock node as its real hashicorp/raft instance reported
// itself just after the simulation took a step. It is observed, not
// simulated: it moves on the wall clock (a follower learns a commit a
// little after the leader), differs from run to run, and is never part of
// the deterministic timeline. The simulation's view of the same node (leader, down, cut off)
// is in the events; where the two disagree, Raft's own timers fired on a
// busy machine (see docs/scenarios.md, "Raft as it is").
type NodeStatus struct {
	// Name is the node ("node-1").
	Name string `json:"name"`
	// Role is what the node believes it is: "leader", "follower",
	// "candidate" or "shutdown" (crashed).
	Role string `json:"role"`
	// Term is the node's current Raft term.
	Term uint64 `json:"term"`
	// LastLogIndex is the index of the last entry the node's log holds,
	// committed or not.
	LastLogIndex uint64 `json:"last_log_index"`
	// CommitIndex is the highest entry the node knows to be committed.
	CommitIndex uint64 `json:"commit_index"`
	// AppliedIndex is the highest entry handed to the node's state machine.
	AppliedIndex uint64 `json:"applied_index"`
}

// Nodes reports the real Raft nodes of the run's lock group as they saw
// themselves when the simulation took the step shown last (nil when the
// scenario has no Raft group): a played run's group was shut down
// when its simulation ended, so what the nodes said was kept with each
// step. It may be called from any goroutine at any time, during or after
// the run; after the run, they are as the nodes reported themselves at its
// last step shown. Its figures are observed and vary from
// run to run: send them beside the timeline, labelled as observed, never
// inside it.
func (r *Run) Nodes() []NodeStatus {
	if nodes := r.nodes.Load(); nodes != nil {
		return slices.Clone(*nodes)
	}
	return nil
}

// nodeReporter is a lock service whose nodes are real and report
// themselves (a Raft group's).
type nodeReporter interface{ status() []NodeStatus }
