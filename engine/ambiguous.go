package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/raft"
)

// An ambiguous commit, on the real Raft group. With lock.replication_lag
// set, a Raft commit takes simulated time: the leader appends a command to
// its own log when the request arrives, the entry reaches the followers
// replication_lag later, and their acknowledgements come back (and the
// leader commits and answers) replication_lag after that. A leader lost
// inside that window leaves the entry uncommitted:
//
//   - lost before the entry reached a follower, the entry is only in its
//     own log: the next leader never had it, and the client's retry gets a
//     fresh grant;
//   - lost after, the followers hold it: the next leader commits it in its
//     own term when the entry that opens its term commits (Raft never
//     commits an earlier term's entry by counting replicas, only through
//     one of its own), and the client's retry gets that same grant back.
//
// Either way the client hears nothing. The real group does each step: the
// leader's links to the followers are held down while its entries are in
// flight (its real AppendEntries calls fail, so it can neither replicate
// nor count acknowledgements), the network then carries the leader's own
// entry to the followers as the leader's AppendEntries message (sent over
// the simulation's transport, with the leader's term and identity), and
// the links come back up when the acknowledgements would arrive, so that
// the leader really commits. A crash or cut in between finds the entry
// where the timeline says it is, and the next leader's election is a real
// one that commits, or does not, what it holds.
//
// One limit: entries in flight together are committed together in the
// real group when the first one's window ends, though the timeline times
// each one by its own window.

// inflight is a command the leader appended and has not yet committed.
type inflight struct {
	cmd      Command
	leader   *raftNode
	term     int64  // the simulation's term it was appended in
	index    uint64 // its index in the leader's log
	stamped  int64  // true time the leader took it: its lease runs from here
	reachAt  int64  // when it reaches the followers
	commitAt int64  // when the acknowledgements are back
	reply    Reply  // what it gets wherever it commits (the log before it is fixed)
	data     []byte // the entry's bytes
	realTerm uint64 // the real term the leader appended it in
	future   raft.ApplyFuture
	reached  []string // the followers that stored it
	// committed is set once it committed, by its leader or the next one;
	// orphaned once its leader was lost before it committed; gone once the
	// next leader led without it.
	committed, orphaned, gone bool
	// lost is set when the client's answer was lost while the entry was
	// uncommitted: its operation goes into the history, pending, if the
	// entry commits later (callAt is the client's call).
	lost   bool
	callAt int64
}

// wait is how long the answer waits for the commit (0 for none).
func (f *inflight) wait() int64 {
	if f == nil {
		return 0
	}
	return f.commitAt - f.stamped
}

// uncommitted reports whether the command had not committed when its
// answer was due: no answer goes back.
func (f *inflight) uncommitted() bool { return f != nil && !f.committed }

// takeFlight returns the command the lock service just took without
// committing it, if any, and forgets it.
func (w *world) takeFlight() *inflight {
	f := w.flight
	w.flight = nil
	return f
}

// flightOf finds cmd among the commands a Raft group has yet to commit.
func (w *world) flightOf(cmd Command) *inflight {
	s, ok := w.svc.(interface{ flightOf(Command) *inflight })
	if !ok {
		return nil
	}
	return s.flightOf(cmd)
}

// crashedSince reports whether the lock node that handled a request is
// down by the time its answer would reach the client: it crashed after it
// applied the command and before it answered. The command stands (a
// majority stored it, and the next leader has it), but the client never
// learns so: an ambiguous commit, which the history keeps pending and the
// client resolves by asking again (the retried acquire gets the same
// grant back).
func (w *world) crashedSince(from string) bool {
	if w.svc == nil || !w.backend.diskLoss {
		return false // only a node that commits through a log before answering leaves the outcome standing
	}
	n := w.svc.node(from)
	return n != nil && n.down
}

func (s *raftService) flightOf(cmd Command) *inflight {
	for _, f := range s.flights {
		if f.cmd.Client == cmd.Client && f.cmd.ReqID == cmd.ReqID && !f.committed {
			return f
		}
	}
	return nil
}

