package engine

import (
	"fmt"
	"math"
	"sort"
)

// lockService is how lock commands reach the copies of the one lock state
// machine. Backends differ only here: Raft commits on a majority before
// answering, a single server applies locally (and may save now and then),
// an asynchronous replica gets each change after the primary answered, and
// independent servers that a client counts a majority of know nothing of
// one another. Faults on lock nodes
// belong to the service, never to the clients, which only see answers or
// silence.
//
// Every method runs on the scheduler's goroutine (the baton holder), so a
// backend may block in real time (waiting for a Raft commit or election)
// while simulated time stands still.
type lockService interface {
	// serve applies cmd at the node that serves it, stamping cmd.Now with
	// that node's clock. ok is false when no lock server could answer.
	serve(cmd Command) (r Reply, node string, ok bool)
	// nodeNames lists the nodes in order.
	nodeNames() []string
	// serving names the node that answers now ("" when none).
	serving() string
	// currentTerm is the term the serving node was elected in, or 0 for
	// a service without elections.
	currentTerm() int64
	// answers reports whether a request from the named client would be
	// answered now (a node it can reach serves, and can commit).
	answers(client string) bool
	// record returns the lock's entry as the service itself records it now,
	// and the clock that judges it (for stale-write and expiry checks).
	record(lock string) (e lockEntry, held bool, clock *nodeClock)
	// node returns the named node's simulated state, or nil.
	node(name string) *simNode
	// crash stops a node and restart starts it again. The world has
	// checked that the node exists and that the fault makes sense now.
	crash(n *simNode)
	restart(n *simNode)
	// netChanged tells the service that a partition began or healed: who
	// can reach whom is in the world's network.
	netChanged()
	// close stops everything the service started and waits for it.
	close() error
}

// nodeClock is a node's or client's clock: what it reads at a true
// simulated time. A clock jump moves it by an offset; a drift makes it
// read rate milliseconds per true millisecond from the instant since.
// Only what the clock reads changes: work, pauses and messages still take
// true time.
type nodeClock struct {
	offset int64   // reading minus true time at since
	rate   float64 // 0 (or 1): the true rate
	since  int64
	// driftGen counts drifts, so that the end of one that a later drift
	// replaced changes nothing.
	driftGen int
}

func (c *nodeClock) drifting() bool { return c.rate != 0 && c.rate != 1 }

func (c *nodeClock) at(trueNow int64) int64 {
	if !c.drifting() {
		return trueNow + c.offset
	}
	return c.since + c.offset + int64(math.Floor(float64(trueNow-c.since)*c.rate))
}

// trueAt is the first true time at which the clock reads at least reading.
func (c *nodeClock) trueAt(reading int64) int64 {
	if !c.drifting() {
		return reading - c.offset
	}
	return c.since + int64(math.Ceil(float64(reading-c.since-c.offset)/c.rate))
}

// jump moves the clock by d.
func (c *nodeClock) jump(d int64) { c.offset += d }

// setRate makes the clock read rate milliseconds per true millisecond from
// now on (1: the true rate again).
func (c *nodeClock) setRate(now int64, rate float64) {
	reading := c.at(now)
	c.since, c.offset, c.rate = now, reading-now, rate
}

// simNode is one lock server as the simulation sees it: up or down, its
// clock, and (for every backend but Raft, which keeps its own) its copy of
// the lock state machine. Who it can reach is the world's network's.
type simNode struct {
	name  string
	fsm   *LockFSM
	clock nodeClock
	down  bool
	// What a single server saved last (persist_every), and when.
	saved   fsmState
	savedAt int64
	hasSave bool
}

// restartFromSave brings a crashed server back up, from its last save
// when it saves (persists); it reports whether state was restored.
func (n *simNode) restartFromSave(persists bool) bool {
	n.down = false
	if !persists || !n.hasSave {
		return false
	}
	n.fsm.restore(n.saved)
	return true
}

// up reports whether the node runs.
func (n *simNode) up() bool { return !n.down }

func newSimNodes(count int, first int64) []*simNode {
	nodes := make([]*simNode, count)
	for i := range nodes {
		nodes[i] = &simNode{name: fmt.Sprintf("node-%d", i+1), fsm: NewLockFSM(first)}
	}
	return nodes
}

func names(nodes []*simNode) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.name
	}
	return out
}

func findNode(nodes []*simNode, name string) *simNode {
	for _, n := range nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}

