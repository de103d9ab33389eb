package web

import (
	"slices"

	"github.com/leaselab/playground/engine"
)

// A consensus group serves while a majority of its nodes reach each
// other: a partition cuts off the nodes it leaves without a majority,
// listed on its side or not, and a leader on the majority's side goes on
// leading. Other backends' nodes are cut off when a partition lists them
// (a primary with an asynchronous replica serves its side; independent
// servers each serve their own).

// quorum reports whether the run's backend is a consensus group: one node
// leads the others, which its registry entry calls followers (not
// replicas, nor servers: a backend without roles, or whose nodes each
// hold the lock on their own).
func (s *State) quorum() bool {
	b, ok := engine.LookupBackend(s.Backend)
	return ok && b.Leader && b.Holds == "" && b.Follower == "follower"
}

// isolated reports whether the partitions in force leave node unable to
// reach a majority of the nodes, itself included.
func (s *State) isolated(node string) bool {
	reach := 0
	for _, n := range s.Nodes {
		if !slices.ContainsFunc(s.sides, func(p side) bool {
			return slices.Contains(p.members, n.Name) != slices.Contains(p.members, node)
		}) {
			reach++
		}
	}
	return 2*reach <= len(s.Nodes)
}

// regroup gives each node of a consensus group its role under the
// partitions in force: an isolated node is cut off, one that was cut off
// and reaches a majority again is a follower, a node down stays down,
// and the others keep their roles (a leader on the majority's side goes
// on leading).
func (s *State) regroup() {
	for i := range s.Nodes {
		n := &s.Nodes[i]
		switch {
		case n.Role == "down":
		case s.isolated(n.Name):
			n.Role = "cut off"
		case n.Role == "cut off":
			n.Role = s.followerRole()
		}
	}
}
