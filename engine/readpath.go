package engine

import "fmt"

// How a check step reads the lock (step.read).
const (
	// ReadLog sends the check through the log like any command: the
	// answer is the group's committed state now (linearizable).
	ReadLog = "log"
	// ReadLease asks the node that believes it leads, which answers from
	// its own state, without the log, while its leader lease lasts by its
	// own clock.
	ReadLease = "lease"
	// ReadFollower asks any node, which answers from its own state: what
	// it has heard of the log so far.
	ReadFollower = "follower"
)

// readModes lists step.read's values.
var readModes = []string{ReadLog, ReadLease, ReadFollower}

// localReader is a lock service whose nodes can answer a read from their
// own state (a Raft group, and a backend built on one).
type localReader interface {
	// localRead names the node that answers the client's read in that
	// mode and returns what that node holds of the lock, with its clock
	// and a few words on why it may answer; ok is false when no node
	// would.
	localRead(client, mode, lock string) (e lockEntry, held bool, node string, clk *nodeClock, why string, ok bool)
}

// validateRead checks a step's read: only a check reads the lock, and
// reads that skip the log need a backend whose nodes keep the state.
func validateRead(sc *Scenario, sp string, st Step) error {
	if st.Read == "" {
		return nil
	}
	if st.Do != StepCheck {
		return fieldErr(sp+".read", "only a check step takes a read mode")
	}
	found := false
	for _, m := range readModes {
		found = found || m == st.Read
	}
	if !found {
		return fieldErr(sp+".read", "must be %s, not %q", orList(readModes), st.Read)
	}
	if st.Read == ReadLog {
		return nil
	}
	b := backendEntry(sc.Lock.Backend)
	if b == nil || !b.localReads {
		return fieldErr(sp+".read", "a %q read needs a backend whose nodes answer from their own state (%s), not %s", st.Read, orList(localReadBackends()), sc.Lock.Backend)
	}
	return nil
}

// localReadBackends names the backends that take lease and follower reads.
func localReadBackends() []string {
	var out []string
	for _, name := range Backends() {
		if b := backendEntry(name); b != nil && b.localReads {
			out = append(out, name)
		}
	}
	return out
}

// spread copies the lock's committed record to every node that heard the
// commit: the leader nd and the running nodes it reaches. A node cut off
// from it (or down) keeps the copy it had: it lags. The caller holds s.mu.
func (s *raftService) spread(nd *raftNode, lock string) {
	if s.w == nil {
		return
	}
	if s.views == nil {
		s.views = map[string]map[string]lockEntry{}
	}
	e, held := s.last[lock]
	for _, x := range s.nodes {
		if x != nd && (!x.up() || !s.connected(nd.name, x.name)) {
			continue
		}
		v := s.views[x.name]
		if v == nil {
			v = map[string]lockEntry{}
			s.views[x.name] = v
		}
		if held {
			v[lock] = e
		} else {
			delete(v, lock)
		}
	}
}

// localRead answers a lease read at the leader the client can reach (the
// serving one, or a deposed one whose leader lease has not run out by its
// own clock), and a follower read at the last running node the client
// reaches (a follower while node-1 leads).
func (s *raftService) localRead(client, mode, lock string) (lockEntry, bool, string, *nodeClock, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.w.s.now
	pick := -1
	var why string
	switch mode {
	case ReadLease:
		lease := s.w.sc.Lock.Election.MS()
		switch {
		case s.available() && s.connected(client, s.nodes[s.leader].name):
			pick = s.leader
			why = fmt.Sprintf("%s leads and reaches a majority: it answers from its own state", s.nodes[pick].name)
		case s.deposed >= 0 && s.deposed != s.leader && s.nodes[s.deposed].up() && s.connected(client, s.nodes[s.deposed].name):
			d := s.nodes[s.deposed]
			until := d.clock.at(s.deposedAt) + lease
			if reads := d.clock.at(now); reads < until {
				pick = s.deposed
				why = fmt.Sprintf("%s has heard from no majority since %s, but its leader lease lasts until %s by its own clock, which reads %s: it still answers as leader, from its own state",
					d.name, FormatMS(s.deposedAt), FormatMS(until), FormatMS(reads))
			}
		}
	case ReadFollower:
		for i := len(s.nodes) - 1; i >= 0; i-- {
			if s.nodes[i].up() && s.connected(client, s.nodes[i].name) {
				pick = i
				why = fmt.Sprintf("%s answers from its own state, as far as it has heard the log", s.nodes[i].name)
				break
			}
		}
	}
	if pick < 0 {
		return lockEntry{}, false, "", nil, "", false
	}
	nd := s.nodes[pick]
	e, held := s.views[nd.name][lock]
	return e, held, nd.name, &nd.clock, why, true
}