// serveLater appends cmd at nd, the leader, and answers once it commits,
// replication_lag twice over later (see the top of this file).
func (s *raftService) serveLater(nd *raftNode, cmd Command) (Reply, string, bool) {
	w := s.w
	if !nd.answers.Load() {
		nd.answers.Store(true)
	}
	// The reply the entry gets: the leader's machine plus the entries
	// before it that are still in flight, then the entry itself.
	shadow := nd.simNode.fsm.blank(0)
	shadow.restore(nd.simNode.fsm.state())
	for _, f := range s.flights {
		if !f.committed && !f.orphaned {
			shadow.Apply(f.cmd)
		}
	}
	reply := shadow.Apply(cmd)

	s.catchUp() // the followers hold everything before it, as in simulated time
	// The followers hear no heartbeat while the leader's links are held:
	// in a window held for seconds of wall clock (a slowly paced or paused
	// run) one may campaign, as on a busy machine, and reach and
	// commitFlight ride it out. Their timers are not held: a candidate
	// that lost must stay free to campaign again, or two of them can wait
	// for each other for ever.
	data := s.cmds.encode(cmd) // the log keeps the buffer: never reused or changed
	future, index, err := s.appendAt(nd, data)
	if err != nil {
		s.fail(err)
		return Reply{}, nd.name, false
	}
	lag := w.sc.Lock.ReplicationLag.MS()
	f := &inflight{cmd: cmd, leader: nd, term: s.term, index: index, stamped: w.s.now,
		reachAt: w.s.now + lag, commitAt: w.s.now + 2*lag, reply: reply, future: future, data: data}
	f.realTerm = f.termAt(nd)
	s.flights = append(s.flights, f)
	// Only the leader's log has it yet.
	s.logs.seq++
	s.logs.end[s.leader] = logEnd{term: s.term, seq: s.logs.seq}
	w.s.at(f.reachAt, func() { s.reach(f) })
	w.s.at(f.commitAt, func() { s.commitFlight(f) })
	w.flight = f
	return reply, nd.name, true
}

// appendAt appends data at nd, the leader, and returns its future and
// index once nd's log holds it. When the real group has moved on without
// nd (Raft's own timers on a busy machine), nd is made the real leader
// again and the entry appended again: simulated time does not move.
func (s *raftService) appendAt(nd *raftNode, data []byte) (raft.ApplyFuture, uint64, error) {
	p := s.waits.start()
	for {
		s.withheld = true
		s.links()
		if nd.r.State() == raft.Leader {
			before, _ := nd.log.LastIndex()
			future := nd.r.Apply(data, raftEnqueueWait)
			if index, ok := s.waitAppended(nd, before, data, p); ok {
				return future, index, nil
			}
		}
		if !p.again() {
			return nil, 0, fmt.Errorf("raft: %s did not append the command: %s", nd.name, p)
		}
		s.withheld = false // nd campaigns over its links
		s.links()
		if err := s.resettle(nd); err != nil {
			return nil, 0, err
		}
	}
}

// waitAppended waits until nd's log holds data past before, and returns
// its index; false when nd stops leading first.
func (s *raftService) waitAppended(nd *raftNode, before uint64, data []byte, p *patience) (uint64, bool) {
	for p.again() {
		changed := nd.log.changes()
		last, _ := nd.log.LastIndex()
		for i := before + 1; i <= last; i++ {
			var l raft.Log
			if nd.log.GetLog(i, &l) == nil && l.Type == raft.LogCommand && string(l.Data) == string(data) {
				return i, true
			}
		}
		if nd.r.State() != raft.Leader {
			return 0, false
		}
		select {
		case <-changed:
		case <-time.After(raftRecheck):
		case <-p.ctx.Done():
			return 0, false
		}
	}
	return 0, false
}

