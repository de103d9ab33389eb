package engine

import "fmt"

// asyncBackend is the registry entry of a primary with one asynchronous
// replica.
var asyncBackend = Backend{
	Name: BackendAsyncReplica, Label: "primary + async replica",
	Description: "A primary that answers first and copies each change to its replica later; a failover promotes the replica with what it has.",
	Nodes:       []int{2}, DefaultNodes: 2, NodesRule: "async-replica has a primary and one replica: 2 nodes",
	Tokens: true, Leader: true, Follower: "replica",
	Options:   []BackendOption{replicationLag, lockDelay},
	Kinds:     []EventKind{grantBackKind},
	start:     func(w *world, _ *RaftPool) (lockService, error) { return newAsyncService(w), nil },
	witness:   func(w *world, g *grantRec) string { return w.svc.(*asyncService).witness(g) },
	restarted: "starts again",
	chaos: func(pick func(lo, hi int64) int64, _ intn, l *Lock) {
		l.ReplicationLag = Ms(pick(1, 10) * 100)
	},
	aims: []aim{
		{aimNameInLag, 40, aimCrashInLag},
		{aimNameCutInLag, 10, aimPartitionInLag},
		{"primary clock jump", 10, aimNodeJump},
	},
}

// asyncService is a primary and one replica. The primary answers first and
// ships each change to the replica replication_lag later; when the primary
// fails, the replica is promoted after lock.election with whatever it had
// received. A grant made just before the crash can be missing there, and
// so be handed out again, token and all.
//
// Partitions: the failover is decided by a monitor that stands with the
// rest of the system (on no partition's side). A primary the monitor
// cannot reach is replaced like a crashed one, but it is not told: it goes
// on answering the clients on its side (two primaries, each granting the
// lock) until it reaches the new primary again and rejoins as its replica.
// The new primary can be replaced in its turn before the deposed one
// reached it: both are then deposed, each answering its side, until the
// monitor makes one of them primary again with its own record.
// A replica that missed copies while cut off is brought up to date when
// it reaches the primary again.
type asyncService struct {
	w       *world
	nodes   []*simNode // node-1 starts as primary, node-2 as replica
	primary int        // index of the primary, or -1 while none serves
	// deposed, per node: a primary the monitor replaced, cut off from
	// it, that still believes it is primary and answers the clients it
	// reaches. Both can be at once: a deposed node-1 the monitor reaches
	// again while node-2, the primary it promoted, is cut off in its turn
	// never reached node-2 to rejoin as its replica.
	deposed []bool
	// deposedAt, per node: when the monitor deposed it, while it is
	// deposed or rejoining (0 otherwise): a grant it made before then
	// and alone kept is not one it made alone (aloneWords).
	deposedAt []int64
	gen       []int  // per node: bumps when it goes down, cancelling copies in flight to or from it
	missed    []bool // per node: a copy to it was lost because it was out of reach
	// The monitor's failover: lost is the primary it replaces; due is set
	// while its choice waits for lock.election; stuck is set when it found
	// no node to promote, until a node comes back or a partition changes.
	lost       int
	due, stuck bool
}

func newAsyncService(w *world) *asyncService {
	return &asyncService{w: w, nodes: w.simNodes(2), gen: make([]int, 2), missed: make([]bool, 2), primary: 0, deposed: make([]bool, 2), deposedAt: make([]int64, 2)}
}

// monitored reports whether the failover monitor reaches node i.
func (s *asyncService) monitored(i int) bool {
	return s.nodes[i].up() && s.w.net.connected(endpointMonitor, s.nodes[i].name)
}

func (s *asyncService) other(i int) int { return 1 - i }

// serverFor is the node that answers the client: the primary if the
// client reaches it, else a deposed primary on the client's side; -1 when
// none does.
func (s *asyncService) serverFor(client string) int {
	reaches := func(i int) bool { return s.nodes[i].up() && s.w.net.connected(client, s.nodes[i].name) }
	if s.primary >= 0 && reaches(s.primary) {
		return s.primary
	}
	for i := range s.nodes {
		if s.deposed[i] && reaches(i) {
			return i
		}
	}
	return -1
}

