package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/raft"
)

// raftBackend is the registry entry of a real hashicorp/raft group.
var raftBackend = Backend{
	Name: BackendRaft, Label: "Raft group",
	Description: "A real Raft group: a grant is committed on a majority before it is answered, and the token is a counter in the replicated state.",
	Nodes:       []int{1, 3, 5}, DefaultNodes: DefaultNodes, NodesRule: "a raft group has 1, 3 or 5 nodes",
	Tokens: true, Leader: true, Follower: "follower",
	// replication_lag makes a commit take time, so that a leader can be
	// lost between appending a command and committing it (ambiguous.go).
	Options: []BackendOption{lockDelay, replicationLag},
	start: func(w *world, pool *RaftPool) (lockService, error) {
		svc, err := pool.take(w)
		if err != nil {
			return nil, err
		}
		svc.attach(w)
		return svc, nil
	},
	// Only the leader that can commit tells that a lease ran out: a
	// follower or a node cut off from the majority may have missed a
	// renewal.
	witness:    func(w *world, _ *grantRec) string { return w.svc.serving() },
	restarted:  "starts again on its stored log and rejoins the group",
	localReads: true,
	diskLoss:   true,
	aims: []aim{
		{"leader crash after a grant", 20, aimCrashServing},
		{"leader cut off during a lease", 15, aimPartitionServing},
		{"leader clock jump", 15, aimNodeJump},
	},
}

// raftFSM adapts LockFSM to raft.FSM. Apply is deterministic and never
// modifies the log entry it is given: the in-memory transport hands every
// node the leader's *raft.Log, and their log stores (raftLog) share its
// Data. The machine sits behind a pointer that a pooled group swaps for a
// fresh one when a run takes it (before any command reaches the log).
// Only a node that commands are applied through (answers) hands its reply
// back in the entry's response, which costs an allocation (one per batch,
// ApplyBatch); the others' replies would be thrown away, so they apply
// without allocating.
type raftFSM struct {
	m       *atomic.Pointer[LockFSM]
	answers *atomic.Bool
	// since, when set, is the first index of the run the node serves now:
	// the entries before it are an earlier run's (a group handed on in a
	// chaos batch, raftreuse.go), and the machine skips them.
	since *atomic.Uint64
}

func (f raftFSM) Apply(l *raft.Log) any {
	m := f.m.Load()
	m.mu.Lock()
	r, answer, err := f.applyEntry(m, l)
	m.mu.Unlock()
	switch {
	case err != nil:
		return err
	case answer:
		a := r // only an answer is moved to the heap
		return &a
	}
	return nil
}

// ApplyBatch applies the commands Raft committed together (raft.BatchingFSM):
// Raft's own bookkeeping (a deferred response and two clock readings per
// entry) and the machine's lock are paid once per batch, and the
// answering node's replies share one allocation.
func (f raftFSM) ApplyBatch(logs []*raft.Log) []any {
	out := make([]any, len(logs))
	var replies []Reply // never grows past its capacity: its pointers stay good
	m := f.m.Load()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, l := range logs {
		r, answer, err := f.applyEntry(m, l)
		switch {
		case err != nil:
			out[i] = err
		case answer:
			if replies == nil {
				replies = make([]Reply, 0, len(logs)-i)
			}
			replies = append(replies, r)
			out[i] = &replies[len(replies)-1]
		}
	}
	return out
}

// applyEntry applies one entry to m, whose lock the caller holds, and says
// whether its reply is to be handed back. Entries that are not commands
// (configuration changes) and bare ones (benchmarks' ceiling) change
// nothing and get no response.
func (f raftFSM) applyEntry(m *LockFSM, l *raft.Log) (Reply, bool, error) {
	if l.Type != raft.LogCommand || len(l.Data) == 0 || (f.since != nil && l.Index < f.since.Load()) {
		return Reply{}, false, nil
	}
	r, err := m.applyEncodedLocked(l.Data)
	return r, err == nil && f.answers.Load(), err
}

func (f raftFSM) Snapshot() (raft.FSMSnapshot, error) { return fsmSnapshot(f.m.Load().state()), nil }

