package engine

import (
	"encoding/json"
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

// String names the command ("acquire"); a backend's own commands are
// named by its entry.
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
	if name, ok := backendOpName(o); ok {
		return name // a backend's own command (its entry's ops)
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
	// Delay is an acquire's lock-delay (Chubby's, chosen by the client
	// that takes the lock): when the lease it grants ends without a
	// release, nobody is granted the lock for this long.
	Delay int64
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
// a table of locks (holder, token and lease end), a token counter, and each
// client's latest request and its reply.
//
// Apply must be deterministic: its result depends only on the state and the
// command, never on the wall clock or randomness. A command's time is
// clamped so that time never runs backwards inside the machine. A retried
// command (same client and request id) is answered from memory and never
// applied twice.
//
// Each lock ever granted and each client that sent a request id has a
// slot, which the machine finds with one map lookup and updates in place.
// A client's slot points to the slot of the lock it last named, so a
// client that stays on one lock (a run's clients do, and a benchmark's)
// costs one lookup a command, whether it grants, renews or releases. A
// released lock keeps its slot, free, for its next grant (up to
// maxFreeLocks free slots).
type LockFSM struct {
	mu      sync.Mutex
	locks   map[string]*lockSlot
	clients map[string]*clientSlot
	next    int64 // the next token to hand out
	last    int64 // the latest time applied
	// store is the backend's own part of the machine (fsmstore.go): its
	// commands and what it keeps beside the table; nil for the plain lease
	// table. rules are the store's, kept here for the common commands.
	store fsmStore
	rules fsmRules
}

type lockEntry struct {
	Holder     string `json:"holder"`
	Token      int64  `json:"token"`
	LeaseUntil int64  `json:"lease_until"`
	// TTL is the lease's length (a store may give a lease its length
	// again); Delay the lock-delay its holder asked for.
	TTL   int64 `json:"ttl,omitempty"`
	Delay int64 `json:"delay,omitempty"`
}

type seenReq struct {
	ID    uint64 `json:"id"`
	Reply Reply  `json:"reply"`
}

// lockSlot is one lock's record; a free slot (held false) is a lock no one
// holds, as if it were not in the table.
type lockSlot struct {
	name string
	held bool
	// dropped: the slot left the table (maxFreeLocks); a client's slot
	// that still points to it looks the lock up again.
	dropped bool
	e       lockEntry
	// delayUntil: a lease ended here without a release, and its lock-delay
	// keeps the free lock from being granted until then.
	delayUntil int64
}

// clientSlot is one client's record; seen is its latest request with a
// request id, once it sent one (has). lock is the slot of the lock its
// latest command named, if that lock had a slot then: a hint, which
// applyEncodedLocked checks (the name, and that the slot was not dropped)
// before it saves a lookup.
type clientSlot struct {
	name string
	has  bool
	seen seenReq
	lock *lockSlot
}

// maxFreeLocks bounds the free slots a machine keeps: a lock released
// while the table has more slots than this loses its slot. A run has one
// lock; only a benchmark's many clients on many locks come near it.
const maxFreeLocks = 1024

// NewLockFSM returns an empty state machine whose first token is first.
func NewLockFSM(first int64) *LockFSM {
	return &LockFSM{locks: map[string]*lockSlot{}, clients: map[string]*clientSlot{}, next: first}
}

// Apply runs one command.
func (f *LockFSM) Apply(c Command) Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.applyAt(f.locks[c.Lock], f.clients[c.Client], &c)
}

// applyEncoded decodes an encoded command and runs it. The lock and client
// names are looked up straight from the encoded bytes, so a command on a
// lock and by a client the machine has records of allocates nothing; the
// command it runs carries the records' own copies of the names, or fresh
// ones, never the caller's bytes.
func (f *LockFSM) applyEncoded(b []byte) (Reply, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.applyEncodedLocked(b)
}

// applyEncodedLocked is applyEncoded for a caller that holds f.mu: a Raft
// node applying a batch of entries locks its machine once.
func (f *LockFSM) applyEncodedLocked(b []byte) (Reply, error) {
	var c Command
	lock, client, err := decodeFields(b, &c)
	if err != nil {
		return Reply{}, err
	}
	cl := f.clients[string(client)]
	var l *lockSlot
	if cl != nil && cl.lock != nil && !cl.lock.dropped && cl.lock.name == string(lock) {
		l = cl.lock
	} else {
		l = f.locks[string(lock)]
	}
	if l != nil {
		c.Lock = l.name
	} else {
		c.Lock = string(lock)
	}
	if cl != nil {
		c.Client = cl.name
	} else {
		c.Client = string(client)
	}
	return f.applyAt(l, cl, &c), nil
}

// applyAt runs c on its lock's and client's slots (nil when the machine
// has none), answering a retried request from memory. A client gets a slot
// when it first sends a request id, a lock when it is first granted.
func (f *LockFSM) applyAt(l *lockSlot, cl *clientSlot, c *Command) Reply {
	if cl != nil && cl.has && c.ReqID != 0 && cl.seen.ID == c.ReqID {
		return cl.seen.Reply
	}
	r := f.apply(l, c)
	if c.ReqID != 0 {
		if cl == nil {
			cl = &clientSlot{name: c.Client}
			f.clients[c.Client] = cl
		}
		cl.has, cl.seen = true, seenReq{ID: c.ReqID, Reply: r}
	}
	if cl != nil {
		if l == nil || l.dropped {
			l = f.locks[c.Lock] // granted a new slot, or none
		}
		cl.lock = l
	}
	return r
}

func (f *LockFSM) apply(l *lockSlot, c *Command) Reply {
	now := max(c.Now, f.last)
	f.last = now
	if f.store != nil {
		if r, ok := f.store.apply(f, l, *c, now); ok {
			return r
		}
	}
	var e lockEntry
	held := l != nil && l.held
	if held {
		e = l.e
	}
	valid := held && now < e.LeaseUntil
	if f.rules.keysStand {
		// The key stands until a command deletes it, whatever a clock
		// says.
		valid = held
	}
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
		if until := f.delayedUntil(l, held, now); now < until {
			return Reply{Holder: e.Holder, Token: e.Token, Now: now,
				Reason: fmt.Sprintf("lock-delay: the last lease ended without a release; nobody gets the lock until %s", FormatMS(until))}
		}
		if l == nil {
			l = &lockSlot{name: c.Lock}
			f.locks[c.Lock] = l
		}
		e = lockEntry{Holder: c.Client, Token: f.next, LeaseUntil: now + c.Lease, TTL: c.Lease, Delay: c.Delay}
		f.next++
		l.e, l.held, l.delayUntil = e, true, 0
		return Reply{OK: true, Token: e.Token, LeaseUntil: e.LeaseUntil, Holder: e.Holder, Now: now}
	case OpRenew, OpCheck:
		if c.Op == OpRenew && f.rules.keysStand && held && now >= e.LeaseUntil {
			valid = false // a lease that ran out waits for its delete: no keep-alive
		}
		if reason := f.refusal(c, &e, held, valid, now); reason != "" {
			return Reply{Holder: e.Holder, Token: e.Token, Reason: reason, Now: now}
		}
		if c.Op == OpRenew {
			l.e.LeaseUntil = now + c.Lease
			e = l.e
		}
		return Reply{OK: true, Token: e.Token, LeaseUntil: e.LeaseUntil, Holder: e.Holder, Now: now}
	case OpRelease:
		// An expired lease may still be given back by its holder.
		if reason := f.refusal(c, &e, held, true, now); reason != "" {
			return Reply{Holder: e.Holder, Token: e.Token, Reason: reason, Now: now}
		}
		l.e, l.held, l.delayUntil = lockEntry{}, false, 0
		if f.rules.writesCount {
			f.next++ // the key's delete is a write
		}
		if len(f.locks) > maxFreeLocks {
			delete(f.locks, l.name)
			l.dropped = true
		}
		return Reply{OK: true, Token: c.Token, Now: now}
	}
	return Reply{Reason: "unknown command " + c.Op.String(), Now: now}
}