// deposedUp reports whether node i is a deposed primary that is up.
func (s *asyncService) deposedUp(i int) bool { return i >= 0 && s.deposed[i] && s.nodes[i].up() }

func (s *asyncService) answers(client string) bool { return s.serverFor(client) >= 0 }

// primaryBeside names the other of two primaries serving at once, each
// its own side of a partition, when node is one of them; "" otherwise.
// A primary serves while it is up: the one the monitor promoted, and a
// deposed one cut off from it, or two deposed ones while the monitor has
// yet to promote either.
func (s *asyncService) primaryBeside(node string) string {
	n := s.node(node)
	if n == nil {
		return ""
	}
	i := s.index(n)
	if s.servesAsPrimary(i) && s.servesAsPrimary(s.other(i)) {
		return s.nodes[s.other(i)].name
	}
	return ""
}

// servesAsPrimary reports whether node i is up and answers as primary:
// the primary, or a deposed one.
func (s *asyncService) servesAsPrimary(i int) bool {
	return i == s.primary && s.nodes[i].up() || s.deposedUp(i)
}

// deposedServing names a deposed primary that is up while no primary
// serves: the one whose record is the service's when both are (the
// primary the monitor lost last), else the other.
func (s *asyncService) deposedServing() string {
	if s.primary >= 0 && s.nodes[s.primary].up() {
		return ""
	}
	for _, i := range []int{s.recordNode(), s.other(s.recordNode())} {
		if s.deposedUp(i) {
			return s.nodes[i].name
		}
	}
	return ""
}

// besideRecord is the deposed primary's record, while it is up beside the
// node whose record is the service's (the promoted primary, or the
// primary lost last), and its clock.
func (s *asyncService) besideRecord(lock string) (lockEntry, bool, *nodeClock, string) {
	i := s.other(s.recordNode())
	if !s.deposedUp(i) {
		return lockEntry{}, false, nil, ""
	}
	d := s.nodes[i]
	h, tok, until, ok := d.fsm.Entry(lock)
	return lockEntry{Holder: h, Token: tok, LeaseUntil: until}, ok, &d.clock, d.name
}

func (s *asyncService) serve(cmd Command) (Reply, string, bool) {
	from := s.serverFor(cmd.Client)
	if from < 0 {
		return Reply{}, "", false
	}
	p := s.nodes[from]
	// A lease the service ended that p's record still holds counts again
	// once p answers a request by it.
	s.w.ledger.seeEndedServed(s.w, p.name, cmd)
	cmd.Now = p.clock.at(s.w.s.now)
	r := p.fsm.Apply(cmd)
	if s.deposed[from] && cmd.Op == OpRelease && r.OK {
		s.releaseSplit(from, cmd)
	}
	// The copy leaves after the answer: if the primary dies or is cut off
	// first, or the replica is down or out of reach when it arrives, it is
	// lost.
	to := s.other(from)
	fromGen, toGen := s.gen[from], s.gen[to]
	s.w.s.at(s.w.s.now+s.w.sc.Lock.ReplicationLag.MS(), func() {
		if s.gen[from] != fromGen || s.gen[to] != toGen || s.primary != from {
			return
		}
		if !s.linked(from, to) {
			s.missed[to] = s.nodes[to].up()
			return
		}
		s.nodes[to].fsm.Apply(cmd)
	})
	return r, p.name, true
}

// linked reports whether two nodes are up and can reach each other.
func (s *asyncService) linked(a, b int) bool {
	return s.nodes[a].up() && s.nodes[b].up() && s.w.net.connected(s.nodes[a].name, s.nodes[b].name)
}

func (s *asyncService) nodeNames() []string { return names(s.nodes) }