func (f raftFSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var st fsmState
	if err := json.NewDecoder(rc).Decode(&st); err != nil {
		return err
	}
	return f.m.Load().restoreFrom(st)
}

type fsmSnapshot fsmState

func (s fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if err := json.NewEncoder(sink).Encode(fsmState(s)); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s fsmSnapshot) Release() {}

// raftNode is one voter of the group: its simulated state (clock, up or
// down, cut off) and the real Raft instance with its stores, kept across a
// crash so that a restarted node rejoins with its log.
type raftNode struct {
	*simNode
	r     *raft.Raft       // guarded by raftService.mu for readers off the run's goroutine
	log   *raftLog         // the node's log (raftLog)
	store *raft.InmemStore // its stable store (term, vote)
	snaps *raft.InmemSnapshotStore
	trans *memTransport
	fsm   atomic.Pointer[LockFSM] // what the real node applies to: simNode.fsm
	// answers is set once a command was applied through this node: from
	// then on its state machine hands replies back (raftFSM).
	answers atomic.Bool
	since   atomic.Uint64 // raftFSM.since
	obs     *raft.Observer
}

// raftService is a real hashicorp/raft group of 1, 3 or 5 voters on the
// in-memory transport and stores. A command is applied through the leader
// and answered only once a majority stored it.
//
// Which node leads, and when a successor serves after a crash or a cut,
// is decided by the simulation (lock.election after the fault, the
// lowest-numbered node that can win: it reaches a majority whose logs are
// no more up to date than its own, raftelect.go), and the real group is
// then made to hold exactly that election: the simulation sends the chosen
// node Raft's TimeoutNow message (the one a leadership transfer ends
// with), and the node campaigns at once and wins a real vote. Raft's own
// wall-clock timers are calm (raftTimers) and, while the simulation has no
// leader, held back altogether, so that they never race the simulation.
// When they fire anyway (a machine so busy that heartbeats stall), the
// service waits it out while simulated time stands still: it makes the
// simulation's leader the real one again and resends the command, whose
// request id keeps it from applying twice.
type raftService struct {
	w     *world // nil while the group waits in a pool
	waits waiter
	nodes []*raftNode
	// ctrl is the simulation's own hand on the group: a transport linked to
	// every node (and by nobody), over which it sends TimeoutNow. It is not
	// a voter and partitions do not cut it.
	ctrl *memTransport
	// changed wakes a settle when a node's state or leader changes (an
	// observer on every running node feeds it).
	changed chan raft.Observation

	leader int // index of the node the simulation treats as leader, -1 while none serves
	// term is the simulation's leader's Raft term: the bootstrap is term 1,
	// node-1's first election term 2, and every election the simulation
	// holds is won in the term after the latest its winner and the voters
	// it reaches heard of (electionTerm): one more than the last, unless a
	// lost disk took the latest terms. It is what leader events carry; the
	// real group is made to hold the same elections, so its term matches
	// unless its own timers fired.
	term int64
	// ledTerms is the node each term's election made leader, to say so of
	// a term elected again after a lost disk took it from the voters.
	ledTerms map[int64]int
	// ledFrom is where each term's leader's entries began in the
	// simulation's account (simLogs.seq of the entry that opened it).
	ledFrom map[int64]int64
	// realTerm is the real term of the simulation's leader when it was last
	// made (or proved) the real leader.
	realTerm uint64
	// electing is set while a successor is due, so that faults in between
	// do not schedule a second election.
	electing bool
	// held is set while Raft's election timers are held back (no leader).
	held bool
	// logs is the simulation's account of where each node's log ends,
	// which decides who can win an election (raftelect.go).
	logs simLogs
	// linked records which directed transport links are up (links).
	linked map[[2]int]bool
	// settleMu keeps concurrent commits (LockGroup) from settling at once.
	settleMu sync.Mutex
	// cmds holds the buffers commands are encoded in (cmdarena.go).
	cmds cmdArena

	// mu guards last and lastClock (serve may run on many goroutines in a
	// benchmark) and each node's r (Nodes reads it from any goroutine).
	mu sync.Mutex
	// last is the lock table as of the last answer, copied from the node
	// that applied it. The record is always read from here, never from a
	// node's live copy: a follower (or a node that just lost leadership on
	// the wall clock) applies committed entries on Raft's own schedule, and
	// the timeline must not depend on that.
	last      map[string]lockEntry
	lastClock *nodeClock

	probe *raftProbe // tests only: what the group committed and where

	// hooks are what a backend built on the group adds to its elections,
	// set by its start function; they are the run's: attach clears them.
	hooks raftHooks
	// deposed is the index of the last leader that lost its majority
	// while it ran, and deposedAt when (its leader lease is timed from
	// then, by its own clock); views is each node's copy of the lock
	// table as far as it has heard (readpath.go).
	deposed   int
	deposedAt int64
	views     map[string]map[string]lockEntry
	// wiped is set once a node lost its disk: Raft's promise that a
	// leader has every committed entry no longer holds.
	wiped bool
	// flights are the commands appended and not yet committed, while a
	// commit takes replication_lag twice over; withheld holds the leader's
	// links to the followers down meanwhile (ambiguous.go).
	flights  []*inflight
	withheld bool
}