// forgetLost ends, in the world's record, every open grant that the
// service no longer has after it lost state (a restart from an old save, a
// promoted replica that never got the copy, a Raft leader elected after a
// lost disk took the grant's copies), saying why (grant). A grant it still
// has, without the renewals that kept it, is cut back to the lease it
// has; when that ran out already, the grant is lost as well, saying why
// (renewal). A grant whose lease had already ended (it ran out, or was
// released) is said forgotten too when the state lost its token: its
// holder loses nothing, but the token counter went back with it, so the
// token can be handed out again.
func (w *world) forgetLost(st fsmState, grant, renewal string) {
	w.forgetLostBy(st, func(*grantRec) string { return grant }, renewal)
}

// forgetLostBy is forgetLost with words for each grant: how says how the
// service lost g (a Raft leader elected after a lost disk names when g
// was committed). With renewal "", a grant the state still has is left as
// it is.
func (w *world) forgetLostBy(st fsmState, how func(g *grantRec) string, renewal string) {
	for _, g := range w.ledger.grants {
		if g.forgotten {
			continue
		}
		if g.released || w.s.now >= g.end {
			if g.token == 0 || g.token < st.Next {
				continue // the state still counts the token as handed out
			}
			g.forgotten = true
			g.gen++
			w.emit(Event{Actor: w.svc.serving(), Kind: KindGrantForgotten, Holder: g.client, Token: g.token, Ended: true,
				Reason: how(g) + w.endedWords(g)})
			continue
		}
		e, ok := st.Locks[w.lockName]
		if ok && e.Holder == g.client && e.Token == g.token {
			if renewal != "" && e.LeaseUntil < g.leaseUntil && w.keeper(g, g.leaseUntil) == "" {
				w.renewalsLost(g, e.LeaseUntil, renewal)
			}
			continue
		}
		if w.keeper(g, 0) != "" {
			continue // another primary still keeps it for its clients (keptWords)
		}
		w.forget(g, how(g))
	}
}

// endedWords says, of a grant forgotten after its lease ended, when it
// ended and what forgetting it costs: "; its lease had already run out at
// 2.9s and client-1 lost nothing, but the token went with it: token 33 can
// be handed out again".
func (w *world) endedWords(g *grantRec) string {
	ended := fmt.Sprintf("its lease had already run out at %s and %s lost nothing", FormatMS(g.end), g.client)
	if g.released {
		ended = fmt.Sprintf("%s had already released it at %s and lost nothing", g.client, FormatMS(g.releasedAt))
	}
	return fmt.Sprintf("; %s, but the token went with it: token %d can be handed out again", ended, g.token)
}

// renewalsLost cuts grant g back to the lease until that the service's
// record has, its later renewals lost: its lease_expired will say why. A
// lease that ran out by the record's clock is a grant the service lost
// while its lease ran.
func (w *world) renewalsLost(g *grantRec, until int64, why string) {
	_, _, clk := w.svc.record(w.lockName)
	if clk == nil || clk.at(w.s.now) >= until {
		g.cutBack = why
		w.forget(g, fmt.Sprintf("%s; by the service's record the lease ran out at %s, not %s", why, FormatMS(until), FormatMS(g.leaseUntil)))
		return
	}
	g.leaseUntil, g.cutBack = until, why
	g.end = w.serviceEnd(g)
	g.gen++
	w.ledger.watch(w, g)
}

// forget ends grant g now: the service lost it while its lease ran.
func (w *world) forget(g *grantRec, reason string) {
	g.end = w.s.now
	g.forgotten = true
	g.lostRunning, g.lostBy, g.lostAt = true, w.svc.serving(), w.s.now
	g.gen++
	w.emit(Event{Actor: w.svc.serving(), Kind: KindGrantForgotten, Holder: g.client, Token: g.token, Reason: reason})
}

// persistLoop saves a single server's state every period while it is up.
func (w *world) persistLoop(n *simNode, every int64) {
	var tick func()
	tick = func() {
		if w.allDone() {
			return // nothing can change any more: the run may end
		}
		if !n.down {
			n.saved, n.savedAt, n.hasSave = n.fsm.state(), w.s.now, true
		}
		w.s.at(w.s.now+every, tick)
	}
	n.saved, n.savedAt, n.hasSave = n.fsm.state(), 0, true
	w.s.at(every, tick)
}

// sortedNames lists a map's keys in order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
