package engine

import "fmt"

// Message is one message as the simulated network carried it: a client's
// request to the lock service, the storage or the SMS provider, the answer
// back, or a Raft leader's new entries reaching a follower. A run records
// them only when asked (Options.Messages); they are kept apart from the
// timeline, which they never change, and are as deterministic as it is.
type Message struct {
	// ID numbers the records in the order they were settled (delivered or
	// lost), from 1; a request is always settled before its answer.
	ID int `json:"id"`
	// Kind is the request's kind (acquire, renew, release, check, read,
	// write, send) on a request and its answer, or "append" for Raft's
	// replication.
	Kind string `json:"kind"`
	From string `json:"from"`
	To   string `json:"to"`
	// Sent is when the message left, At when it arrived or, lost, when it
	// was lost; both in simulated milliseconds.
	Sent int64 `json:"sent"`
	At   int64 `json:"at"`
	// Answer is, on an answer, the ID of the request it answers.
	Answer int `json:"answer,omitempty"`
	// Lost: the message never reached To. Late: it arrived, but later than
	// the network's latency (a delay fault held it) or after its sender
	// stopped waiting (a renewal's answer past renew_timeout).
	Lost bool `json:"lost,omitempty"`
	Late bool `json:"late,omitempty"`
	// Why says, in words, why a message was lost or late.
	Why string `json:"why,omitempty"`
	// Text says what it carried ("client-1's renew", for an append).
	Text string `json:"text,omitempty"`
}

// MaxMessages bounds the records of one run; a run with more keeps the
// first ones and says so (Result.MessagesTruncated).
const MaxMessages = 20000

// msgLog records a run's messages. A nil *msgLog records nothing: every
// method is a no-op on it, so a run that did not ask pays one nil check
// per message.
type msgLog struct {
	w         *world
	list      []Message
	sink      func(Message)
	truncated bool
	// aimed is the endpoint a request was meant for when nothing served
	// it (an independent server out of reach): set by the serve function.
	aimed string
}

func newMsgLog(w *world, on bool, sink func(Message)) *msgLog {
	if !on && sink == nil {
		return nil
	}
	return &msgLog{w: w, sink: sink}
}

// add settles one record and hands it on.
func (m *msgLog) add(r Message) int {
	if len(m.list) >= MaxMessages {
		m.truncated = true
		return 0
	}
	r.ID = len(m.list) + 1
	m.list = append(m.list, r)
	if m.sink != nil {
		m.sink(r)
	}
	return r.ID
}

// aim notes where an unserved request was going.
func (m *msgLog) aim(to string) {
	if m != nil {
		m.aimed = to
	}
}

// request settles a client's request on its arrival: served names the
// endpoint that handled it ("" when none could). delayed is how long a
// delay fault held it.
func (m *msgLog) request(c *client, kind string, sent, delayed int64, served string, x *exchange) {
	if m == nil {
		return
	}
	r := Message{Kind: kind, From: c.cfg.Name, To: served, Sent: sent, At: m.w.s.now}
	if served == "" {
		aimed := m.aimed != ""
		r.To, r.Lost = m.addressee(kind), true
		r.Why = m.lostWhy(c, kind, r.To, aimed)
	}
	m.aimed = ""
	if delayed > 0 {
		r.Late, r.Why = true, fmt.Sprintf("held %s by the network", FormatMS(delayed))
	}
	x.msg = m.add(r)
}

// lostWhy says why a request to the endpoint to was not served: the
// storage out of reach; the lock server it was aimed at down, or cut off
// from the client; a partition between the client and a lock service
// that could serve it (cutOffWords); else no lock server could answer it
// (none up, no leader, no majority).
func (m *msgLog) lostWhy(c *client, kind, to string, aimed bool) string {
	switch m.what(kind) {
	case "storage":
		return "the storage is out of reach"
	case "lock server":
		if !aimed {
			if words := m.w.cutOffWords(c.cfg.Name); words != "" {
				return words
			}
			break
		}
		if m.w.svc == nil {
			break
		}
		if n := m.w.svc.node(to); n != nil && !n.up() {
			return to + " is down"
		}
		if !m.w.net.connected(c.cfg.Name, to) {
			return c.cfg.Name + " is cut off from " + to
		}
	}
	return "no lock server could answer it"
}