// delayedUntil is when the lock-delay of the lease that last ended on l
// without a release lets the lock be granted again (0: none). A held key
// whose lease ran out (on a store whose keys do not stand until deleted)
// is such a lease.
func (f *LockFSM) delayedUntil(l *lockSlot, held bool, now int64) int64 {
	switch {
	case l == nil:
		return 0
	case held && !f.rules.keysStand:
		return l.e.LeaseUntil + l.e.Delay
	case !held:
		return l.delayUntil
	}
	return 0
}

// refusal says why a renew, check or release by c.Client naming c.Token
// fails at now, or "". Holder and token must both match: after a token was
// handed out twice (a restart that forgot a grant, a replica that never
// got it), the old holder carries the new holder's token, and must not
// extend, vouch for or give back the new holder's lease. The record's
// holder is said to hold the lock only while its lease runs by the
// machine's time; once it ran out (its key not deleted yet) the holder
// was granted it, which stays true whatever any clock says.
func (f *LockFSM) refusal(c *Command, e *lockEntry, held, valid bool, now int64) string {
	ran := held && !f.rules.keysStand && now >= e.LeaseUntil
	switch {
	case !held:
		return fmt.Sprintf("token %d is not held: the lock is free", c.Token)
	case e.Token != c.Token && ran:
		return fmt.Sprintf("token %d is not current: %s was granted token %d", c.Token, e.Holder, e.Token)
	case e.Token != c.Token:
		return fmt.Sprintf("token %d is not current: %s holds token %d", c.Token, e.Holder, e.Token)
	case e.Holder != c.Client && ran:
		return fmt.Sprintf("token %d was granted to %s, not %s: the token was handed out twice", c.Token, e.Holder, c.Client)
	case e.Holder != c.Client:
		return fmt.Sprintf("token %d is held by %s, not %s: the token was handed out twice", c.Token, e.Holder, c.Client)
	case !valid:
		return ranOutWords(c.Token, e.LeaseUntil)
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
	cl := f.clients[client]
	if cl == nil || !cl.has || id == 0 || cl.seen.ID != id {
		return Reply{}, false
	}
	return cl.seen.Reply, true
}

// Entry reports a lock's holder, token and lease end as the state machine
// records them (a holder whose lease ran out stays until replaced).
func (f *LockFSM) Entry(lock string) (holder string, token, leaseUntil int64, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.locks[lock]
	if l == nil || !l.held {
		return "", 0, 0, false
	}
	return l.e.Holder, l.e.Token, l.e.LeaseUntil, true
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
	// Store is what the machine's store keeps beside the table
	// (fsmStore.save).
	Store json.RawMessage `json:"store,omitempty"`
}

// state copies the machine's state.
func (f *LockFSM) state() fsmState {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := fsmState{Locks: map[string]lockEntry{}, Next: f.next, Last: f.last, Seen: map[string]seenReq{}}
	if f.store != nil {
		st.Store = f.store.save()
	}
	for k, l := range f.locks {
		if l.held {
			st.Locks[k] = l.e
		}
	}
	for k, cl := range f.clients {
		if cl.has {
			st.Seen[k] = cl.seen
		}
	}
	return st
}

// restore replaces the machine's state with a copy of st, which a machine
// of the same kind made: its store not loading its own save is a defect
// (a run that meets one ends with an internal error).
func (f *LockFSM) restore(st fsmState) {
	if err := f.restoreFrom(st); err != nil {
		panic(fmt.Sprintf("lock state machine: %v", err))
	}
}

// restoreFrom replaces the machine's state with a copy of st, read from
// outside (a Raft snapshot), and says whether the store could load its
// part; the lock table is restored either way.
func (f *LockFSM) restoreFrom(st fsmState) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.locks = make(map[string]*lockSlot, len(st.Locks))
	for k, e := range st.Locks {
		f.locks[k] = &lockSlot{name: k, held: true, e: e}
	}
	f.clients = make(map[string]*clientSlot, len(st.Seen))
	for k, s := range st.Seen {
		f.clients[k] = &clientSlot{name: k, has: true, seen: s}
	}
	f.next, f.last = st.Next, st.Last
	if f.store != nil {
		if err := f.store.load(st.Store); err != nil {
			return fmt.Errorf("its store cannot load %d bytes: %w", len(st.Store), err)
		}
	}
	return nil
}