// reach carries the leader's entry to every follower it can reach, as its
// AppendEntries message; the followers store it and their answers go
// nowhere yet.
func (s *raftService) reach(f *inflight) {
	if f.committed || f.orphaned {
		return
	}
	nd := f.leader
	want := s.reachableFrom(nd)
	disturbed := !f.heldBy(nd)
	if !disturbed {
		carried, err := s.carryAll(nd, want, f.index)
		if err != nil {
			s.fail(err)
			return
		}
		disturbed = !carried
	}
	if disturbed {
		// A real election behind the simulation's back (Raft's own timers,
		// or a follower told to campaign, on a busy machine) took the
		// entry out of nd's log, or put a follower in a later term. nd is
		// made the real leader again, which commits what it holds; an
		// entry it lost is appended again and carried.
		if err := s.rehome(f); err != nil {
			s.fail(err)
			return
		}
	}
	for _, o := range want {
		f.reached = append(f.reached, o.name)
	}
	s.replicated()
	s.copiesArrived(f)
}

// copiesArrived records, in the message log when the run keeps one, the
// entry's copies as they reach the followers, sent when the leader
// appended it (a follower cut off from the leader never gets one).
func (s *raftService) copiesArrived(f *inflight) {
	m := s.msgs()
	if m == nil {
		return
	}
	nd := f.leader
	for _, o := range s.nodes {
		if o == nd || !o.up() {
			continue
		}
		r := Message{Kind: "append", From: nd.name, To: o.name, Sent: f.stamped, At: s.w.s.now, Text: appendText(f.cmd)}
		if !s.connected(nd.name, o.name) {
			r.Lost, r.Why = true, o.name+" is cut off from "+nd.name
		}
		m.add(r)
	}
}

// rehome makes f's leader the real leader again with f's entry in every
// reachable follower's log, after the real group moved on without it.
func (s *raftService) rehome(f *inflight) error {
	nd := f.leader
	p := s.waits.start()
	for {
		s.withheld = false
		s.links()
		if err := s.resettle(nd); err != nil {
			return err
		}
		if f.heldBy(nd) {
			s.catchUp() // settle committed it: the followers have it, or will in a moment
			s.withheld = true
			s.links()
			return nil
		}
		future, index, err := s.appendAt(nd, f.data)
		if err != nil {
			return err
		}
		f.future, f.index = future, index
		f.realTerm = f.termAt(nd)
		carried, err := s.carryAll(nd, s.reachableFrom(nd), f.index)
		if err != nil || carried {
			return err
		}
		// The group moved on again while the entry was carried.
		if !p.again() {
			return fmt.Errorf("raft: %s could not carry %s's %v to its followers: %s", nd.name, f.cmd.Client, f.cmd.Op, p)
		}
	}
}

// reachableFrom lists the running nodes other than nd that the simulated
// network links nd to: those its AppendEntries reach.
func (s *raftService) reachableFrom(nd *raftNode) []*raftNode {
	var out []*raftNode
	for _, o := range s.nodes {
		if o != nd && o.up() && o.r != nil && s.connected(nd.name, o.name) {
			out = append(out, o)
		}
	}
	return out
}