// answer settles the answer to x's request as it reaches the client's
// side (lost: it did not reach the client).
func (m *msgLog) answer(c *client, kind, from string, sent int64, x *exchange, lost bool) {
	if m == nil || x.msg == 0 || from == "" {
		return
	}
	r := Message{Kind: kind, From: from, To: c.cfg.Name, Sent: sent, At: m.w.s.now, Answer: x.msg}
	switch {
	case lost && c.crashed:
		r.Lost, r.Why = true, c.cfg.Name+" had crashed"
	case lost && c.done:
		r.Lost, r.Why = true, c.cfg.Name+" had finished"
	case lost && m.w.crashedSince(from):
		r.Lost, r.Why = true, from+" crashed before its answer left"
	case lost:
		r.Lost, r.Why = true, c.cfg.Name+" is cut off from "+from
	case x.deadline > 0 && r.At > x.deadline:
		r.Late, r.Why = true, fmt.Sprintf("after the %s renewal timeout", FormatMS(c.renewTimeout()))
	}
	m.add(r)
}

// what names the kind of endpoint a request of this kind goes to.
func (m *msgLog) what(kind string) string {
	switch kind {
	case MsgRead, MsgWrite:
		return "storage"
	case MsgSend:
		return "provider"
	}
	return "lock server"
}

// addressee is where an unanswered request was going: the endpoint its
// serve function aimed at, the storage, or the node that serves, a
// deposed async primary still answering its side while no primary serves
// (leaderNow); the first node when none does.
func (m *msgLog) addressee(kind string) string {
	if m.aimed != "" {
		return m.aimed
	}
	if m.what(kind) == "storage" {
		return ActorStorage
	}
	if kind == MsgSend {
		return ActorSMS
	}
	if m.w.svc == nil {
		return ActorStorage
	}
	if s := m.w.leaderNow(); s != "" {
		return s
	}
	if names := m.w.svc.nodeNames(); len(names) > 0 {
		return names[0]
	}
	return ActorStorage
}

// replicate records a Raft leader's entries reaching its followers:
// delivered to every running follower it reaches, lost to one cut off
// from it (a follower that is down is not drawn: its lane says so).
// caught names followers brought up to date after a cut.
func (m *msgLog) replicate(s *raftService, text string, behind []bool) {
	if m == nil || s.leader < 0 || (text == "" && behind == nil) {
		return
	}
	lead := s.nodes[s.leader]
	now := m.w.s.now
	for j, nd := range s.nodes {
		if j == s.leader || !nd.up() || !lead.up() {
			continue
		}
		r := Message{Kind: "append", From: lead.name, To: nd.name, Sent: now, At: now, Text: text}
		switch {
		case !s.connected(lead.name, nd.name):
			if text == "" {
				continue // a catch-up reaches only those it can
			}
			r.Lost, r.Why = true, nd.name+" is cut off from "+lead.name
		case text == "" && !behind[j]:
			continue // nothing to catch up
		case text == "":
			r.Text = nd.name + " catches up with " + lead.name + "'s log"
		}
		m.add(r)
	}
}

// behindLeader reports, per node, whether the simulation's account has its
// log behind the leader's: what a catch-up would bring it.
func (m *msgLog) behindLeader(s *raftService) []bool {
	if m == nil || s.leader < 0 || s.logs.end == nil {
		return nil
	}
	out := make([]bool, len(s.nodes))
	for j := range s.nodes {
		out[j] = s.logs.end[j] != s.logs.end[s.leader]
	}
	return out
}

// msgs is the world's message log of a Raft group at work (nil while the
// group waits in a pool, or when the run did not ask).
func (s *raftService) msgs() *msgLog {
	if s.w == nil {
		return nil
	}
	return s.w.msgs
}

// appendText says what a replicated command carried.
func appendText(cmd Command) string {
	if k := msgKind[cmd.Op]; k != "" {
		return cmd.Client + "'s " + k
	}
	return cmd.Client + "'s command"
}
