package engine

import "fmt"

// asyncService is a primary and one replica. The primary answers first and
// ships each change to the replica replication_lag later; when the primary
// fails, the replica is promoted after lock.election with whatever it had
// received. A grant made just before the crash can be missing there, and
// so be handed out again, token and all.
type asyncService struct {
	w       *world
	nodes   []*simNode // node-1 starts as primary, node-2 as replica
	primary int        // index of the primary, or -1 while none serves
	gen     []int      // per node: bumps when it goes down, cancelling copies in flight to or from it
}

func newAsyncService(w *world) *asyncService {
	return &asyncService{w: w, nodes: newSimNodes(2, w.sc.Lock.FirstToken), gen: make([]int, 2), primary: 0}
}

func (s *asyncService) replica() int { return 1 - max(s.primary, 0) }

func (s *asyncService) serve(cmd Command) (Reply, string, bool) {
	if s.primary < 0 || !s.nodes[s.primary].reachable() {
		return Reply{}, "", false
	}
	p := s.nodes[s.primary]
	cmd.Now = p.clock.at(s.w.s.now)
	r := p.fsm.Apply(cmd)
	// The copy leaves after the answer: if the primary dies first, or the
	// replica is down or cut off when it arrives, it is lost.
	from, to := s.primary, s.replica()
	fromGen, toGen := s.gen[from], s.gen[to]
	s.w.s.at(s.w.s.now+s.w.sc.Lock.ReplicationLag.MS(), func() {
		if s.gen[from] != fromGen || s.gen[to] != toGen || s.primary != from || !s.nodes[to].reachable() {
			return
		}
		s.nodes[to].fsm.Apply(cmd)
	})
	return r, p.name, true
}

func (s *asyncService) nodeNames() []string { return names(s.nodes) }

func (s *asyncService) serving() string {
	if s.primary < 0 || !s.nodes[s.primary].reachable() {
		return ""
	}
	return s.nodes[s.primary].name
}

func (s *asyncService) available() bool { return s.serving() != "" }

func (s *asyncService) record(lock string) (lockEntry, bool, *nodeClock) {
	i := max(s.primary, 0)
	h, tok, until, ok := s.nodes[i].fsm.Entry(lock)
	return lockEntry{Holder: h, Token: tok, LeaseUntil: until}, ok, &s.nodes[i].clock
}

func (s *asyncService) node(name string) *simNode { return findNode(s.nodes, name) }

func (s *asyncService) index(n *simNode) int {
	if s.nodes[0] == n {
		return 0
	}
	return 1
}

// crash stops a node. When it is the primary, the replica is promoted after
// lock.election, if it is still up then.
func (s *asyncService) crash(n *simNode) {
	i := s.index(n)
	n.down = true
	s.gen[i]++
	if i == s.primary {
		s.failover(i)
	}
}

// partition cuts a node off. A cut-off primary is replaced like a crashed
// one; it learns of it when it comes back.
func (s *asyncService) partition(n *simNode) {
	i := s.index(n)
	n.cutOff = true
	s.gen[i]++
	if i == s.primary {
		s.failover(i)
	}
}

func (s *asyncService) failover(old int) {
	w := s.w
	s.primary = -1
	w.s.at(w.s.now+w.sc.Lock.Election.MS(), func() {
		if s.primary >= 0 {
			return
		}
		if s.nodes[old].reachable() {
			s.primary = old // it came back before the failover: it serves again
			w.nodeEvent(s.nodes[old].name, KindLeader, "serves again as primary")
			return
		}
		to := 1 - old
		if !s.nodes[to].reachable() {
			w.emit(Event{Actor: s.nodes[to].name, Kind: KindNoLeader, Reason: "no node can be promoted: both are down"})
			return
		}
		s.primary = to
		w.nodeEvent(s.nodes[to].name, KindLeader, fmt.Sprintf("is promoted to primary with the copies it had received (next token %d)", s.nodes[to].fsm.NextToken()))
		w.forgetLost(s.nodes[to].fsm.state(), "the promoted replica never received this grant")
	})
}

// restart and heal bring a node back as the replica of whoever is primary,
// starting from a copy of the primary's state; with no primary, it serves.
func (s *asyncService) restart(n *simNode) {
	n.down = false
	s.rejoin(n)
}

func (s *asyncService) heal(n *simNode) {
	n.cutOff = false
	s.rejoin(n)
}

func (s *asyncService) rejoin(n *simNode) {
	i := s.index(n)
	s.gen[i]++
	if !n.reachable() {
		return
	}
	if s.primary >= 0 && s.primary != i {
		n.fsm.restore(s.nodes[s.primary].fsm.state())
		s.w.nodeEvent(n.name, KindRejoined, "rejoins as replica with a copy of the primary's state")
	}
}

func (s *asyncService) close() error { return nil }
