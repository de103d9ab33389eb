package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Raft's own timers run on the wall clock: they decide how fast a group
// elects a leader and commits, never what the timeline says, because
// simulated time stands still while a command is in flight.
//
// Two profiles. A run as fast as possible (tests, the checker, chaos) uses
// 50 ms heartbeat, election and leader-lease timeouts, the fastest that
// held steady on a loaded 2-core machine (see DESIGN.md). A run paced for
// watching spends seconds idle between commands, and an idle group's cost
// is its leader's heartbeats (every tenth of the heartbeat timeout), so it
// uses 150 ms: a third of the heartbeats, at the price of a slower first
// election and failover on the wall clock. Both use a 50 ms commit
// timeout: it only paces how soon followers learn what was committed, and
// commands are answered by the leader once a majority stored them.
type raftTiming struct {
	heartbeat, election, leaderLease, commit time.Duration
}

var (
	raftFast    = raftTiming{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
	raftWatched = raftTiming{150 * time.Millisecond, 150 * time.Millisecond, 150 * time.Millisecond, 50 * time.Millisecond}
)

const (
	raftApplyWait = 5 * time.Second // a command that takes longer is a broken group
	raftStartWait = 10 * time.Second
)

// raftFSM adapts LockFSM to raft.FSM. Apply is deterministic and never
// modifies the log entry it is given: the in-memory log store shares one
// *raft.Log (and its Data) between all nodes.
type raftFSM struct{ m *LockFSM }

func (f raftFSM) Apply(l *raft.Log) any {
	c, err := DecodeCommand(l.Data)
	if err != nil {
		return err
	}
	return f.m.Apply(c)
}

func (f raftFSM) Snapshot() (raft.FSMSnapshot, error) { return fsmSnapshot(f.m.state()), nil }

func (f raftFSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var st fsmState
	if err := json.NewDecoder(rc).Decode(&st); err != nil {
		return err
	}
	f.m.restore(st)
	return nil
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
	r     *raft.Raft
	store *raft.InmemStore
	snaps *raft.InmemSnapshotStore
	trans *raft.InmemTransport
}

// raftService is a real hashicorp/raft group of 1, 3 or 5 voters on the
// in-memory transport and stores. A command is applied through the leader
// and answered only once a majority stored it.
//
// Which node leads, and when a successor serves after a crash or a cut,
// is decided by the simulation (lock.election after the fault, the
// lowest-numbered node that can reach a majority), and the real group is
// then made to agree: Raft elects whoever times out first on the wall
// clock, and the timeline must not depend on that race.
type raftService struct {
	w      *world
	nodes  []*raftNode
	leader int // index of the node the simulation treats as leader, -1 while none serves
	timing raftTiming
	// electing is set while a successor is due, so that faults in between
	// do not schedule a second election.
	electing bool
	// linked records which directed transport links are up (links).
	linked map[[2]int]bool
	// last is the lock table as of the last answer, copied from the node
	// that applied it. The record is always read from here, never from a
	// node's live copy: a follower (or a node that just lost leadership on
	// the wall clock) applies committed entries on Raft's own schedule, and
	// the timeline must not depend on that. mu guards both: the simulation
	// serves one command at a time, but a benchmark or a pool drives serve
	// from many goroutines.
	mu        sync.Mutex
	last      map[string]lockEntry
	lastClock *nodeClock
}

func raftConfig(id string, t raftTiming) *raft.Config {
	c := raft.DefaultConfig()
	c.LocalID = raft.ServerID(id)
	c.HeartbeatTimeout = t.heartbeat
	c.ElectionTimeout = t.election
	c.LeaderLeaseTimeout = t.leaderLease
	c.CommitTimeout = t.commit
	c.Logger = hclog.New(&hclog.LoggerOptions{Name: id, Level: hclog.Off, Output: io.Discard})
	return c
}

// startRaft builds and bootstraps the group, and makes node-1 its leader so
// that every run starts from the same state.
func startRaft(w *world, n int, firstToken int64, timing raftTiming) (svc *raftService, err error) {
	svc = &raftService{w: w, timing: timing}
	defer func() {
		if err != nil {
			svc.close()
		}
	}()
	var servers []raft.Server
	for _, sn := range newSimNodes(n, firstToken) {
		addr, trans := raft.NewInmemTransport(raft.ServerAddress(sn.name))
		svc.nodes = append(svc.nodes, &raftNode{simNode: sn, trans: trans, store: raft.NewInmemStore(), snaps: raft.NewInmemSnapshotStore()})
		servers = append(servers, raft.Server{ID: raft.ServerID(sn.name), Address: addr})
	}
	svc.links()
	configuration := raft.Configuration{Servers: servers}
	for _, nd := range svc.nodes {
		conf := raftConfig(nd.name, timing)
		if err := raft.BootstrapCluster(conf, nd.store, nd.store, nd.snaps, nd.trans, configuration); err != nil {
			return svc, fmt.Errorf("raft bootstrap %s: %w", nd.name, err)
		}
		if err := svc.startNode(nd); err != nil {
			return svc, err
		}
	}
	if err := svc.settleLeader(0, raftStartWait); err != nil {
		return svc, err
	}
	return svc, nil
}

// startNode starts (or restarts) the real Raft instance of a node on its
// stores, with a fresh state machine that Raft fills from the log.
func (s *raftService) startNode(nd *raftNode) error {
	r, err := raft.NewRaft(raftConfig(nd.name, s.timing), raftFSM{nd.fsm}, nd.store, nd.store, nd.snaps, nd.trans)
	if err != nil {
		return fmt.Errorf("raft start %s: %w", nd.name, err)
	}
	nd.r = r
	return nil
}

// links makes the in-memory transport match who can reach whom: every
// pair of running nodes on the same side of every partition is linked,
// every other pair unlinked (InmemTransport's Disconnect cuts one
// direction only, so each direction is set on its own). Links already
// right are left alone, so a partition elsewhere does not disturb them.
func (s *raftService) links() {
	if s.linked == nil {
		s.linked = map[[2]int]bool{}
	}
	for i, a := range s.nodes {
		for j, b := range s.nodes {
			if i == j {
				continue
			}
			key := [2]int{i, j}
			want := a.up() && b.up() && s.w.net.connected(a.name, b.name)
			switch {
			case want && !s.linked[key]:
				a.trans.Connect(b.trans.LocalAddr(), b.trans)
			case !want && s.linked[key]:
				a.trans.Disconnect(b.trans.LocalAddr())
			}
			s.linked[key] = want
		}
	}
}

// side counts the running nodes node i reaches, itself included, and
// reports whether some running node is out of its reach.
func (s *raftService) side(i int) (reached int, cut bool) {
	for _, nd := range s.nodes {
		switch {
		case !nd.up():
		case s.w.net.connected(s.nodes[i].name, nd.name):
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

// canLead is the lowest-numbered running node that reaches a majority, or
// -1: the node the simulation elects.
func (s *raftService) canLead() int {
	for i := range s.nodes {
		if s.majorityWith(i) {
			return i
		}
	}
	return -1
}

// settleLeader waits until the group has a leader and, if it is not the
// wanted node, transfers leadership to it.
func (s *raftService) settleLeader(want int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	target := s.nodes[want]
	for time.Now().Before(deadline) {
		cur := s.realLeader()
		switch {
		case cur == want:
			// A barrier proves the leader can commit before any command waits on it.
			if err := target.r.Barrier(raftApplyWait).Error(); err == nil {
				s.leader = want
				return nil
			}
		case cur >= 0:
			f := s.nodes[cur].r.LeadershipTransferToServer(raft.ServerID(target.name), target.trans.LocalAddr())
			_ = f.Error() // a failed transfer is retried by the loop
		}
		if !s.w.pause(time.Millisecond) {
			return s.w.ctx.Err()
		}
	}
	return fmt.Errorf("raft: the lock group elected no leader in %s", wait)
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
	return s.available() && s.w.net.connected(client, s.nodes[s.leader].name)
}

func (s *raftService) serve(cmd Command) (Reply, string, bool) {
	if !s.answers(cmd.Client) {
		return Reply{}, "", false
	}
	nd := s.nodes[s.leader]
	cmd.Now = nd.clock.at(s.w.s.now)
	data := EncodeCommand(cmd)
	deadline := time.Now().Add(raftApplyWait)
	for {
		f := nd.r.Apply(data, raftApplyWait)
		err := f.Error()
		if err == nil {
			switch resp := f.Response().(type) {
			case Reply:
				s.remember(nd, cmd.Lock)
				// The timeline names the node the simulation treats as
				// leader, whoever committed it in wall-clock time.
				return resp, s.serving(), true
			case error:
				s.w.fail(fmt.Errorf("raft apply: %w", resp))
				return Reply{}, nd.name, false
			}
		}
		// Leadership moved on its own (wall-clock timers under load). The
		// command carries a request id, so sending it again through whoever
		// leads now cannot apply it twice. Simulated time does not move.
		if time.Now().After(deadline) {
			s.w.fail(fmt.Errorf("raft apply: %w", err))
			return Reply{}, nd.name, false
		}
		if !s.w.pause(time.Millisecond) {
			return Reply{}, nd.name, false
		}
		if i := s.realLeader(); i >= 0 {
			nd = s.nodes[i]
			data = EncodeCommand(cmd) // a fresh buffer: the log keeps the old one
		}
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
	if h, tok, until, ok := nd.fsm.Entry(lock); ok {
		s.last[lock] = lockEntry{Holder: h, Token: tok, LeaseUntil: until}
	} else {
		delete(s.last, lock)
	}
	s.lastClock = &nd.clock
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
	wasLeading := s.available()
	n.down = true
	s.links()
	if err := nd.r.Shutdown().Error(); err != nil {
		s.w.fail(fmt.Errorf("raft shutdown %s: %w", nd.name, err))
	}
	s.afterChange(wasLeading)
}

// restart starts the node again on its stores: it rejoins with its log.
func (s *raftService) restart(n *simNode) {
	nd := s.raftNode(n)
	wasLeading := s.available()
	n.down = false
	nd.trans.Close()
	_, nd.trans = raft.NewInmemTransport(nd.trans.LocalAddr())
	nd.fsm = NewLockFSM(s.w.sc.Lock.FirstToken)
	for key := range s.linked {
		if key[0] == s.index(nd) || key[1] == s.index(nd) {
			s.linked[key] = false // the new transport starts unlinked
		}
	}
	s.links()
	if err := s.startNode(nd); err != nil {
		s.w.fail(err)
		return
	}
	s.afterChange(wasLeading)
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
	wasLeading := s.available()
	s.links()
	s.afterChange(wasLeading)
}

// afterChange reacts to a fault: when the leader is lost, the service is
// unavailable until a successor is elected lock.election later; when a
// group without a leader regains a majority, an election is due too.
func (s *raftService) afterChange(wasLeading bool) {
	w := s.w
	if s.leader >= 0 {
		old := s.nodes[s.leader]
		reached, cut := s.side(s.leader)
		switch {
		case old.down:
			s.leader = -1
		case cut && reached <= len(s.nodes)/2:
			s.leader = -1
			w.nodeEvent(old.name, KindSteppedDown, "is cut off from the majority: it steps down, and the clients on its side get no answer")
		}
	}
	if s.available() && !wasLeading {
		// The leader kept its place while the group had no majority; the
		// real one may have stepped down meanwhile: make them agree again.
		if err := s.settleLeader(s.leader, raftStartWait); err != nil {
			s.w.fail(err)
		}
		return
	}
	if s.available() || s.electing || s.canLead() < 0 {
		if wasLeading && !s.available() && s.canLead() < 0 {
			w.nodeEvent(s.nodes[max(s.leader, 0)].name, KindNoLeader, "no majority is reachable: the group cannot commit")
		}
		return
	}
	s.electing = true
	w.s.at(w.s.now+w.sc.Lock.Election.MS(), s.elect)
}

// elect makes the lowest-numbered node that can reach a majority the
// leader, in the simulation and in the real group.
func (s *raftService) elect() {
	s.electing = false
	want := s.canLead()
	if s.available() || want < 0 {
		return
	}
	if err := s.settleLeader(want, raftStartWait); err != nil {
		s.w.fail(err)
		return
	}
	s.remember(s.nodes[want], s.w.lockName)
	s.w.nodeEvent(s.nodes[want].name, KindLeader, "is elected leader; it has every committed grant")
	s.w.leaderChanged()
}

// close shuts every running node down and waits for it, then closes the
// transports.
func (s *raftService) close() error {
	var errs []error
	// Unlink everyone first: a call to a peer that has already stopped
	// would otherwise wait out the transport's 500 ms timeout.
	for _, nd := range s.nodes {
		nd.trans.DisconnectAll()
	}
	for _, nd := range s.nodes {
		if nd.r != nil && !nd.down {
			if err := nd.r.Shutdown().Error(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, nd := range s.nodes {
		nd.trans.Close()
	}
	return errors.Join(errs...)
}
