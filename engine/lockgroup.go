package engine

import (
	"context"
)

// LockGroup is the engine's Raft lock group on its own, outside any
// scenario: the same hashicorp/raft nodes, in-memory transport and stores,
// lock state machine and commit path that a run's lock service uses, with
// node-1 leading. It exists so that benchmarks (engine's own and the etcd
// comparison in engine/etcdbench) measure exactly what runs use. Its
// methods are safe for concurrent use.
type LockGroup struct {
	svc *raftService
}

// NewLockGroup boots a group of nodes voters (1, 3 or 5) whose first token
// is 1. Close it when done.
func NewLockGroup(nodes int) (*LockGroup, error) {
	if nodes != 1 && nodes != 3 && nodes != 5 {
		return nil, fieldErr("nodes", "must be 1, 3 or 5, not %d", nodes)
	}
	svc, err := bootRaft(waiter{ctx: context.Background()}, nodes)
	if err != nil {
		return nil, err
	}
	return &LockGroup{svc: svc}, nil
}

// Do applies one command through the leader and returns the state
// machine's answer once a majority stored it. Commands of one client must
// carry increasing request ids (ReqID); Now is the time the state machine
// judges leases by, in milliseconds.
func (g *LockGroup) Do(cmd Command) (Reply, error) {
	return g.svc.commit(g.svc.nodes[g.svc.leader], cmd)
}

// ApplyBare commits an empty entry through the same leader: a bare
// raft.Apply, with nothing for the state machine to decode or apply, and
// the same patience with the group's hiccups as Do. It is the ceiling that
// Do is compared with.
func (g *LockGroup) ApplyBare() error {
	_, err := g.svc.apply(g.svc.nodes[g.svc.leader], nil)
	return err
}

// Close shuts the group down and waits for it.
func (g *LockGroup) Close() error { return g.svc.close() }