// witness names the node that can tell that grant g's lease ran out: a
// running node whose record holds it, the one that granted or last
// renewed it first, else the primary; "" when none does (a primary
// promoted without the grant never knew of it).
func (s *asyncService) witness(g *grantRec) string {
	for _, name := range []string{g.node, s.serving()} {
		n := s.node(name)
		if n == nil || !n.up() {
			continue
		}
		if h, tok, _, ok := n.fsm.Entry(s.w.lockName); ok && h == g.client && tok == g.token {
			return name
		}
	}
	return ""
}

// serving names the primary the monitor put in place, while it is up:
// the node whose record is the service's (record) and whose clock judges
// it, which is what every reader pairing the two asks for (the actor of
// a grant or release the service forgot, the clock a cut-back lease ends
// by, the witness of a lease end beside the node that granted it). It is
// "" while none serves, even when a deposed primary, cut off from the
// monitor, still answers the clients on its side: the service's record is
// then the one the primary lost last left, which is another node's when
// the promoted primary crashed. Named there, the deposed primary would
// tell the end of a lease only that other node granted, by that node's
// clock (chaos seed 349: node-1, deposed, keeps its own older lease of
// client-2's token 34, while node-2, crashed, had granted it again). Who
// serves a given asker:
//   - a client's request: serverFor, the primary if the client reaches
//     it, else a deposed primary on its side;
//   - a client that got no answer (cutOffWords, cutOff, the lost
//     request's addressee) and a fault aimed at the leader: leaderNow,
//     this node, or while none serves a deposed primary that is up
//     (deposedServing), which answers whoever reaches it; with two nodes,
//     a client that reached neither of two primaries reached no node;
//   - the end of a lease: witness.
func (s *asyncService) serving() string {
	if s.primary < 0 || !s.nodes[s.primary].up() {
		return ""
	}
	return s.nodes[s.primary].name
}

// currentTerm is 0: the primary is promoted by the fault, not elected.
func (s *asyncService) currentTerm() int64 { return 0 }

// record reads the lock as the primary records it, judged by its clock;
// while none serves (the monitor has yet to promote one, or found none
// to promote), as the primary lost last left it, by its clock: the node
// that served last as primary, whatever node-1 is. A deposed primary
// still answering its side keeps its own record beside it
// (besideRecord).
func (s *asyncService) record(lock string) (lockEntry, bool, *nodeClock) {
	i := s.recordNode()
	h, tok, until, ok := s.nodes[i].fsm.Entry(lock)
	return lockEntry{Holder: h, Token: tok, LeaseUntil: until}, ok, &s.nodes[i].clock
}

// recordNode is the node whose record is the service's: the primary, or
// while none serves, the primary the monitor lost last.
func (s *asyncService) recordNode() int {
	if s.primary >= 0 {
		return s.primary
	}
	return s.lost
}

func (s *asyncService) node(name string) *simNode { return findNode(s.nodes, name) }

func (s *asyncService) index(n *simNode) int {
	if s.nodes[0] == n {
		return 0
	}
	return 1
}

// crash stops a node. When it is the primary, the replica is promoted after
// lock.election, if it is still up then; when it is a deposed primary, the
// grants it made alone are forgotten.
func (s *asyncService) crash(n *simNode) {
	i := s.index(n)
	n.down = true
	s.gen[i]++
	if s.deposed[i] {
		// What it granted alone, cut off from the primary, is gone with it.
		s.deposed[i] = false
		if p := s.primary; p >= 0 {
			who := n.name + ", a deposed primary cut off from " + s.nodes[p].name + ", stopped"
			s.w.forgetLostBy(s.nodes[p].fsm.state(), s.aloneWords(i, who), who+": the renewals it alone kept are gone")
		}
		s.deposedAt[i] = 0
	}
	if i == s.primary {
		s.failover(i)
	}
}

