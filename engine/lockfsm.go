package engine

import (
	"fmt"
	"sync"
)

// Op is a command of the lock state machine.
type Op uint8

// The commands of the lock state machine.
const (
	OpAcquire Op = iota + 1
	OpRenew
	OpRelease
	OpCheck
)

// String names the command ("acquire").
func (o Op) String() string {
	switch o {
	case OpAcquire:
		return "acquire"
	case OpRenew:
		return "renew"
	case OpRelease:
		return "release"
	case OpCheck:
		return "check"
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Command is one request to the lock state machine. Now is the clock of the
// node that proposed it: replicas must apply the same bytes to reach the
// same state, so the time travels inside the command.
type Command struct {
	Op     Op
	Lock   string
	Client string
	Token  int64 // renew, release, check: the token the client holds
	Lease  int64 // acquire, renew: lease length in milliseconds
	Now    int64 // the proposing node's clock, milliseconds
	ReqID  uint64
}

// Reply is the state machine's answer.
type Reply struct {
	OK         bool
	Token      int64  // granted or held token
	LeaseUntil int64  // lease end by the state machine's clock
	Holder     string // current holder when refused
	Reason     string // why refused
	Now        int64  // the (monotonic) time the command was applied at
}

// LockFSM is the deterministic lock state machine that every backend keeps:
// a map of lock name to holder, token and lease end, and a token counter.
//
// Apply must be deterministic: its result depends only on the state and the
// command, never on the wall clock or randomness. A command's time is
// clamped so that time never runs backwards inside the machine. A retried
// command (same client and request id) is answered from memory and never
// applied twice.
type LockFSM struct {
	mu    sync.Mutex
	locks map[string]lockEntry
	next  int64 // the next token to hand out
	last  int64 // the latest time applied
	seen  map[string]seenReq
}

type lockEntry struct {
	Holder     string `json:"holder"`
	Token      int64  `json:"token"`
	LeaseUntil int64  `json:"lease_until"`
}

type seenReq struct {
	ID    uint64 `json:"id"`
	Reply Reply  `json:"reply"`
}

// NewLockFSM returns an empty state machine whose first token is first.
func NewLockFSM(first int64) *LockFSM {
	return &LockFSM{locks: map[string]lockEntry{}, next: first, seen: map[string]seenReq{}}
}

// Apply runs one command.
func (f *LockFSM) Apply(c Command) Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.seen[c.Client]; ok && c.ReqID != 0 && s.ID == c.ReqID {
		return s.Reply
	}
	r := f.apply(c)
	if c.ReqID != 0 {
		f.seen[c.Client] = seenReq{ID: c.ReqID, Reply: r}
	}
	return r
}

func (f *LockFSM) apply(c Command) Reply {
	now := max(c.Now, f.last)
	f.last = now
	e, held := f.locks[c.Lock]
	valid := held && now < e.LeaseUntil
	switch c.Op {
	case OpAcquire:
		if valid && e.Holder != c.Client {
			return Reply{Holder: e.Holder, Token: e.Token, LeaseUntil: e.LeaseUntil, Now: now,
				Reason: fmt.Sprintf("held by %s (token %d) until %s", e.Holder, e.Token, FormatMS(e.LeaseUntil))}
		}
		if valid {
			// The holder asks again (its answer was lost): same grant.
			return Reply{OK: true, Token: e.Token, LeaseUntil: e.LeaseUntil, Holder: e.Holder, Now: now}
		}
		e = lockEntry{Holder: c.Client, Token: f.next, LeaseUntil: now + c.Lease}
		f.next++
		f.locks[c.Lock] = e
		return Reply{OK: true, Token: e.Token, LeaseUntil: e.LeaseUntil, Holder: e.Holder, Now: now}
	case OpRenew, OpCheck:
		if reason := f.refusal(c, e, held, valid); reason != "" {
			return Reply{Holder: e.Holder, Token: e.Token, Reason: reason, Now: now}
		}
		if c.Op == OpRenew {
			e.LeaseUntil = now + c.Lease
			f.locks[c.Lock] = e
		}
		return Reply{OK: true, Token: e.Token, LeaseUntil: e.LeaseUntil, Holder: e.Holder, Now: now}
	case OpRelease:
		// An expired lease may still be given back by its holder.
		if reason := f.refusal(c, e, held, true); reason != "" {
			return Reply{Holder: e.Holder, Token: e.Token, Reason: reason, Now: now}
		}
		delete(f.locks, c.Lock)
		return Reply{OK: true, Token: c.Token, Now: now}
	}
	return Reply{Reason: "unknown command " + c.Op.String(), Now: now}
}

// refusal says why a renew, check or release by c.Client naming c.Token
// fails, or "". Holder and token must both match: after a token was handed
// out twice (a restart that forgot a grant, a replica that never got it),
// the old holder carries the new holder's token, and must not extend,
// vouch for or give back the new holder's lease.
func (f *LockFSM) refusal(c Command, e lockEntry, held, valid bool) string {
	switch {
	case !held:
		return fmt.Sprintf("token %d is not held: the lock is free", c.Token)
	case e.Token != c.Token:
		return fmt.Sprintf("token %d is not current: %s holds token %d", c.Token, e.Holder, e.Token)
	case e.Holder != c.Client:
		return fmt.Sprintf("token %d is held by %s, not %s: the token was handed out twice", c.Token, e.Holder, c.Client)
	case !valid:
		return fmt.Sprintf("the lease of token %d ran out at %s", c.Token, FormatMS(e.LeaseUntil))
	}
	return ""
}

// Answer returns the reply the machine gave the client's request id, if
// that is the client's latest request: a Raft leader reads it here instead
// of from the log entry's response, which would cost an allocation on
// every node for every command.
func (f *LockFSM) Answer(client string, id uint64) (Reply, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.seen[client]
	if !ok || id == 0 || s.ID != id {
		return Reply{}, false
	}
	return s.Reply, true
}

// Entry reports a lock's holder, token and lease end as the state machine
// records them (a holder whose lease ran out stays until replaced).
func (f *LockFSM) Entry(lock string) (holder string, token, leaseUntil int64, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.locks[lock]
	return e.Holder, e.Token, e.LeaseUntil, ok
}

// NextToken reports the token the next grant will carry.
func (f *LockFSM) NextToken() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next
}

// fsmState is the serialised form of a LockFSM (snapshots, persistence).
type fsmState struct {
	Locks map[string]lockEntry `json:"locks"`
	Next  int64                `json:"next"`
	Last  int64                `json:"last"`
	Seen  map[string]seenReq   `json:"seen"`
}

// state copies the machine's state.
func (f *LockFSM) state() fsmState {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := fsmState{Locks: make(map[string]lockEntry, len(f.locks)), Next: f.next, Last: f.last, Seen: make(map[string]seenReq, len(f.seen))}
	for k, v := range f.locks {
		st.Locks[k] = v
	}
	for k, v := range f.seen {
		st.Seen[k] = v
	}
	return st
}

// restore replaces the machine's state with a copy of st.
func (f *LockFSM) restore(st fsmState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.locks = make(map[string]lockEntry, len(st.Locks))
	for k, v := range st.Locks {
		f.locks[k] = v
	}
	f.seen = make(map[string]seenReq, len(st.Seen))
	for k, v := range st.Seen {
		f.seen[k] = v
	}
	f.next, f.last = st.Next, st.Last
}