// checkLocal runs a check step answered from one node's own state, and
// marks the answer stale when it differs from what the log would say now.
func (c *client) checkLocal(a *actor, mode string, token int64) {
	w := c.w
	lr := w.svc.(localReader)
	var e lockEntry
	var held, ok bool
	var node, why string
	var clk *nodeClock
	var stale bool
	var r Reply
	var by served
	var skew, trueUntil int64 // the answering clock's, off true time
	callAt := w.history.tick()
	x := c.roundTrip(a, MsgCheck, func() string {
		if e, held, node, clk, why, ok = lr.localRead(c.cfg.Name, mode, w.lockName); !ok {
			return ""
		}
		now := clk.at(w.s.now)
		untimed := w.backend.untimed
		if !untimed {
			skew, trueUntil = now-w.s.now, clk.trueAt(e.LeaseUntil)
		}
		mine := held && e.Holder == c.cfg.Name && e.Token == token
		valid := mine && (untimed || now < e.LeaseUntil)
		r = Reply{OK: valid, Token: e.Token, LeaseUntil: e.LeaseUntil, Holder: e.Holder, Now: now}
		switch {
		case valid:
		case !held:
			r.Reason = fmt.Sprintf("token %d is not held: the lock is free in %s's copy", token, node)
		case !mine:
			r.Reason = fmt.Sprintf("token %d is not current in %s's copy: %s holds token %d", token, node, e.Holder, e.Token)
		default:
			r.Reason = fmt.Sprintf("the lease of token %d ran out at %s by %s's clock", token, FormatMS(e.LeaseUntil), node)
			if skew != 0 {
				// That clock's reading is no time of the run: say how far
				// off it is, and the lease's true end.
				r.Reason += ", " + skewWords(skew)
				if g := w.ledger.find(c.cfg.Name, token); g != nil && g.leaseUntil == e.LeaseUntil {
					r.Reason += trueEndWords(g.trueEnd, w.s.now)
				}
			}
		}
		stale = valid != w.holds(c.cfg.Name, token)
		by = w.servedBy(node)
		return node
	}, nil)
	if !ok || x.lost {
		c.emit(Event{Kind: KindUnavailable, Message: "check", Reason: fmt.Sprintf("no node answered a %s read", mode)})
		return
	}
	w.history.record(Command{Op: OpCheck, Lock: w.lockName, Client: c.cfg.Name, Token: token}, r, by, callAt, w.history.tick())
	msg := fmt.Sprintf("%s read: %s", mode, why)
	if stale {
		msg += "; stale: a read through the log would have answered otherwise"
	}
	if r.OK {
		c.emit(Event{Kind: KindCheckOK, Token: token, LeaseUntil: r.LeaseUntil, Node: node, Message: msg, Stale: stale,
			Reason: w.skewedCheckWords(c.cfg.Name, token, node, skew, r.LeaseUntil, trueUntil)})
		return
	}
	c.emit(Event{Kind: KindCheckFailed, Token: token, Node: node, Reason: r.Reason, Message: msg, Stale: stale})
	c.loseLock("the lock service says it no longer holds the lock: " + r.Reason)
}
