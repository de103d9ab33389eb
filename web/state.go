package web

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/leaselab/playground/engine"
)

// State is what the lock service and the storage look like at one moment of
// a run, folded from the events alone. It is the one fold: the server sends
// it with each step of a live run and with every finished run (Fold), and
// the page draws it (static/js never folds the events itself).
type State struct {
	T       int64       `json:"t"`
	Backend string      `json:"backend"`
	Nodes   []NodeState `json:"nodes"`
	Lock    LockRow     `json:"lock"`
	Storage StorageRow  `json:"storage"`

	clients []string // the scenario's clients
	sides   []side   // the partitions in force (state_beside.go)
	beside  LockRow  // a grant another primary keeps beside the panel's
}

// NodeState is one lock server and its role: "leader", "follower" (Raft),
// "replica" (an asynchronous copy), "server" (a backend without roles),
// "down" or "cut off".
type NodeState struct {
	Name string `json:"name"`
	Role string `json:"role"`
}

// LockRow is the lock table's one row. An empty Holder means free.
type LockRow struct {
	Name       string `json:"name"`
	Holder     string `json:"holder,omitempty"`
	Token      int64  `json:"token,omitempty"`
	LeaseUntil int64  `json:"lease_until,omitempty"`
	Node       string `json:"node,omitempty"`
}

// StorageRow is the stored record and the last statement the storage ran.
type StorageRow struct {
	Key     string `json:"key"`
	Value   int64  `json:"value"`
	Fence   int64  `json:"fence"`
	Owner   string `json:"owner,omitempty"`
	SQL     string `json:"sql,omitempty"`
	Rows    *int64 `json:"rows,omitempty"`
	Client  string `json:"client,omitempty"`
	Outcome string `json:"outcome,omitempty"` // the kind of the last storage event
}

var nodeActor = regexp.MustCompile(`^node-[0-9]+$`)

// IsNode reports whether an actor names a lock server.
func IsNode(actor string) bool { return nodeActor.MatchString(actor) }

// NewState is the state before the first event of a normalised scenario.
func NewState(sc engine.Scenario) State {
	name := sc.Lock.Name
	if name == "" {
		name = sc.Storage.Key
	}
	s := State{Backend: sc.Lock.Backend, Nodes: []NodeState{}, Lock: LockRow{Name: name}, Storage: StorageRow{Key: sc.Storage.Key, Value: sc.Storage.Initial}}
	for _, c := range sc.Clients {
		s.clients = append(s.clients, c.Name)
	}
	if engine.UsesLock(&sc) {
		for i := 1; i <= sc.Lock.Nodes; i++ {
			s.Nodes = append(s.Nodes, NodeState{Name: fmt.Sprintf("node-%d", i), Role: s.followerRole()})
		}
	}
	return s
}

// followerRole is the role of a node that is up but does not lead, as
// its backend's registry entry names it.
func (s *State) followerRole() string {
	if b, ok := engine.LookupBackend(s.Backend); ok {
		return b.Follower
	}
	return "server"
}

