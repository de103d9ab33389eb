package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/anishathalye/porcupine"
)

// Backend is one lock backend's registry entry: everything the engine,
// validation, the web page's controls, the lessons' checker and chaos know
// of it. The engine asks the entry and never asks which backend it runs, so
// a backend is one file that declares its entry, plus its name in the list
// of registerBuiltins.
//
// The exported fields describe it (Capabilities and the page read them);
// the unexported ones are its behaviour: the lock service it starts, how a
// client talks to it, how its history is modelled and what chaos draws.
type Backend struct {
	// Name is lock.backend's value.
	Name string
	// Label names it on the page ("Raft group").
	Label string
	// Description says in one line how it keeps the lock (the page's
	// backend menu shows it).
	Description string
	// Nodes are the node counts it takes; DefaultNodes is what a scenario
	// without lock.nodes gets; NodesRule says Nodes in words, for the
	// refusal of another count.
	Nodes        []int
	DefaultNodes int
	NodesRule    string
	// Tokens: it hands out fencing tokens, so fencing can be on. NoTokens
	// says why fencing cannot apply when it does not.
	Tokens   bool
	NoTokens string
	// Leader: one node leads (or is primary), so a fault may aim at
	// "leader".
	Leader bool
	// Follower is the role of a node that runs and does not lead
	// ("follower", "replica", "server").
	Follower string
	// Options are the lock fields only some backends take, with their
	// bounds; a scenario of this backend may set these and no others.
	Options []BackendOption
	// Txn: a write step may be "guard": "txn", a transaction on the lock
	// service's own store, guarded by the lock key's token.
	Txn bool
	// TokenWord is what the timeline calls its tokens, before the number
	// ("rev 33"); empty: the number alone.
	TokenWord string
	// Kinds are the event kinds it adds to the timeline, each with its
	// documentation and how the page marks it.
	Kinds []EventKind
	// Holds: its nodes grant the lock each on its own, and a client holds
	// it while a majority of them granted it in time (its client counts
	// them). The timeline draws each node's grant as a hold on the node's
	// lane and gives its nodes no role; Holds is that hold's legend line.
	Holds string
	// Actor is who speaks for its nodes together in the timeline, when no
	// one of them can (a majority's lease ran out): a name no client may
	// take, which gets no lane. Empty: a node speaks.
	Actor string

	// start opens the lock service for the world's scenario; a Raft group
	// comes from pool when one is given.
	start func(w *world, pool *RaftPool) (lockService, error)
	// client is the client side of the protocol (nil: serviceClient, one
	// request to the node that serves).
	client lockClient
	// history is the sequential model a run's lock history is checked
	// against.
	history porcupine.Model
	// witness names the node that can tell that grant g's lease ran out
	// (nil: the node that granted it while it runs, else the one serving).
	witness func(w *world, g *grantRec) string
	// intro is the event that opens a run's timeline (nil: the node that
	// serves says so, with its term when it was elected).
	intro func(w *world) Event
	// restarted is what a restarted node does, in the timeline's words
	// (when it did not start from a save).
	restarted string
	// chaos draws the backend's own lock fields for a generated scenario;
	// aims are the faults aimed at its weak spots, beside the common ones.
	chaos func(pick func(lo, hi int64) int64, rng intn, l *Lock)
	aims  []aim
	// clockHistory is history judged by the answering nodes' clocks alone
	// (nil: ServerClockModel), for saying that a history broke only by a
	// clock.
	clockHistory porcupine.Model
	// expired runs when a lease's end is told (lease_expired), before the
	// event, and returns what the event adds (a leader that revokes the
	// lease through the log says so).
	expired func(w *world, g *grantRec) string
	// store makes its own part of a node's lock state machine (nil: the
	// plain lease table); ops name the commands that store adds
	// (fsmstore.go).
	store func() fsmStore
	ops   []OpName
	// localReads: its lock service's nodes answer check steps from their
	// own state too (step.read "lease" and "follower"; readpath.go).
	localReads bool
	// diskLoss: its nodes keep a log and a stable store that a lose_disk
	// fault can wipe (diskloss.go).
	diskLoss bool
	// untimed: its nodes answer "does this client hold the lock" without
	// looking at a clock (a lock node exists until the leader deletes it),
	// also in a read that skips the log (readpath.go).
	untimed bool
	// touches: every request of the holder that the service answers
	// starts its lease again, a check or an acquire asked again as much as
	// a renewal (a session whose timeout any request restarts); the
	// answer carries the new end.
	touches bool
}