// raftHooks are a backend's additions to the group's elections.
type raftHooks struct {
	// elected run when a new leader has been elected, before open leases
	// are judged again by its clock (a leader that extends the leases it
	// inherits does it here).
	elected []func(leader *raftNode)
	// led run after every election the simulation holds, once the leases
	// were judged again (a backend takes up its leader's duties there).
	led []func()
}

// bootTerm is the term of node-1's first election in a new group.
const bootTerm = 2

// bootRaft builds and bootstraps a group of n voters and makes node-1 its
// leader (term 2) with a real election that the simulation starts.
func bootRaft(waits waiter, n int) (svc *raftService, err error) {
	svc = &raftService{waits: waits, changed: make(chan raft.Observation, 64)}
	defer func() {
		if err != nil {
			svc.close()
		}
	}()
	svc.ctrl = newMemTransport("simulation")
	var servers []raft.Server
	for _, sn := range newSimNodes(n, 1) {
		addr := raft.ServerAddress(sn.name)
		trans := newMemTransport(addr)
		svc.nodes = append(svc.nodes, &raftNode{simNode: sn, trans: trans, log: &raftLog{}, store: raft.NewInmemStore(), snaps: raft.NewInmemSnapshotStore()})
		servers = append(servers, raft.Server{ID: raft.ServerID(sn.name), Address: addr})
	}
	svc.links()
	configuration := raft.Configuration{Servers: servers}
	for _, nd := range svc.nodes {
		conf := raftConfig(nd.name, raftTimers)
		if err := raft.BootstrapCluster(conf, nd.log, nd.store, nd.snaps, nd.trans, configuration); err != nil {
			return svc, fmt.Errorf("raft bootstrap %s: %w", nd.name, err)
		}
		if err := svc.startNode(nd); err != nil {
			return svc, err
		}
	}
	if err := svc.settle(0, bootTerm); err != nil {
		return svc, err
	}
	// The election needed one follower; the group is handed to its run
	// once every follower has the leader's term and log, as the simulation
	// counts on every node it reaches. Without the wait, a run that took a
	// few milliseconds on a busy machine could end with a follower that
	// never heard of the election: its node panel read "t1 · c0" beside a
	// timeline where it took every append. A follower is only waited for
	// (its goroutines being scheduled), so only a broken group, or the
	// run's end, cuts the wait short, as for settle.
	ctx := waits.context()
	if _, ok := svc.level(raftPatience, ctx.Done()); !ok {
		if err := ctx.Err(); err != nil {
			return svc, err
		}
		return svc, fmt.Errorf("raft: the followers' logs did not come level with node-1's (waited up to %s): %s", raftPatience, svc.logEnds())
	}
	svc.leader, svc.term = 0, bootTerm
	return svc, nil
}

