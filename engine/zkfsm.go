package engine

import (
	"encoding/json"
	"fmt"
	"slices"
)

// The ZooKeeper commands of the lock state machine. The zookeeper backend
// turns a client's acquire, renew, check and release into these before
// they reach the log, so the same Raft group keeps a ZooKeeper-shaped
// state: sessions with a timeout, and per lock the ephemeral sequential
// nodes of its waiters, in order. Every transaction takes the next zxid
// (the machine's token counter), so a node's czxid is the zxid of its
// create: tokens grow, but a session's creation, a delete or a session
// closed in between also take one, so they are not consecutive.
const (
	opZKLock    Op = iota + 16 // create the client's node if it has none, then see whether it is lowest
	opZKRenew                  // a holder's heartbeat: touch its session, confirm its node
	opZKCheck                  // exists(own node), and the node is lowest
	opZKRelease                // delete the client's node
	opZKPing                   // a waiter's heartbeat: touch its session
	opZKExpire                 // the leader closes every session whose timeout passed
)

// zkOpNames name them (the entry's ops).
var zkOpNames = []OpName{{opZKLock, "zk-lock"}, {opZKRenew, "zk-renew"}, {opZKCheck, "zk-check"},
	{opZKRelease, "zk-release"}, {opZKPing, "zk-ping"}, {opZKExpire, "zk-expire"}}

// zkStore is a node's machine as ZooKeeper's (the entry's store): it keeps
// the sessions and lock nodes beside the lock table, once a ZooKeeper
// command came, and runs every ZooKeeper command.
type zkStore struct{ z *zkState }

func (*zkStore) rules() fsmRules { return fsmRules{} }
func (*zkStore) empty() fsmStore { return &zkStore{} }

func (s *zkStore) save() json.RawMessage {
	if s.z == nil {
		return nil
	}
	b, err := json.Marshal(s.z)
	if err != nil {
		panic(err) // maps of strings and numbers always marshal
	}
	return b
}

func (s *zkStore) load(saved json.RawMessage) error {
	s.z = nil
	if len(saved) == 0 {
		return nil
	}
	z := &zkState{}
	if err := json.Unmarshal(saved, z); err != nil {
		return err
	}
	s.z = z
	return nil
}

func (s *zkStore) apply(f *LockFSM, _ *lockSlot, c Command, now int64) (Reply, bool) {
	if c.Op < opZKLock || c.Op > opZKExpire {
		return Reply{}, false
	}
	if s.z == nil {
		s.z = &zkState{Sessions: map[string]zkSession{}, Nodes: map[string][]zkNode{}, Seq: map[string]int64{}}
	}
	return s.z.apply(f, &c, now), true
}

// zkState is the ZooKeeper part of a LockFSM: sessions by client, and the
// lock nodes of each lock in sequence order.
type zkState struct {
	Sessions map[string]zkSession `json:"sessions"`
	Nodes    map[string][]zkNode  `json:"nodes"`
	// Seq is each lock's next sequence number (ZooKeeper's cversion of
	// the parent: it only grows).
	Seq map[string]int64 `json:"seq"`
}

// zkSession is one client's session: its id (the zxid that created it),
// its timeout and when it runs out by the machine's clock unless the
// client is heard from again.
type zkSession struct {
	ID       int64 `json:"id"`
	Timeout  int64 `json:"timeout"`
	Deadline int64 `json:"deadline"`
}

// zkNode is one ephemeral sequential node under a lock.
type zkNode struct {
	Name  string `json:"name"` // lock-0000000003
	Owner string `json:"owner"`
	Czxid int64  `json:"czxid"`
}

// zxid hands out the next transaction id.
func (f *LockFSM) zxid() int64 {
	z := f.next
	f.next++
	return z
}