// intn is the part of a random source that chaos's draws use.
type intn interface{ IntN(n int) int }

// BackendOption is a lock field that only some backends take, with its
// bounds in milliseconds.
type BackendOption struct {
	// Name is the field under lock ("replication_lag").
	Name string
	// Label names it in a form ("Replication lag"); Unset says what
	// leaving it out means, when that is worth saying.
	Label    string
	Unset    string
	Min, Max int64
	// get reads the field from a scenario's lock.
	get func(l *Lock) Duration
}

var (
	registryMu sync.RWMutex
	registry   []*Backend
	// registryGen counts changes to the registry, so that what is built
	// from it (the catalog, the page's controls) knows when to rebuild.
	registryGen int
)

func init() {
	// The one line a new backend adds its name to.
	registerBuiltins(&raftBackend, &singleBackend, &asyncBackend, &redlockBackend, &zookeeperBackend, &etcdBackend)
}

func registerBuiltins(bs ...*Backend) {
	for _, b := range bs {
		if err := RegisterBackend(*b); err != nil {
			panic(err)
		}
	}
}

// RegisterBackend adds a backend to the registry, after those already
// there. It refuses an entry without a name, a node count or a lock
// service, a name that is taken, and an event kind that is a common one
// or another backend's with another meaning. Register at start-up (or in a test,
// removing it again with UnregisterBackend): runs look their backend up as
// they begin.
func RegisterBackend(b Backend) error {
	switch {
	case !nameRE.MatchString(b.Name):
		return fmt.Errorf("backend %q: a name is letters, digits, '-' or '_'", b.Name)
	case len(b.Nodes) == 0 || !slices.Contains(b.Nodes, b.DefaultNodes):
		return fmt.Errorf("backend %q: its default node count must be one of its node counts", b.Name)
	case slices.Max(b.Nodes) > MaxNodes || slices.Min(b.Nodes) < 1:
		return fmt.Errorf("backend %q: node counts are 1 to %d", b.Name, MaxNodes)
	case b.start == nil:
		return fmt.Errorf("backend %q: it starts no lock service", b.Name)
	case b.Actor != "" && !nameRE.MatchString(b.Actor):
		return fmt.Errorf("backend %q: its actor %q is letters, digits, '-' or '_'", b.Name, b.Actor)
	case b.Actor != "" && commonActor(b.Actor):
		return fmt.Errorf("backend %q: its actor %q names another actor of the timeline", b.Name, b.Actor)
	}
	if b.client == nil {
		b.client = serviceClient{}
	}
	if b.history.Step == nil {
		b.history = LeaseLockModel
	}
	if b.Label == "" {
		b.Label = b.Name
	}
	if b.Follower == "" {
		b.Follower = "server"
	}
	if b.NodesRule == "" {
		b.NodesRule = fmt.Sprintf("%s takes %s node(s)", b.Name, orList(b.Nodes))
	}
	if err := checkKinds(b); err != nil {
		return err
	}
	b.Nodes = slices.Clone(b.Nodes)
	b.Options = slices.Clone(b.Options)
	b.aims = slices.Clone(b.aims)
	b.Kinds = slices.Clone(b.Kinds)
	b.ops = slices.Clone(b.ops)
	registryMu.Lock()
	defer registryMu.Unlock()
	if slices.ContainsFunc(registry, func(x *Backend) bool { return x.Name == b.Name }) {
		return fmt.Errorf("backend %q is registered already", b.Name)
	}
	if err := checkSharedKinds(b); err != nil {
		return err
	}
	if err := registerOps(b.Name, b.ops); err != nil {
		return err
	}
	registry = append(registry, &b)
	registryGen++
	return nil
}