// logEnds says, for an error, where each node's log ends and the state
// and term Raft gives it: "node-1 leader t2 ends 3 (t2), ...".
func (s *raftService) logEnds() string {
	var b strings.Builder
	for i, nd := range s.nodes {
		if i > 0 {
			b.WriteString(", ")
		}
		last, term := nd.log.lastEntry()
		fmt.Fprintf(&b, "%s %s t%d ends %d (t%d)", nd.name, strings.ToLower(nd.r.State().String()), nd.r.CurrentTerm(), last, term)
	}
	return b.String()
}

// attach hands a booted group to a run: fresh simulated nodes (clocks,
// flags) and a fresh state machine on every node, whose first token is the
// scenario's and whose store is the backend's. The group's log holds only
// its bootstrap and node-1's election, no command, so the machines are
// exactly what a group booted for this run would have.
func (s *raftService) attach(w *world) {
	s.w, s.waits = w, w.waits
	s.hooks = raftHooks{}
	s.deposed, s.views, s.wiped = -1, nil, false
	s.flights, s.withheld = nil, false
	s.ledTerms, s.ledFrom = map[int64]int{bootTerm: 0}, map[int64]int64{}
	for i, sn := range w.simNodes(len(s.nodes)) {
		nd := s.nodes[i]
		nd.simNode = sn
		nd.fsm.Store(sn.fsm)
	}
	s.resetLogs()
	if s.probe = w.probe; s.probe != nil {
		s.probe.elected(s)
	}
}

// startNode starts (or restarts) the real Raft instance of a node on its
// stores, with the state machine of its simNode, which Raft fills from the
// log.
func (s *raftService) startNode(nd *raftNode) error {
	nd.fsm.Store(nd.simNode.fsm)
	r, err := raft.NewRaft(raftConfig(nd.name, raftTimers), raftFSM{m: &nd.fsm, answers: &nd.answers, since: &nd.since}, nd.log, nd.store, nd.snaps, nd.trans)
	if err != nil {
		return fmt.Errorf("raft start %s: %w", nd.name, err)
	}
	nd.obs = raft.NewObserver(s.changed, false, func(o *raft.Observation) bool {
		switch o.Data.(type) {
		case raft.RaftState, raft.LeaderObservation:
			return true
		}
		return false
	})
	r.RegisterObserver(nd.obs)
	s.mu.Lock()
	nd.r = r
	s.mu.Unlock()
	return nil
}

// stopNode shuts a node's Raft instance down and waits for it.
func (s *raftService) stopNode(nd *raftNode) error {
	nd.r.DeregisterObserver(nd.obs)
	// Its transport closes first: a call it holds for a cut link ends, and
	// Raft waits for its goroutines before it closes the transport itself.
	nd.trans.Close()
	return nd.r.Shutdown().Error()
}

// links makes the in-memory transport match who can reach whom: every
// pair of running nodes on the same side of every partition is linked,
// every other pair unlinked (memTransport's Disconnect cuts one
// direction only, so each direction is set on its own). Links already
// right are left alone, so a partition elsewhere does not disturb them.
// The simulation's own transport is linked to every node, whatever the
// partitions.
func (s *raftService) links() {
	if s.linked == nil {
		s.linked = map[[2]int]bool{}
	}
	for i, a := range s.nodes {
		s.ctrl.Connect(a.trans.LocalAddr(), a.trans)
		for j, b := range s.nodes {
			if i == j {
				continue
			}
			key := [2]int{i, j}
			want := a.up() && b.up() && s.connected(a.name, b.name) && !(s.withheld && i == s.leader)
			switch {
			case want && !s.linked[key]:
				a.trans.Connect(b.trans.LocalAddr(), b.trans)
			case !want && s.linked[key]:
				a.trans.Disconnect(b.trans.LocalAddr())
			}
			s.linked[key] = want
		}
	}
	behind := s.msgs().behindLeader(s)
	s.replicated()
	s.msgs().replicate(s, "", behind)
}

// connected reports whether the simulated network links two actors (all
// are linked while the group waits in a pool).
func (s *raftService) connected(a, b string) bool {
	return s.w == nil || s.w.net.connected(a, b)
}