// Apply folds one event into the state and reports whether anything a
// panel shows changed.
func (s *State) Apply(e engine.Event) bool {
	before := s.clone()
	s.T = e.T
	if IsNode(e.Actor) {
		s.node(e.Actor)
	}
	switch e.Kind {
	case engine.KindLeader:
		if !IsNode(e.Actor) {
			break // its nodes together speak (Backend.Actor): none leads
		}
		for i := range s.Nodes {
			if s.Nodes[i].Role == "leader" {
				s.Nodes[i].Role = s.followerRole()
			}
		}
		s.node(e.Actor).Role = "leader"
	case engine.KindNodeCrashed:
		s.node(e.Actor).Role = "down"
	case engine.KindPartitioned:
		// A partition's side may hold clients too; they are not servers.
		s.partitioned(e)
		if s.quorum() {
			s.regroup()
		} else if IsNode(e.Actor) {
			s.node(e.Actor).Role = "cut off"
		}
	case engine.KindHealed:
		// A node another partition still cuts off stays cut off; one
		// that crashed meanwhile stays down until it restarts.
		s.healed(e)
		if s.quorum() {
			s.regroup()
		} else if IsNode(e.Actor) && !s.cutOff(e.Actor) && s.node(e.Actor).Role == "cut off" {
			s.node(e.Actor).Role = s.followerRole()
		}
	case engine.KindNodeRestarted:
		if IsNode(e.Actor) {
			s.node(e.Actor).Role = s.followerRole()
			if s.quorum() && s.isolated(e.Actor) {
				s.node(e.Actor).Role = "cut off"
			}
		}
	case engine.KindRejoined:
		s.node(e.Actor).Role = "replica"
	case engine.KindGrantForgotten:
		s.drop(e.Holder, e.Token, e.T)
	case engine.KindReleaseForgotten:
		// The service lost a release: by its record the lock is the
		// holder's again, though the holder gave it back.
		s.Lock.Holder, s.Lock.Token, s.Lock.LeaseUntil, s.Lock.Node = e.Holder, e.Token, e.LeaseUntil, e.Node
	case engine.KindRead, engine.KindReadRefused:
		// With fencing a holder's read stores its token as the fence.
		if e.SQL != "" {
			st := &s.Storage
			if e.Kind == engine.KindRead {
				st.Fence = e.Token
			}
			st.SQL, st.Rows, st.Client, st.Outcome = e.SQL, e.Rows, e.Actor, e.Kind
		}
	case engine.KindGranted:
		if s.beside.Node == e.Node {
			s.beside = LockRow{} // that node's record holds this grant now
		}
		s.Lock.Holder, s.Lock.Token, s.Lock.LeaseUntil, s.Lock.Node = e.Actor, e.Token, e.LeaseUntil, e.Node
	case engine.KindAnswerLost:
		// An acquire or renew the service applied and never answered (it
		// says the lease): the service's record holds the grant, or the
		// lease the renewal extended, unknown to the client until it
		// asks again.
		switch {
		case e.LeaseUntil == 0 || e.Token == 0:
		case e.Message == "acquire":
			s.Lock.Holder, s.Lock.Token, s.Lock.LeaseUntil, s.Lock.Node = e.Client, e.Token, e.LeaseUntil, e.Node
		case e.Message == "renew" && s.Lock.Holder == e.Client && s.Lock.Token == e.Token:
			s.Lock.LeaseUntil, s.Lock.Node = e.LeaseUntil, e.Node
		}
	case engine.KindRenewed:
		if s.Lock.Holder == e.Actor && s.Lock.Token == e.Token {
			s.Lock.LeaseUntil, s.Lock.Node = e.LeaseUntil, e.Node
		} else if b := &s.beside; b.Holder == e.Actor && b.Token == e.Token && b.Node == e.Node {
			b.LeaseUntil = e.LeaseUntil
		}
	case engine.KindReleased:
		s.drop(e.Actor, e.Token, e.T)
	case engine.KindLeaseExpired:
		s.drop(e.Holder, e.Token, e.T)
	case engine.KindWriteAccepted, engine.KindWriteRefused, engine.KindClaimWon, engine.KindClaimLost:
		st := &s.Storage
		if e.Kind == engine.KindWriteAccepted {
			st.Value = deref(e.Value)
			st.Fence = deref(e.Fence)
		}
		if e.Kind == engine.KindClaimWon {
			st.Owner = e.Client
		}
		st.SQL, st.Rows, st.Client, st.Outcome = e.SQL, e.Rows, e.Client, e.Kind
	default:
		k := s.kind(e.Kind)
		switch {
		case k.Back && e.Holder != "":
			// A grant the service had forgotten, held again by the node
			// the clients reach: the lock is its holder's, unless
			// another primary serves them (state_beside.go).
			s.back(LockRow{Name: s.Lock.Name, Holder: e.Holder, Token: e.Token, LeaseUntil: e.LeaseUntil, Node: e.Node}, e.T)
		case k.Lease && s.Lock.Holder == e.Holder && s.Lock.Token == e.Token && e.LeaseUntil != 0:
			// A backend's own kind that moves its holder's lease (a new
			// leader giving the lease it inherits its full TTL again).
			s.Lock.LeaseUntil, s.Lock.Node = e.LeaseUntil, e.Node
		}
	}
	return !s.equal(before)
}

// kind is the backend's registry entry for one of its own event kinds
// (what it does to the lock: EventKind.Lease, EventKind.Back), as the
// timeline's model reads it from the catalog; zero for any other kind.
func (s *State) kind(kind string) engine.EventKind {
	if b, ok := engine.LookupBackend(s.Backend); ok {
		if i := slices.IndexFunc(b.Kinds, func(k engine.EventKind) bool { return k.Kind == kind }); i >= 0 {
			return b.Kinds[i]
		}
	}
	return engine.EventKind{}
}

func (s *State) node(name string) *NodeState {
	for i := range s.Nodes {
		if s.Nodes[i].Name == name {
			return &s.Nodes[i]
		}
	}
	s.Nodes = append(s.Nodes, NodeState{Name: name, Role: "server"})
	return &s.Nodes[len(s.Nodes)-1]
}

func (s *State) clone() State {
	c := *s
	c.Nodes = slices.Clone(s.Nodes)
	c.sides = slices.Clone(s.sides)
	return c
}

// equal compares what panels show; the time alone is not a change.
func (s *State) equal(o State) bool {
	rows := func(p *int64) int64 {
		if p == nil {
			return -1
		}
		return *p
	}
	a, b := s.Storage, o.Storage
	return slices.Equal(s.Nodes, o.Nodes) && s.Lock == o.Lock &&
		a.Key == b.Key && a.Value == b.Value && a.Fence == b.Fence && a.Owner == b.Owner &&
		a.SQL == b.SQL && rows(a.Rows) == rows(b.Rows) && a.Client == b.Client && a.Outcome == b.Outcome
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
