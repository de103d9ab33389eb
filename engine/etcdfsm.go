package engine

import "encoding/json"

// etcd's own commands of the lock state machine (its store's): the
// leader's revoke of a lease that ran out by its clock, a new leader's
// extension of every lease it inherits, and a client's write guarded by
// its lock key's create revision.
const (
	opRevoke Op = firstBackendOp + iota
	opExtend
	opTxn
)

// etcdOps names them (the entry's ops).
var etcdOps = []OpName{{opRevoke, "revoke"}, {opExtend, "extend"}, {opTxn, "txn"}}

// etcdStore makes a node's machine etcd's store: the token counter is the
// store's revision, which every write bumps (a grant's put, a release's or
// a revoke's delete, a guarded write), so a token is its key's create
// revision; a lease that ran out holds the key until the leader revokes it
// (opRevoke). It keeps nothing beside the lock table.
type etcdStore struct{}

func (etcdStore) rules() fsmRules { return fsmRules{keysStand: true, writesCount: true} }

func (etcdStore) save() json.RawMessage      { return nil }
func (etcdStore) load(json.RawMessage) error { return nil }
func (s etcdStore) empty() fsmStore          { return s }

func (etcdStore) apply(f *LockFSM, l *lockSlot, c Command, now int64) (Reply, bool) {
	var e lockEntry
	held := l != nil && l.held
	if held {
		e = l.e
	}
	switch c.Op {
	case opRevoke:
		// The leader revokes the lease it saw run out; a lease renewed or
		// extended in the meantime stays.
		if !held || e.Token != c.Token || now < e.LeaseUntil {
			return Reply{Holder: e.Holder, Token: e.Token, LeaseUntil: e.LeaseUntil, Now: now, Reason: "the lease is not due"}, true
		}
		l.e, l.held = lockEntry{}, false
		l.delayUntil = now + e.Delay
		f.next++ // the key's delete is a write
		return Reply{OK: true, Token: f.next - 1, Holder: e.Holder, LeaseUntil: l.delayUntil, Now: now}, true
	case opExtend:
		// A new leader gives every lease it inherits its full TTL again.
		r := Reply{Now: now}
		for _, x := range f.locks {
			if x.held {
				x.e.LeaseUntil = max(x.e.LeaseUntil, now+x.e.TTL)
				r.OK, r.Holder, r.Token, r.LeaseUntil = true, x.e.Holder, x.e.Token, x.e.LeaseUntil
			}
		}
		return r, true
	case opTxn:
		// Compare the lock key's create revision with the writer's token;
		// on success the put is a write of its own.
		if reason := f.refusal(&c, &e, held, true, now); reason != "" {
			return Reply{Holder: e.Holder, Token: e.Token, Reason: "compare failed: " + reason, Now: now}, true
		}
		f.next++
		return Reply{OK: true, Token: f.next - 1, Holder: e.Holder, Now: now}, true
	}
	return Reply{}, false
}