// side counts the running nodes node i reaches, itself included, and
// reports whether some running node is out of its reach.
func (s *raftService) side(i int) (reached int, cut bool) {
	for _, nd := range s.nodes {
		switch {
		case !nd.up():
		case s.connected(s.nodes[i].name, nd.name):
			reached++
		default:
			cut = true
		}
	}
	return reached, cut
}

// majorityWith reports whether node i is up and reaches a majority.
func (s *raftService) majorityWith(i int) bool {
	reached, _ := s.side(i)
	return s.nodes[i].up() && reached > len(s.nodes)/2
}

// canLead is the lowest-numbered node that can win an election (it
// reaches a majority whose logs are no more up to date than its own), or
// -1: the node the simulation elects.
func (s *raftService) canLead() int {
	for i := range s.nodes {
		if s.majorityWith(i) && s.eligible(i) {
			return i
		}
	}
	return -1
}

// realLeader is the index of a running node on a majority's side that
// believes it leads, or -1. A node cut off on a minority's side may still
// believe it leads for a moment (until its leader lease runs out): it
// cannot commit, and is not counted.
func (s *raftService) realLeader() int {
	for i, nd := range s.nodes {
		if nd.up() && nd.r != nil && s.majorityWith(i) && nd.r.State() == raft.Leader {
			return i
		}
	}
	return -1
}

// available reports whether the simulation's leader runs and reaches a
// majority, so that it can commit.
func (s *raftService) available() bool {
	return s.leader >= 0 && s.majorityWith(s.leader)
}

// answers reports whether the client's requests reach a leader that can
// commit. A client cut off with a deposed leader gets no answer: the
// minority cannot commit.
func (s *raftService) answers(client string) bool {
	return s.available() && s.connected(client, s.nodes[s.leader].name)
}

// currentTerm is the simulation's term, which leader events carry.
func (s *raftService) currentTerm() int64 { return s.term }

// serve applies cmd through the simulation's leader, stamped with that
// leader's clock.
func (s *raftService) serve(cmd Command) (Reply, string, bool) {
	if !s.answers(cmd.Client) {
		return Reply{}, "", false
	}
	nd := s.nodes[s.leader]
	cmd.Now = nd.clock.at(s.w.s.now)
	if s.w.sc.Lock.ReplicationLag.MS() > 0 {
		return s.serveLater(nd, cmd)
	}
	r, err := s.commit(nd, cmd)
	if err != nil {
		s.fail(err)
		return Reply{}, nd.name, false
	}
	s.remember(nd, cmd.Lock)
	s.appended()
	s.msgs().replicate(s, appendText(cmd), nil)
	// The timeline names the node the simulation treats as leader, which
	// is the one that committed it.
	return r, nd.name, true
}

// commit applies cmd at nd, the simulation's leader, and waits until a
// majority stored it. When the real group has moved on without nd
// (Raft's own timers fired on a starved machine, or the leader was too
// busy to take the command), nd is made the real leader again and the same
// command, with the same request id, is sent again: simulated time does not
// move. It is safe for concurrent use (LockGroup); the simulation's own
// bookkeeping of the answer (remember) is serve's.
func (s *raftService) commit(nd *raftNode, cmd Command) (Reply, error) {
	if !nd.answers.Load() {
		nd.answers.Store(true)
	}
	resp, err := s.apply(nd, s.cmds.encode(cmd)) // the log keeps the buffer: never reused or changed
	if err != nil {
		return Reply{}, err
	}
	var r Reply
	switch resp := resp.(type) {
	case nil:
		// Applied before this node was told to answer (a command
		// committed by an earlier leader): the machine keeps the latest
		// reply of each client.
		var ok bool
		if r, ok = nd.simNode.fsm.Answer(cmd.Client, cmd.ReqID); !ok {
			return Reply{}, fmt.Errorf("raft apply: no answer recorded for %s's request %d", cmd.Client, cmd.ReqID)
		}
	case *Reply:
		r = *resp
	case error:
		return Reply{}, fmt.Errorf("raft apply: %w", resp)
	default:
		return Reply{}, fmt.Errorf("raft apply: unexpected answer %T", resp)
	}
	if s.probe != nil {
		s.probe.committed(s, cmd, nd.name)
	}
	return r, nil
}

