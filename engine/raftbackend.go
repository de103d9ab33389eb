package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Raft's own timers run on the wall clock: they decide how fast a group
// elects a leader and commits, never what the timeline says, because
// simulated time stands still while a command is in flight. 50 ms is the
// fastest that held steady on a loaded 2-core machine (see DESIGN.md).
const (
	raftHeartbeat   = 50 * time.Millisecond
	raftElection    = 50 * time.Millisecond
	raftLeaderLease = 50 * time.Millisecond
	raftCommit      = 5 * time.Millisecond
	raftApplyWait   = 5 * time.Second // a command that takes longer is a broken group
	raftStartWait   = 10 * time.Second
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

// raftNode is one voter of the group.
type raftNode struct {
	name  string
	r     *raft.Raft
	fsm   *LockFSM
	trans *raft.InmemTransport
	clock nodeClock
}

// raftService is a real hashicorp/raft group of 1, 3 or 5 voters on the
// in-memory transport and stores. A command is applied through the leader
// and answered only once a majority stored it.
type raftService struct {
	w      *world
	nodes  []*raftNode
	leader int // index of the node the simulation treats as leader
}

func raftConfig(id string) *raft.Config {
	c := raft.DefaultConfig()
	c.LocalID = raft.ServerID(id)
	c.HeartbeatTimeout = raftHeartbeat
	c.ElectionTimeout = raftElection
	c.LeaderLeaseTimeout = raftLeaderLease
	c.CommitTimeout = raftCommit
	c.Logger = hclog.New(&hclog.LoggerOptions{Name: id, Level: hclog.Off, Output: io.Discard})
	return c
}

// startRaft builds and bootstraps the group, and makes node-1 its leader so
// that every run starts from the same state.
func startRaft(w *world, n int, firstToken int64) (svc *raftService, err error) {
	svc = &raftService{w: w}
	defer func() {
		if err != nil {
			svc.close()
		}
	}()
	var servers []raft.Server
	for i := range n {
		name := fmt.Sprintf("node-%d", i+1)
		addr, trans := raft.NewInmemTransport(raft.ServerAddress(name))
		svc.nodes = append(svc.nodes, &raftNode{name: name, trans: trans, fsm: NewLockFSM(firstToken)})
		servers = append(servers, raft.Server{ID: raft.ServerID(name), Address: addr})
	}
	for _, a := range svc.nodes {
		for _, b := range svc.nodes {
			if a != b {
				a.trans.Connect(b.trans.LocalAddr(), b.trans)
			}
		}
	}
	configuration := raft.Configuration{Servers: servers}
	for _, nd := range svc.nodes {
		conf := raftConfig(nd.name)
		store := raft.NewInmemStore()
		snaps := raft.NewInmemSnapshotStore()
		if err := raft.BootstrapCluster(conf, store, store, snaps, nd.trans, configuration); err != nil {
			return svc, fmt.Errorf("raft bootstrap %s: %w", nd.name, err)
		}
		r, err := raft.NewRaft(conf, raftFSM{nd.fsm}, store, store, snaps, nd.trans)
		if err != nil {
			return svc, fmt.Errorf("raft start %s: %w", nd.name, err)
		}
		nd.r = r
	}
	if err := svc.settleLeader(0, raftStartWait); err != nil {
		return svc, err
	}
	return svc, nil
}

// settleLeader waits until the group has a leader and, if it is not the
// wanted node, transfers leadership to it: Raft elects whoever times out
// first, and the timeline must not depend on that race.
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
		time.Sleep(time.Millisecond)
	}
	return errors.New("raft: the lock group elected no leader in time")
}

// realLeader is the index of the node that believes it leads, or -1.
func (s *raftService) realLeader() int {
	for i, nd := range s.nodes {
		if nd.r != nil && nd.r.State() == raft.Leader {
			return i
		}
	}
	return -1
}

func (s *raftService) serve(cmd Command) (Reply, string, bool) {
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
		time.Sleep(time.Millisecond)
		if i := s.realLeader(); i >= 0 {
			nd = s.nodes[i]
			data = EncodeCommand(cmd) // a fresh buffer: the log keeps the old one
		}
	}
}

func (s *raftService) nodeNames() []string {
	names := make([]string, len(s.nodes))
	for i, nd := range s.nodes {
		names[i] = nd.name
	}
	return names
}

func (s *raftService) serving() string { return s.nodes[s.leader].name }

// close shuts every node down and waits for it, then closes the transports.
func (s *raftService) close() error {
	var errs []error
	for _, nd := range s.nodes {
		if nd.r != nil {
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