// carryAll carries nd's entries up to index to each of the followers, and
// reports whether every one stored them.
func (s *raftService) carryAll(nd *raftNode, to []*raftNode, index uint64) (bool, error) {
	for _, o := range to {
		if ok, err := s.carry(nd, o, index); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// carry sends follower o the leader's entries up to index, as the leader's
// AppendEntries would: from the entry after the last one o says it holds
// when o lacks some before it (a follower a moment behind in real time).
// It speaks for nd only while nd still leads in the term it appended the
// entry in: a message in any other term would be one no leader sent. Once
// a real election behind the simulation's back has deposed nd (Raft's own
// timers, or a follower told to campaign, on a busy machine), a message in
// nd's new term would make the real leader of that term step down and
// take nd's entry over its own, two leaders in one term; carry then
// reports the follower did not store it, and the caller makes nd the real
// leader again (rehome).
func (s *raftService) carry(nd, o *raftNode, index uint64) (bool, error) {
	from := index
	for range 3 {
		var prev raft.Log
		if err := nd.log.GetLog(from-1, &prev); err != nil {
			return false, fmt.Errorf("raft: %s's entry %d: %w", nd.name, from-1, err)
		}
		var entries []*raft.Log
		for i := from; i <= index; i++ {
			l := new(raft.Log)
			if err := nd.log.GetLog(i, l); err != nil {
				return false, fmt.Errorf("raft: %s's entry %d: %w", nd.name, i, err)
			}
			entries = append(entries, l)
		}
		term := entries[len(entries)-1].Term // the term nd led when it appended the entry
		if nd.r.State() != raft.Leader || nd.r.CurrentTerm() != term {
			return false, nil
		}
		req := &raft.AppendEntriesRequest{
			RPCHeader:    raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(nd.name), Addr: []byte(nd.trans.LocalAddr())},
			Term:         term,
			PrevLogEntry: prev.Index, PrevLogTerm: prev.Term,
			Entries:           entries,
			LeaderCommitIndex: nd.r.CommitIndex(),
		}
		var resp raft.AppendEntriesResponse
		if err := s.ctrl.AppendEntries(raft.ServerID(o.name), o.trans.LocalAddr(), req, &resp); err != nil {
			return false, nil // o cannot be reached on the real transport: it did not store it
		}
		if resp.Success {
			return true, nil
		}
		if resp.LastLog+1 >= from || resp.LastLog == 0 {
			return false, nil
		}
		from = resp.LastLog + 1
	}
	return false, nil
}

// commitFlight brings the leader's links back when the acknowledgements
// arrive: the leader commits the entry (and any after it) and the lock
// service keeps its record.
func (s *raftService) commitFlight(f *inflight) {
	if f.committed || f.orphaned {
		return
	}
	nd := f.leader
	s.withheld = false
	s.links()
	// Raft's replication to a follower it failed to reach waits for its
	// next entry (or for its commit timeout, up to a second of wall clock):
	// a barrier is that entry, and changes no state machine.
	_ = nd.r.Barrier(raftEnqueueWait).Error() // if it fails, so does the command's commit, below
	var r Reply
	switch resp := f.future.Response(); {
	case f.future.Error() == nil && resp != nil:
		rp, ok := resp.(*Reply)
		if !ok {
			s.fail(fmt.Errorf("raft apply: unexpected answer %T", resp))
			return
		}
		r = *rp
	default:
		// The real leader hiccupped (Raft's own timers on a busy machine):
		// the command is sent again with its request id, applied once.
		var err error
		if r, err = s.commit(nd, f.cmd); err != nil {
			s.fail(err)
			return
		}
	}
	if r != f.reply {
		s.fail(fmt.Errorf("raft: %s's entry committed with %+v, not the %+v its log promised", nd.name, r, f.reply))
		return
	}
	f.committed = true
	s.remember(nd, f.cmd.Lock)
	s.replicated()
	s.w.committed(f.cmd, r, nd.name, f.stamped)
	if s.probe != nil {
		s.probe.committed(s, f.cmd, nd.name)
	}
	s.dropSettled()
}

// orphan follows the loss of the leader: its entries in flight stay
// uncommitted, where they are, until the next leader commits them or not.
func (s *raftService) orphan(old int) {
	s.withheld = false
	for _, f := range s.flights {
		if !f.committed && f.leader == s.nodes[old] {
			f.orphaned = true
		}
	}
}

// settleOrphans tells, once the next leader leads (its first entry
// committed), what became of each entry its predecessors left in flight:
// committed in its term, with the reply the log promised, or gone.
func (s *raftService) settleOrphans(nd *raftNode) {
	w := s.w
	for _, f := range s.flights {
		if !f.orphaned || f.committed || f.gone {
			continue
		}
		op := f.cmd.Op.String()
		r, ok := nd.simNode.fsm.Answer(f.cmd.Client, f.cmd.ReqID)
		if !ok {
			where := "only " + f.leader.name + "'s log had it"
			if len(f.reached) > 0 {
				where = strings.Join(f.reached, " and ") + " had it, but " + nd.name + " never did"
			}
			w.emit(Event{Actor: nd.name, Kind: KindEntryLost, Node: nd.name, Term: s.term, Client: f.cmd.Client, Message: op,
				Reason: fmt.Sprintf("%s's %s, appended by %s in term %d, never committed: %s, and %s's log now goes on without it", f.cmd.Client, op, f.leader.name, f.term, where, nd.name)})
			f.gone = true
			continue
		}
		if err := s.provenCommitted(nd, f); err != nil {
			s.fail(err)
			return
		}
		f.committed = true
		token, until := lostAnswerLease(f.cmd, r)
		what := "refused: " + r.Reason
		if r.OK {
			what = "applied"
			if until != 0 {
				what = fmt.Sprintf("token %d, lease until %s", token, FormatMS(until))
			}
		}
		w.emit(Event{Actor: nd.name, Kind: KindAnswerLost, Node: nd.name, Term: s.term, Client: f.cmd.Client, Token: token,
			LeaseUntil: until, Message: op,
			Reason: fmt.Sprintf("%s's %s, appended by %s in term %d and stored by %s, commits in term %d with %s's first entry (%s); %s was never told",
				f.cmd.Client, op, f.leader.name, f.term, strings.Join(f.reached, " and "), s.term, nd.name, what, f.cmd.Client)})
		w.committed(f.cmd, r, nd.name, f.stamped)
		if f.lost {
			w.history.pending(f.cmd, r, served{node: nd.name, at: f.stamped}, f.callAt)
		}
		if s.probe != nil {
			s.probe.committed(s, f.cmd, nd.name)
		}
	}
	s.dropSettled()
}

// dropSettled forgets the entries that committed, and those gone whose
// client has heard nothing: nothing will ask about them again.
func (s *raftService) dropSettled() {
	keep := s.flights[:0]
	for _, f := range s.flights {
		if !f.committed && !(f.gone && f.lost) {
			keep = append(keep, f)
		}
	}
	clear(s.flights[len(keep):])
	s.flights = keep
}

// termAt is the real term of the entry at f's index in nd's log (0 when
// there is none).
func (f *inflight) termAt(nd *raftNode) uint64 {
	var l raft.Log
	if nd.log.GetLog(f.index, &l) != nil {
		return 0
	}
	return l.Term
}

// heldBy reports whether nd's log holds f's entry where it was appended.
func (f *inflight) heldBy(nd *raftNode) bool {
	var l raft.Log
	return nd.log.GetLog(f.index, &l) == nil && l.Term == f.realTerm && string(l.Data) == string(f.data)
}

// provenCommitted checks, on the real new leader, what the timeline is
// about to say: its log holds the entry where the old leader appended it,
// in the old leader's term, its own term is later, and it has committed
// past the entry (through the entry that opens its term).
func (s *raftService) provenCommitted(nd *raftNode, f *inflight) error {
	var entry raft.Log
	if err := nd.log.GetLog(f.index, &entry); err != nil || entry.Term != f.realTerm || string(entry.Data) != string(f.data) {
		return fmt.Errorf("raft: %s applied %s's %v, but its log does not hold it at %d in term %d", nd.name, f.cmd.Client, f.cmd.Op, f.index, f.realTerm)
	}
	if term, commit := nd.r.CurrentTerm(), nd.r.CommitIndex(); term <= f.realTerm || commit <= f.index {
		return fmt.Errorf("raft: %s in term %d has committed up to %d, not past %s's entry %d of term %d", nd.name, term, commit, f.cmd.Client, f.index, f.realTerm)
	}
	return nil
}