// apply appends data through nd, waits until a majority stored it and
// returns the state machine's response, riding out the group's hiccups as
// commit says. A command sent again carries its request id, so it is
// applied once.
func (s *raftService) apply(nd *raftNode, data []byte) (any, error) {
	var p *patience
	for {
		f := nd.r.Apply(data, raftEnqueueWait)
		err := f.Error()
		if err == nil {
			return f.Response(), nil
		}
		if errors.Is(err, raft.ErrRaftShutdown) {
			return nil, fmt.Errorf("raft apply on %s: %w", nd.name, err)
		}
		// Not the leader any more, leadership lost while committing (the
		// outcome is unknown: the entry may still commit), or the leader
		// too busy to take it.
		if p == nil {
			p = s.waits.start()
		}
		if !p.again() {
			return nil, fmt.Errorf("raft apply on %s: %w; %s", nd.name, err, p)
		}
		if err := s.resettle(nd); err != nil {
			return nil, err
		}
	}
}

// resettle makes nd the real leader again after a hiccup, once, however
// many commands noticed it.
func (s *raftService) resettle(nd *raftNode) error {
	s.settleMu.Lock()
	defer s.settleMu.Unlock()
	i := s.index(nd)
	if i < 0 {
		return fmt.Errorf("raft: %s is not in the group", nd.name)
	}
	return s.settle(i, 0)
}

// fail records an internal error in the run (a pooled group has none).
func (s *raftService) fail(err error) {
	if s.w != nil {
		s.w.fail(err)
	}
}

func (s *raftService) nodeNames() []string {
	out := make([]string, len(s.nodes))
	for i, nd := range s.nodes {
		out[i] = nd.name
	}
	return out
}

func (s *raftService) serving() string {
	if !s.available() {
		return ""
	}
	return s.nodes[s.leader].name
}

// record reads the lock as the group last committed it, judged by the
// clock of the node that leads (or led last).
func (s *raftService) record(lock string) (lockEntry, bool, *nodeClock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.last[lock]
	clk := &s.nodes[max(s.leader, 0)].clock
	if !s.available() && s.lastClock != nil {
		clk = s.lastClock
	}
	return e, ok, clk
}

// remember copies a node's record of lock after it applied a command.
func (s *raftService) remember(nd *raftNode, lock string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		s.last = map[string]lockEntry{}
	}
	if h, tok, until, ok := nd.simNode.fsm.Entry(lock); ok {
		s.last[lock] = lockEntry{Holder: h, Token: tok, LeaseUntil: until}
	} else {
		delete(s.last, lock)
	}
	s.lastClock = &nd.clock
	s.spread(nd, lock)
}

func (s *raftService) node(name string) *simNode {
	for _, nd := range s.nodes {
		if nd.name == name {
			return nd.simNode
		}
	}
	return nil
}

func (s *raftService) raftNode(n *simNode) *raftNode {
	for _, nd := range s.nodes {
		if nd.simNode == n {
			return nd
		}
	}
	return nil
}

// crash really shuts the node down (and waits for it); its stores survive
// for a restart.
func (s *raftService) crash(n *simNode) {
	nd := s.raftNode(n)
	s.catchUp()
	n.down = true
	s.links()
	if err := s.stopNode(nd); err != nil {
		s.fail(fmt.Errorf("raft shutdown %s: %w", nd.name, err))
	}
	s.afterChange()
}

// restart starts the node again on its stores: it rejoins with its log.
func (s *raftService) restart(n *simNode) {
	nd := s.raftNode(n)
	n.down = false
	nd.trans.Close()
	nd.trans = newMemTransport(nd.trans.LocalAddr())
	nd.simNode.fsm = s.w.newFSM()
	for key := range s.linked {
		if key[0] == s.index(nd) || key[1] == s.index(nd) {
			s.linked[key] = false // the new transport starts unlinked
		}
	}
	s.links()
	if err := s.startNode(nd); err != nil {
		s.fail(err)
		return
	}
	if s.held {
		s.hold(nd, true)
	}
	s.afterChange()
}

