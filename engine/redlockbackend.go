package engine

import (
	"fmt"
	"sort"
)

// BackendRedlock is the Redlock backend's name; DefaultRedlockN its
// number of servers when lock.nodes is not set.
const (
	BackendRedlock  = "redlock"
	DefaultRedlockN = 5
)

// ActorRedlock speaks for Redlock's servers together, which have no leader
// (its entry's Actor).
const ActorRedlock = "redlock"

// redlockBackend is the registry entry of Redlock: independent servers, a
// client that counts a majority itself, and no token.
var redlockBackend = Backend{
	Name: BackendRedlock, Label: "Redlock (independent servers)",
	Description: "Independent servers and no leader: a client holds the lock when a majority granted it in time, and there is no token.",
	Nodes:       []int{1, 2, 3, 4, 5}, DefaultNodes: DefaultRedlockN, NodesRule: "redlock uses 1 to 5 independent servers",
	NoTokens: "Redlock hands out no fencing token, so the storage has nothing to check: compare it with another backend instead.",
	Follower: "server",
	Holds:    "Redlock server holds the lock for a client",
	Actor:    ActorRedlock,
	Options:  []BackendOption{persistEvery, lockDelay},
	start:    func(w *world, _ *RaftPool) (lockService, error) { return newRedlockService(w), nil },
	client:   quorumClient{},
	history:  RedlockModel,
	// The servers together tell that a lease ran out: no one of them
	// holds the lock alone.
	witness: func(w *world, _ *grantRec) string { return w.backend.Actor },
	intro: func(w *world) Event {
		n := len(w.svc.nodeNames())
		return Event{Actor: w.backend.Actor, Kind: KindLeader, Message: fmt.Sprintf("%d independent lock servers; a client needs %d of them", n, n/2+1)}
	},
	aims: []aim{
		{"minority away, then a clock jump", 25, aimRedlockJump},
		{"server clock jump", 10, aimNodeJump},
	},
}

// redlockService is N independent lock servers that know nothing of one
// another. A client holds the lock when a majority granted it within the
// lease (the client-side algorithm is in redlockclient.go). The servers'
// counters are private: there is no token a storage could check.
type redlockService struct {
	w     *world
	nodes []*simNode
	// lost holds what lost releases brought back (redlocklostrelease.go).
	lost lostReleases
}

func newRedlockService(w *world) *redlockService {
	s := &redlockService{w: w, nodes: w.simNodes(w.sc.Lock.Nodes)}
	if every := w.sc.Lock.PersistEvery.MS(); every > 0 {
		for _, n := range s.nodes {
			w.persistLoop(n, every)
		}
	}
	return s
}

func (s *redlockService) majority() int { return len(s.nodes)/2 + 1 }

// serveNode applies cmd at one server.
func (s *redlockService) serveNode(i int, cmd Command) (Reply, bool) {
	n := s.nodes[i]
	if !n.up() || !s.w.net.connected(cmd.Client, n.name) {
		return Reply{}, false
	}
	cmd.Now = n.clock.at(s.w.s.now)
	r := n.fsm.Apply(cmd)
	if cmd.Op == OpRelease && r.OK {
		s.lost.applied(n.name, cmd.Client, s.w.s.now)
	}
	return r, true
}

// serve is not how Redlock clients talk (they ask every server in turn);
// it answers from the first reachable server for completeness.
func (s *redlockService) serve(cmd Command) (Reply, string, bool) {
	for i, n := range s.nodes {
		if r, ok := s.serveNode(i, cmd); ok {
			return r, n.name, true
		}
	}
	return Reply{}, "", false
}

func (s *redlockService) nodeNames() []string { return names(s.nodes) }
func (s *redlockService) serving() string     { return "" }
func (s *redlockService) currentTerm() int64  { return 0 }

// answers: a client can have the lock only while it reaches a majority of
// servers.
func (s *redlockService) answers(client string) bool {
	up := 0
	for _, n := range s.nodes {
		if n.up() && s.w.net.connected(client, n.name) {
			up++
		}
	}
	return up >= s.majority()
}

