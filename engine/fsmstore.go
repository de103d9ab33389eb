package engine

import (
	"encoding/json"
	"fmt"
	"sync"
)

// fsmStore is a backend's own part of the lock state machine: the commands
// only its backend sends, how the common commands behave on its store, and
// whatever it keeps beside the lock table. A backend's entry makes one for
// each node's machine (Backend.store); a machine without one is the plain
// lease table. Everything a store does happens inside Apply, under the
// machine's lock, and must be as deterministic as the machine itself.
type fsmStore interface {
	// rules say how the common commands behave on this store.
	rules() fsmRules
	// apply runs c at time now on the machine f, whose lock it holds, or
	// reports false when the common machine is to run it. l is c.Lock's
	// slot (nil when the machine has none). c is a copy, so that the
	// common machine's command never escapes to the heap.
	apply(f *LockFSM, l *lockSlot, c Command, now int64) (Reply, bool)
	// save copies what the store keeps beside the lock table, for a
	// snapshot or a save (nil: nothing); load replaces it with such a copy
	// (nil: empty).
	save() json.RawMessage
	load(saved json.RawMessage) error
	// empty is a store of the same kind with nothing in it, for a new
	// machine that must behave like this one.
	empty() fsmStore
}

// fsmRules are how a store changes the common commands.
type fsmRules struct {
	// keysStand: a granted lock stays held until a command deletes it,
	// whatever a clock says, and a renewal of a lease that ran out is
	// refused (the key waits for its revoke).
	keysStand bool
	// writesCount: every write to the store takes a number from the token
	// counter, a release's delete too, so tokens grow but skip.
	writesCount bool
}

// setStore makes s the machine's store (nil: none).
func (f *LockFSM) setStore(s fsmStore) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.store, f.rules = s, fsmRules{}
	if s != nil {
		f.rules = s.rules()
	}
}

// blank is an empty machine of the same kind as f (the same store, empty),
// whose first token is first.
func (f *LockFSM) blank(first int64) *LockFSM {
	g := NewLockFSM(first)
	if f.store != nil {
		g.setStore(f.store.empty())
	}
	return g
}

// newFSM is an empty machine for one of the run's nodes: the scenario's
// first token, and the store its backend's entry declares.
func (w *world) newFSM() *LockFSM {
	f := NewLockFSM(w.sc.Lock.FirstToken)
	if w.backend != nil && w.backend.store != nil {
		f.setStore(w.backend.store())
	}
	return f
}

// simNodes are count fresh nodes for the run, each machine with its
// backend's store.
func (w *world) simNodes(count int) []*simNode {
	nodes := newSimNodes(count, w.sc.Lock.FirstToken)
	if w.backend != nil && w.backend.store != nil {
		for _, n := range nodes {
			n.fsm.setStore(w.backend.store())
		}
	}
	return nodes
}

// OpName is a command a backend's store adds to the lock state machine,
// with the name the timeline and the history give it.
type OpName struct {
	Op   Op
	Name string
}

// firstBackendOp is the lowest number a backend's own command may take:
// the ones below are the common commands.
const firstBackendOp = OpCheck + 1

var (
	opNamesMu sync.RWMutex
	// opNames are the registered backends' commands' names, with how many
	// entries declare each (a copy of an entry under another name declares
	// the same).
	opNames = map[Op]opNameUse{}
)

type opNameUse struct {
	name string
	uses int
}

// registerOps records an entry's commands' names, refusing a common
// command's number or a number another entry gives another name.
func registerOps(backend string, ops []OpName) error {
	opNamesMu.Lock()
	defer opNamesMu.Unlock()
	for _, o := range ops {
		if o.Op < firstBackendOp || o.Name == "" {
			return fmt.Errorf("backend %q: its command %d %q needs a name and a number from %d", backend, o.Op, o.Name, firstBackendOp)
		}
		if u, ok := opNames[o.Op]; ok && u.name != o.Name {
			return fmt.Errorf("backend %q: command %d is %q already, not %q", backend, o.Op, u.name, o.Name)
		}
	}
	for _, o := range ops {
		u := opNames[o.Op]
		opNames[o.Op] = opNameUse{o.Name, u.uses + 1}
	}
	return nil
}

// unregisterOps forgets an entry's commands (once no entry declares them).
func unregisterOps(ops []OpName) {
	opNamesMu.Lock()
	defer opNamesMu.Unlock()
	for _, o := range ops {
		if u := opNames[o.Op]; u.uses > 1 {
			opNames[o.Op] = opNameUse{u.name, u.uses - 1}
		} else {
			delete(opNames, o.Op)
		}
	}
}

// backendOpName is the name a registered backend gives op, if any.
func backendOpName(op Op) (string, bool) {
	opNamesMu.RLock()
	defer opNamesMu.RUnlock()
	u, ok := opNames[op]
	return u.name, ok
}