// index is a node's position in the group.
func (s *raftService) index(nd *raftNode) int {
	for i, x := range s.nodes {
		if x == nd {
			return i
		}
	}
	return -1
}

// netChanged follows a partition beginning or healing: the transport is
// relinked to match, a leader left on a minority's side steps down, and the
// majority's side elects a successor lock.election later.
func (s *raftService) netChanged() {
	s.catchUp()
	s.links()
	s.afterChange()
}

// afterChange reacts to a fault the way Raft does. A leader that is lost
// (down, or cut off on a minority's side) or can no longer reach a
// majority (too many others down) stops leading: the service is
// unavailable until a successor is elected lock.election after some node
// reaches a majority again.
func (s *raftService) afterChange() {
	w := s.w
	if j := s.laterTerm(); j >= 0 && s.available() {
		// A node that heard of a later term refuses the leader's entries,
		// and the leader, learning that term, steps down; the next
		// election is held as after a crash.
		old := s.nodes[s.leader]
		w.nodeEvent(old.name, KindSteppedDown, fmt.Sprintf("hears of term %d from %s, later than its own term %d: it steps down, and the group elects again",
			s.logs.terms[j], s.nodes[j].name, s.term))
		s.logs.terms[s.leader] = s.logs.terms[j]
		s.orphan(s.leader)
		s.leader = -1
		s.holdElections(true)
	}
	if s.leader >= 0 && !s.available() {
		old := s.nodes[s.leader]
		_, cut := s.side(s.leader)
		s.orphan(s.leader)
		s.leader = -1
		switch {
		case old.down:
		case cut:
			s.deposed, s.deposedAt = s.index(old), w.s.now
			w.nodeEvent(old.name, KindSteppedDown, "is cut off from the majority: it steps down, and the clients on its side get no answer")
		}
		if s.canLead() < 0 {
			msg := "no majority is reachable: the group cannot commit"
			if !old.down && !cut {
				msg += ", and its leader steps down"
			}
			w.nodeEvent(old.name, KindNoLeader, msg)
		}
		s.holdElections(true)
	}
	if s.leader >= 0 || s.electing || s.canLead() < 0 {
		return
	}
	s.electing = true
	w.s.at(w.s.now+w.sc.Lock.Election.MS(), s.elect)
}