// UnregisterBackend removes a backend from the registry (a test's toy).
func UnregisterBackend(name string) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry = slices.DeleteFunc(registry, func(b *Backend) bool {
		if b.Name == name {
			unregisterOps(b.ops)
		}
		return b.Name == name
	})
	registryGen++
}

// LookupBackend returns a copy of the named backend's entry. A copy under
// another name, registered with RegisterBackend, is a new backend with the
// same lock service and protocol.
func LookupBackend(name string) (Backend, bool) {
	b := backendEntry(name)
	if b == nil {
		return Backend{}, false
	}
	c := *b
	c.Nodes = slices.Clone(b.Nodes)
	c.Options = slices.Clone(b.Options)
	c.aims = slices.Clone(b.aims)
	c.Kinds = slices.Clone(b.Kinds)
	c.ops = slices.Clone(b.ops)
	return c, true
}

// Backends lists the registered backends' names, in registry order.
func Backends() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]string, len(registry))
	for i, b := range registry {
		out[i] = b.Name
	}
	return out
}

// RegistryGeneration changes whenever a backend is registered or removed:
// what is built from the registry is rebuilt when it differs.
func RegistryGeneration() int {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return registryGen
}

// backendEntry returns the named entry, or nil. Entries never change once
// registered, so the pointer may be kept for a run.
func backendEntry(name string) *Backend {
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, b := range registry {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// backendActors lists the registered backends' actors (Backend.Actor), once
// each, in registry order: names no client may take.
func backendActors() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var out []string
	for _, b := range registry {
		if b.Actor != "" && !slices.Contains(out, b.Actor) {
			out = append(out, b.Actor)
		}
	}
	return out
}

// option returns the entry's option of that name.
func (b *Backend) option(name string) (BackendOption, bool) {
	for _, o := range b.Options {
		if o.Name == name {
			return o, true
		}
	}
	return BackendOption{}, false
}

// allOptions lists every option some backend takes, once each by name,
// with the names of the backends that take it.
func allOptions() ([]BackendOption, map[string][]string) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var opts []BackendOption
	takers := map[string][]string{}
	for _, b := range registry {
		for _, o := range b.Options {
			if takers[o.Name] == nil {
				opts = append(opts, o)
			}
			takers[o.Name] = append(takers[o.Name], b.Name)
		}
	}
	return opts, takers
}

// orList writes "a, b or c".
func orList[T any](items []T) string { return listWords(items, "or") }

// listWords writes "a, b and c" (conj "and").
func listWords[T any](items []T, conj string) string {
	s := make([]string, len(items))
	for i, v := range items {
		s[i] = fmt.Sprint(v)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " " + conj + " " + s[len(s)-1]
}

// persistEvery is the option of backends whose servers save their state
// now and then (a single server, independent servers): a restart brings
// back only what was saved.
var persistEvery = BackendOption{Name: "persist_every", Label: "Saves its state every", Unset: "never loses anything on a restart",
	Min: minPeriod, Max: MaxUntil,
	get: func(l *Lock) Duration { return l.PersistEvery }}

// lockDelay is Chubby's lock-delay, for every backend with leases: after a
// lease ends without a release nobody is granted the lock for this long.
var lockDelay = BackendOption{Name: "lock_delay", Label: "Lock-delay", Unset: "the lock is free as soon as a lease ends",
	Min: 0, Max: maxLockDelay,
	get: func(l *Lock) Duration { return l.LockDelay }}

// maxLockDelay bounds lock_delay (Chubby lets a client ask for up to a
// minute).
const maxLockDelay = 60 * 1000

// replicationLag is the option of a backend that copies each change to a
// replica this long after answering (async-replica).
var replicationLag = BackendOption{Name: "replication_lag", Label: "Replication lag", Min: 0, Max: maxLag,
	get: func(l *Lock) Duration { return l.ReplicationLag }}