// apply runs one ZooKeeper command on f at time now; f's slot of the lock
// which is kept equal to the lock's lowest node (its holder, czxid and
// session deadline), so that everything that reads a lock's record reads
// ZooKeeper's answer to "who holds it".
func (z *zkState) apply(f *LockFSM, c *Command, now int64) Reply {
	defer z.sync(f, c.Lock)
	if c.Op == opZKExpire {
		return z.expire(f, now)
	}
	s, live := z.Sessions[c.Client]
	if live {
		// Any request from a client proves it alive: its session's timer
		// starts again.
		s.Deadline = now + s.Timeout
		z.Sessions[c.Client] = s
	}
	nodes := z.Nodes[c.Lock]
	mine := slices.IndexFunc(nodes, func(n zkNode) bool { return n.Owner == c.Client })
	switch c.Op {
	case opZKLock:
		if !live {
			// A client without a session (its first request, or its
			// session expired) opens a new one: a transaction of its own.
			s = zkSession{ID: f.zxid(), Timeout: c.Lease, Deadline: now + c.Lease}
			z.Sessions[c.Client] = s
		}
		if mine < 0 {
			seq := z.Seq[c.Lock]
			z.Seq[c.Lock] = seq + 1
			nodes = append(nodes, zkNode{Name: fmt.Sprintf("lock-%010d", seq), Owner: c.Client, Czxid: f.zxid()})
			z.Nodes[c.Lock] = nodes
			mine = len(nodes) - 1
		}
		n := nodes[mine]
		if mine == 0 {
			return Reply{OK: true, Token: n.Czxid, LeaseUntil: s.Deadline, Holder: c.Client, Now: now, Reason: n.Name}
		}
		p := nodes[mine-1]
		return Reply{Holder: p.Owner, Token: p.Czxid, Now: now,
			Reason: fmt.Sprintf("%s is not the lowest node: it watches %s (%s's, czxid %d)", n.Name, p.Name, p.Owner, p.Czxid)}
	case opZKPing:
		if !live {
			return Reply{Now: now, Reason: "the session expired"}
		}
		return Reply{OK: true, LeaseUntil: s.Deadline, Now: now}
	}
	// renew, check, release: only with the node the token names.
	var reason string
	switch {
	case mine < 0 || nodes[mine].Czxid != c.Token:
		reason = fmt.Sprintf("token %d is not a node of %s: its node is gone", c.Token, c.Client)
		if !live {
			reason = fmt.Sprintf("token %d is not held: %s's session expired and its node was deleted", c.Token, c.Client)
		}
	case mine > 0 && c.Op != opZKRelease:
		reason = fmt.Sprintf("token %d is not the lowest node: %s holds czxid %d", c.Token, nodes[0].Owner, nodes[0].Czxid)
	}
	if reason != "" {
		r := Reply{Now: now, Reason: reason}
		if len(nodes) > 0 {
			r.Holder, r.Token = nodes[0].Owner, nodes[0].Czxid
		}
		return r
	}
	if c.Op == opZKRelease {
		f.zxid() // the delete is a transaction
		z.Nodes[c.Lock] = slices.Delete(nodes, mine, mine+1)
		return Reply{OK: true, Token: c.Token, Now: now}
	}
	return Reply{OK: true, Token: c.Token, LeaseUntil: s.Deadline, Holder: c.Client, Now: now}
}

// zkExpire closes every session whose deadline passed by now, each one
// transaction that deletes its ephemeral nodes. The reply names the
// clients whose sessions closed (Reason, comma-separated), for the
// service to tell.
func (z *zkState) expire(f *LockFSM, now int64) Reply {
	var closed []string
	for _, name := range sortedNames(z.Sessions) {
		if z.Sessions[name].Deadline > now {
			continue
		}
		f.zxid()
		delete(z.Sessions, name)
		closed = append(closed, name)
		for lock, nodes := range z.Nodes {
			z.Nodes[lock] = slices.DeleteFunc(nodes, func(n zkNode) bool { return n.Owner == name })
		}
	}
	r := Reply{OK: len(closed) > 0, Now: now}
	for i, n := range closed {
		if i > 0 {
			r.Reason += ","
		}
		r.Reason += n
	}
	for lock := range z.Nodes {
		z.sync(f, lock)
	}
	return r
}

// sync makes f's slot of the lock say what its lowest node says.
func (z *zkState) sync(f *LockFSM, lock string) {
	nodes := z.Nodes[lock]
	l := f.locks[lock]
	if len(nodes) == 0 {
		if l != nil {
			l.e, l.held = lockEntry{}, false
		}
		return
	}
	if l == nil {
		l = &lockSlot{name: lock}
		f.locks[lock] = l
	}
	n := nodes[0]
	l.held = true
	l.e = lockEntry{Holder: n.Owner, Token: n.Czxid, LeaseUntil: z.Sessions[n.Owner].Deadline}
}

// zkView is what the service reads of one lock: its nodes in order, and
// each owner's session deadline.
type zkView struct {
	Nodes     []zkNode
	Deadlines map[string]int64
}

// zkViewOf reports a lock's nodes on f in sequence order and the earliest
// session deadline (0 when no session is open), for the service that
// expires sessions and delivers watches.
func zkViewOf(f *LockFSM, lock string) (v zkView, earliest int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, _ := f.store.(*zkStore)
	if s == nil || s.z == nil {
		return zkView{}, 0
	}
	z := s.z
	v.Nodes = slices.Clone(z.Nodes[lock])
	v.Deadlines = map[string]int64{}
	for _, name := range sortedNames(z.Sessions) {
		d := z.Sessions[name].Deadline
		v.Deadlines[name] = d
		if earliest == 0 || d < earliest {
			earliest = d
		}
	}
	return v, earliest
}