// holders counts, for each client, the servers whose own clock says it
// holds an unexpired lease now.
func (s *redlockService) holders(lock string) map[string]int {
	out := map[string]int{}
	for _, n := range s.nodes {
		h, _, until, ok := n.fsm.Entry(lock)
		if ok && n.clock.at(s.w.s.now) < until {
			out[h]++
		}
	}
	return out
}

// record names the client a majority of servers count as holder, if any.
func (s *redlockService) record(lock string) (lockEntry, bool, *nodeClock) {
	holders := s.holders(lock)
	for _, h := range sortedNames(holders) {
		if holders[h] >= s.majority() {
			return lockEntry{Holder: h, LeaseUntil: 1 << 62}, true, &nodeClock{}
		}
	}
	return lockEntry{}, false, &nodeClock{}
}

// majorityEnd is when fewer than a majority of servers still count
// client's lease, in true time (each judges by its own clock).
func (s *redlockService) majorityEnd(lock, client string) int64 {
	var ends []int64
	for _, n := range s.nodes {
		if h, _, until, ok := n.fsm.Entry(lock); ok && h == client {
			ends = append(ends, n.clock.trueAt(until))
		}
	}
	if len(ends) < s.majority() {
		return s.w.s.now
	}
	sort.Slice(ends, func(i, j int) bool { return ends[i] > ends[j] })
	return ends[s.majority()-1]
}

func (s *redlockService) node(name string) *simNode { return findNode(s.nodes, name) }

func (s *redlockService) crash(n *simNode) { n.down = true }

// netChanged: the servers know nothing of one another; a cut only changes
// which of them a client reaches.
func (s *redlockService) netChanged() {}

// restart brings a server back with what it saved, when it saves; the
// grants it forgot may leave a client short of its majority, and a
// release it forgot counts the lease again (lostRelease).
func (s *redlockService) restart(n *simNode) {
	holder, token, _, held := n.fsm.Entry(s.w.lockName) // as it crashed
	if n.restartFromSave(s.w.sc.Lock.PersistEvery.IsSet()) {
		if h, tok, _, ok := n.fsm.Entry(s.w.lockName); ok && (!held || h != holder || tok != token) {
			s.lostRelease(n, h)
		}
		s.w.ledger.rewatch(s.w)
	}
}

func (s *redlockService) close() error { return nil }

// aimRedlockJump keeps a minority of Redlock servers away while a client
// starts, so that it gets just a majority, then moves the clock of one of
// the servers that granted it: that server drops the lease early, and the
// next client can gather a majority of its own.
func aimRedlockJump(g *generation, after int64) ([]Fault, string, bool) {
	var starts []Client
	for _, c := range g.sc.Clients {
		if c.Start.MS() >= after {
			starts = append(starts, c)
		}
	}
	n := g.sc.Lock.Nodes
	majority := n/2 + 1
	if len(starts) == 0 || n < 3 {
		return nil, "", false
	}
	c := starts[g.rng.IntN(len(starts))]
	at := c.Start.MS()
	lease := g.lease()
	away := g.pick(200, 1000)
	var faults []Fault
	for i := majority + 1; i <= n; i++ {
		faults = append(faults, Fault{At: Ms(at), Do: FaultPartition, Target: fmt.Sprintf("node-%d", i), For: Ms(away)})
	}
	node := fmt.Sprintf("node-%d", g.pick(1, int64(majority)))
	jumpAt := at + away + g.pick(1, lease/2)
	faults = append(faults, Fault{At: Ms(jumpAt), Do: FaultClockJump, Target: node, By: Ms(lease)})
	return faults, fmt.Sprintf("servers %d to %d are cut off for %s when %s starts, then %s's clock jumps %s",
		majority+1, n, FormatMS(away), c.Name, node, signed(lease)), true
}