// netChanged reacts to a partition beginning or healing. A primary the
// monitor cannot reach is replaced, if the replica can be reached; a
// failover that found no node to promote tries again once the monitor
// reaches one; a deposed primary, or a replica that missed copies, that
// reaches the primary again rejoins as its replica.
func (s *asyncService) netChanged() {
	if p := s.primary; p >= 0 && s.nodes[p].up() && !s.monitored(p) && s.monitored(s.other(p)) {
		s.deposed[p], s.deposedAt[p] = true, s.w.s.now
		s.failover(p)
		return
	}
	s.retry()
	s.catchUp()
}

// restart brings a node back as the replica of whoever is primary,
// starting from a copy of the primary's state. With no primary, it keeps
// the state it had, and a failover that found nobody to promote tries
// again.
func (s *asyncService) restart(n *simNode) {
	n.down = false
	s.rejoin(n)
	s.retry()
}

func (s *asyncService) rejoin(n *simNode) {
	i := s.index(n)
	s.gen[i]++
	s.missed[i] = false
	if !n.up() {
		return
	}
	if s.primary == i {
		return
	}
	if s.primary < 0 || !s.linked(i, s.primary) {
		// Out of the primary's reach (or with none serving), it is
		// brought up to date once it reaches one (catchUp).
		s.missed[i] = true
		return
	}
	n.fsm.restore(s.nodes[s.primary].fsm.state())
	s.w.nodeEvent(n.name, KindRejoined, "rejoins as replica with a copy of the primary's state")
	s.w.forgetLostBy(s.nodes[s.primary].fsm.state(), s.aloneWords(i, n.name+" rejoined as replica"),
		n.name+" rejoined as replica: the renewals it alone kept are gone")
	s.deposedAt[i] = 0
	s.w.releaseForgotten(func(holder string, at int64) string {
		return fmt.Sprintf("%s rejoined as replica of %s, which never received %s's release, applied at %s", n.name, s.nodes[s.primary].name, holder, FormatMS(at))
	})
}

// aloneWords says how node i, deposed, lost each grant the primary lacks
// as it crashes or rejoins (what happened: who): a grant it made alone,
// cut off ("node-1 rejoined as replica: the grants it made alone are
// gone"), or one it made before it was deposed that the primary never
// received, or whose lease the primary let run out, and that it alone
// kept ("...: it alone kept this grant, made at 7.6s, before it was
// deposed at 8.344s, and it is gone").
func (s *asyncService) aloneWords(i int, who string) func(g *grantRec) string {
	at := s.deposedAt[i]
	return func(g *grantRec) string {
		if at > 0 && g.start < at {
			return fmt.Sprintf("%s: it alone kept this grant, made at %s, before it was deposed at %s, and it is gone", who, FormatMS(g.start), FormatMS(at))
		}
		return who + ": the grants it made alone are gone"
	}
}

func (s *asyncService) close() error { return nil }

// releaseSplit shows a release that only the deposed primary (from)
// applied, cut off from the primary promoted in its place: the primary's
// record still holds the lock for the client that gave it back, so others
// are refused until its lease runs out. It is said once the world counts
// the release, after this answer.
func (s *asyncService) releaseSplit(from int, cmd Command) {
	if s.primary < 0 || s.primary == from {
		return
	}
	h, tok, _, ok := s.nodes[s.primary].fsm.Entry(cmd.Lock)
	if !ok || h != cmd.Client || tok != cmd.Token {
		return
	}
	old, primary := s.nodes[from].name, s.nodes[s.primary].name
	// Said after the client heard its answer, which is due at this instant
	// behind the first hop.
	s.w.s.at(s.w.s.now, func() {
		s.w.s.at(s.w.s.now, func() {
			s.w.releaseForgotten(func(holder string, at int64) string {
				return fmt.Sprintf("%s, a deposed primary cut off from %s, applied %s's release at %s, and %s, the primary, never received it", old, primary, holder, FormatMS(at), primary)
			})
		})
	})
}