// elect makes the lowest-numbered node that can win (canLead) the leader,
// in the simulation and in the real group, in a new term.
func (s *raftService) elect() {
	s.electing = false
	want := s.canLead()
	if s.leader >= 0 || want < 0 {
		return
	}
	s.logs.detours = 0
	term := s.electionTerm(want)
	if err := s.settle(want, term); err != nil {
		s.fail(err)
		return
	}
	// Raft's own timers come back once the leader reached its followers:
	// a follower restarted while none led has heard from no leader since
	// it started, and would campaign the moment its timer came back.
	s.holdElections(false)
	stale, empty := s.staleNodes()
	kept := s.keptEntries(want, term)
	s.leader = want
	s.term = term
	s.campaigned(want, term)
	s.appended() // the entry that opens its term
	s.msgs().replicate(s, fmt.Sprintf("the entry that opens term %d", s.term), nil)
	if s.probe != nil {
		s.probe.elected(s)
	}
	s.remember(s.nodes[want], s.w.lockName)
	msg := fmt.Sprintf("is elected leader in term %d; it has every committed grant", s.term)
	if s.wiped {
		msg = fmt.Sprintf("is elected leader in term %d; it has every grant its voters remember", s.term)
	}
	if len(stale) > 0 {
		msg += fmt.Sprintf(" (%s could not win: %s log lacks entries a majority stored)", strings.Join(stale, " and "), pluralWord(len(stale), "its", "their"))
	}
	if len(empty) > 0 {
		msg += fmt.Sprintf(" (%s could not win: %s lost and %s empty)", strings.Join(empty, " and "),
			pluralWord(len(empty), "its disk was", "their disks were"), pluralWord(len(empty), "its log is", "their logs are"))
	}
	if prev, ok := s.ledTerms[term]; ok && prev != want {
		msg += fmt.Sprintf("; %s led in term %d before: a lost disk took that term from the voters, and the term has two leaders", s.nodes[prev].name, term)
		if len(kept) > 0 {
			msg += fmt.Sprintf("; %s %s %s's commands of term %d: Raft tells entries apart by index and term alone, so %s's own do not replace them, and the logs differ where both leaders wrote",
				strings.Join(kept, " and "), pluralWord(len(kept), "keeps", "keep"), s.nodes[prev].name, term, s.nodes[want].name)
		}
	}
	s.ledTerms[term] = want
	s.ledFrom[term] = s.logs.seq
	s.w.emit(Event{Actor: s.nodes[want].name, Kind: KindLeader, Node: s.nodes[want].name, Term: s.term, Message: msg})
	if s.wiped {
		// What a majority stored can be gone with a lost disk: the new
		// leader's log may lack a grant whose lease still runs, or its
		// latest renewals (forgetLost), or still have the lock held by a
		// holder that released it (releaseForgotten).
		leader := s.nodes[want].name
		s.w.forgetLostBy(s.nodes[want].simNode.fsm.state(), func(g *grantRec) string {
			return fmt.Sprintf("a lost disk took a copy of this grant, committed at %s, and %s was elected by nodes whose logs lack it", FormatMS(g.start), leader)
		}, fmt.Sprintf("a lost disk took the copies of the renewals that kept this lease, and %s was elected by nodes whose logs lack them", leader))
		s.w.releaseForgotten(func(holder string, at int64) string {
			return fmt.Sprintf("a lost disk took a copy of %s's release, committed at %s, and %s was elected by nodes whose logs lack it", holder, FormatMS(at), leader)
		})
	}
	s.settleOrphans(s.nodes[want])
	for _, f := range s.hooks.elected {
		f(s.nodes[want])
	}
	s.w.leaderChanged()
	for _, f := range s.hooks.led {
		f()
	}
}

// status reports each node as the real Raft instance sees itself now, with
// the last entry its log (its disk) holds when Raft has not noted it yet:
// Raft notes an entry as its last a moment after storing it, and a
// follower descheduled in between would otherwise report less than it
// holds, less than a new group's followers are known to hold (bootRaft).
// Raft's own figure counts a snapshot's last entry too. Every node of a
// group a run holds was started when the group booted (a group that
// failed to boot is never handed out), and a crashed one keeps its
// stopped instance, which reports "shutdown". It runs on the run's
// goroutine, as a lost disk's wipe does.
func (s *raftService) status() []NodeStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]NodeStatus, len(s.nodes))
	for i, nd := range s.nodes {
		r := nd.r
		stored, _ := nd.log.LastIndex()
		out[i] = NodeStatus{Name: nd.name, Role: strings.ToLower(r.State().String()), Term: r.CurrentTerm(),
			LastLogIndex: max(stored, r.LastIndex()), CommitIndex: r.CommitIndex(), AppliedIndex: r.AppliedIndex()}
	}
	return out
}

// close shuts every running node down and waits for it, then closes the
// transports.
func (s *raftService) close() error {
	if s.probe != nil {
		s.probe.closing(s)
	}
	var errs []error
	// Unlink everyone first, so that no node starts a new call to a peer
	// that is stopping (a call already waiting ends when the peer's
	// transport closes, memTransport).
	for _, nd := range s.nodes {
		nd.trans.DisconnectAll()
	}
	for _, nd := range s.nodes {
		if nd.r != nil && !nd.down {
			if err := s.stopNode(nd); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, nd := range s.nodes {
		nd.trans.Close()
	}
	if s.ctrl != nil {
		s.ctrl.Close()
	}
	return errors.Join(errs...)
}
