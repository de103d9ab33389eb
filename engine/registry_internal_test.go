package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stealService is a toy lock server that hands the lock to whoever asks:
// before each acquire it steals the lock for the asker, with a command of
// its own state machine (the toy's store), and says so with an event kind
// of its own. It is a real lock service (a LockFSM behind the single
// server's node), only a careless one, so every scenario with two clients
// can be granted twice at once.
type stealService struct{ *singleService }

func (s stealService) serve(cmd Command) (Reply, string, bool) {
	if cmd.Op == OpAcquire && s.answers(cmd.Client) {
		r := s.n.fsm.Apply(Command{Op: opToySteal, Lock: cmd.Lock, Client: cmd.Client, Now: s.n.clock.at(s.w.s.now)})
		if r.OK {
			s.w.emit(Event{Actor: s.n.name, Kind: kindToyStolen, Node: s.n.name, Holder: r.Holder, Token: r.Token, Client: cmd.Client,
				Reason: fmt.Sprintf("takes the lock from %s for %s", r.Holder, cmd.Client)})
		}
	}
	return s.singleService.serve(cmd)
}

// The toy's own state machine command and event kind.
const (
	opToySteal    = firstBackendOp + 40
	kindToyStolen = "toy_stolen"
)

// toyStore is the toy's part of each node's state machine: one command,
// steal, that frees a lock someone else holds (its reply names who held it
// and its token) and counts its steals; every other command is the common
// machine's.
type toyStore struct{ steals int }

func (*toyStore) rules() fsmRules { return fsmRules{} }
func (s *toyStore) save() json.RawMessage {
	b, _ := json.Marshal(s.steals)
	return b
}
func (s *toyStore) load(b json.RawMessage) error { s.steals = 0; return json.Unmarshal(b, &s.steals) }
func (*toyStore) empty() fsmStore                { return &toyStore{} }

func (s *toyStore) apply(f *LockFSM, l *lockSlot, c Command, now int64) (Reply, bool) {
	if c.Op != opToySteal {
		return Reply{}, false
	}
	if l == nil || !l.held || l.e.Holder == c.Client {
		return Reply{Now: now, Reason: "nothing to steal"}, true
	}
	e := l.e
	l.e, l.held = lockEntry{}, false
	s.steals++
	return Reply{OK: true, Holder: e.Holder, Token: e.Token, Now: now}, true
}

// toyBackend is the whole of a new backend: one entry, registered from
// this file alone, with its own lock service, state machine command,
// event kind (marked on the node's lane, with a legend line) and word for
// its tokens.
var toyBackend = Backend{
	Name: "toy-steal", Label: "toy that steals",
	Nodes: []int{1}, DefaultNodes: 1, NodesRule: "the toy has 1 node",
	Tokens: true, Leader: true,
	TokenWord: "ticket",
	Kinds: []EventKind{{Kind: kindToyStolen, Doc: "node: holder and token, the grant taken; client: who gets it",
		Lane: "node", Shape: "diamond", Class: "m-expired", Label: "stolen from {holder}", Legend: "the toy steals the lock",
		describe: func(e Event) string { return "steals " + e.Holder + "'s lock for " + e.Client }}},
	Options: []BackendOption{persistEvery},
	start:   func(w *world, _ *RaftPool) (lockService, error) { return stealService{newSingleService(w)}, nil },
	store:   func() fsmStore { return &toyStore{} },
	ops:     []OpName{{opToySteal, "steal"}},
	chaos: func(pick func(lo, hi int64) int64, _ intn, l *Lock) {
		l.PersistEvery = Ms(pick(7, 9) * 111) // the toy's own draw, recognisable in every scenario
	},
	aims: []aim{{"toy: the server's clock jumps", 50, aimNodeJump}},
}

func registerToy(t *testing.T) {
	t.Helper()
	if err := RegisterBackend(toyBackend); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { UnregisterBackend(toyBackend.Name) })
}

// TestToyBackendRunsFromItsEntry: a backend registered from a test file is
// validated by its entry's bounds, listed in the capabilities with its
// token word and event kind, and runs its own lock service and state
// machine command, which grants the lock twice at once and tells the steal
// in its own event.
func TestToyBackendRunsFromItsEntry(t *testing.T) {
	if got := opToySteal.String(); got != fmt.Sprintf("op(%d)", uint8(opToySteal)) {
		t.Fatalf("the toy's command is named %q before the toy is registered", got)
	}
	registerToy(t)
	if got := opToySteal.String(); got != "steal" {
		t.Errorf("the toy's command is named %q, not by its entry", got)
	}
	caps := Capabilities()
	i := slices.IndexFunc(caps.Backends, func(b BackendCapability) bool { return b.Name == "toy-steal" })
	if i < 0 {
		t.Fatalf("capabilities lack the toy: %+v", caps.Backends)
	}
	if b := caps.Backends[i]; b.Label != "toy that steals" || !slices.Equal(b.Fields, []string{"persist_every"}) || len(b.Options) != 1 || b.Options[0].Min != minPeriod {
		t.Errorf("toy's capability: %+v", b)
	}
	if b := caps.Backends[i]; b.TokenWord != "ticket" || len(b.Kinds) != 1 || b.Kinds[0].Kind != kindToyStolen || b.Kinds[0].Doc == "" || b.Kinds[0].Legend != "the toy steals the lock" {
		t.Errorf("toy's token word and kinds: %q %+v", b.TokenWord, b.Kinds)
	}
	sc := Scenario{Lock: Lock{Backend: "toy-steal", Nodes: 3}, Until: Sec(20),
		Clients: []Client{
			{Name: "a", Steps: []Step{{Do: StepAcquire}, {Do: StepWork, For: Sec(5)}, {Do: StepRelease}}},
			{Name: "b", Start: Sec(1), Steps: []Step{{Do: StepAcquire}, {Do: StepWork, For: Sec(1)}, {Do: StepRelease}}},
		}}
	if _, err := Prepare(sc); err == nil || !strings.Contains(err.Error(), "the toy has 1 node, not 3") {
		t.Fatalf("3 nodes on the toy: %v", err)
	}
	sc.Lock.Nodes = 0
	sc.Lock.ReplicationLag = Sec(1)
	if _, err := Prepare(sc); err == nil || !strings.Contains(err.Error(), "only raft and async-replica take it, not toy-steal") {
		t.Fatalf("replication_lag on the toy: %v", err)
	}
	sc.Lock.ReplicationLag = Duration{}
	p, err := Prepare(sc)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	granted, first := 0, int64(0)
	var stolen []Event
	for _, e := range res.Events {
		switch e.Kind {
		case KindGranted:
			granted++
			first = cmp.Or(first, e.Token)
		case kindToyStolen:
			stolen = append(stolen, e)
		}
	}
	if granted != 2 || res.Summary.DoubleGrants == 0 {
		t.Errorf("the toy granted %d times, double grants %d: want 2 grants, the second while a held the lock", granted, res.Summary.DoubleGrants)
	}
	if len(stolen) != 1 || stolen[0].Holder != "a" || stolen[0].Client != "b" || stolen[0].Token != first {
		t.Fatalf("the toy's steals: %+v, want b taking a's token %d", stolen, first)
	}
	if got := Describe(stolen[0]); got != "steals a's lock for b" {
		t.Errorf("the toy's event is described %q, not in its entry's words", got)
	}
}

// TestToyStoreTravelsWithTheMachine: the toy's store is part of every copy
// of a node's machine (a save, a blank machine of the same kind), and only
// a machine with the store knows the toy's command.
func TestToyStoreTravelsWithTheMachine(t *testing.T) {
	registerToy(t)
	f := NewLockFSM(1)
	f.setStore(&toyStore{})
	f.Apply(Command{Op: OpAcquire, Lock: "l", Client: "a", Lease: 1000})
	if r := f.Apply(Command{Op: opToySteal, Lock: "l", Client: "b"}); !r.OK || r.Holder != "a" {
		t.Fatalf("steal: %+v", r)
	}
	g := f.blank(1)
	g.restore(f.state())
	if s, _ := g.store.(*toyStore); s == nil || s.steals != 1 {
		t.Errorf("a copy of the machine lost the toy's count: %+v", g.store)
	}
	if r := NewLockFSM(1).Apply(Command{Op: opToySteal, Lock: "l", Client: "b"}); r.OK || r.Reason != "unknown command steal" {
		t.Errorf("a plain machine ran the toy's command: %+v", r)
	}
}

// saverBackend is a second toy, registered from this file: the single
// server's lock service under its own name, with its own draw of
// persist_every and one aim of its own that outweighs the rest (a crash
// between two saves, then a restart inside the lease). Its flaw needs that
// fault, so chaos must place it to find anything.
var saverBackend = Backend{
	Name: "toy-saver", Label: "toy that saves now and then",
	Nodes: []int{1}, DefaultNodes: 1,
	Tokens: true, Leader: true,
	Options: []BackendOption{persistEvery},
	start:   func(w *world, _ *RaftPool) (lockService, error) { return newSingleService(w), nil },
	chaos: func(pick func(lo, hi int64) int64, _ intn, l *Lock) {
		l.PersistEvery = Ms(pick(7, 9) * 1111) // the toy's own draw, recognisable in every scenario
	},
	aims: []aim{{"toy: crash between two saves", 500, aimRestartInLease}},
}

// TestChaosPicksUpToyBackend: chaos generates scenarios for a backend it
// learns from the registry, with the entry's own draws and aims, and finds
// what the toy gets wrong: the saver's lost grants, and the stealer's
// steals through its own command, which no lock's history allows.
func TestChaosPicksUpToyBackend(t *testing.T) {
	registerToy(t)
	steal, err := Chaos(context.Background(), ChaosOptions{Runs: 10, Seed: 3, Backend: "toy-steal", Fencing: true, Examples: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if steal.Backend != "toy-steal" || steal.Linearizability.Illegal == 0 {
		t.Errorf("chaos on the stealing toy: backend %q, linearizability %+v: its steals break the lock's history", steal.Backend, steal.Linearizability)
	}
	if err := RegisterBackend(saverBackend); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { UnregisterBackend(saverBackend.Name) })
	rep, err := Chaos(context.Background(), ChaosOptions{Runs: 20, Seed: 5, Backend: "toy-saver", Fencing: true, Examples: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Backend != "toy-saver" || rep.Nodes != 1 || !rep.Fencing {
		t.Errorf("report: backend %q, %d nodes, fencing %v", rep.Backend, rep.Nodes, rep.Fencing)
	}
	if rep.ByKind.DuplicateToken == 0 || len(rep.Examples) == 0 {
		t.Fatalf("chaos found no duplicate token on a server that restarts from an old save: %+v", rep.ByKind)
	}
	ex := rep.Examples[0]
	if ex.Scenario.Lock.Backend != "toy-saver" || !slices.ContainsFunc(ex.Aims, func(a string) bool { return strings.Contains(a, "before its next save") }) {
		t.Errorf("example: backend %q, aims %q", ex.Scenario.Lock.Backend, ex.Aims)
	}
	// The toy's own draw, as the generator made it.
	sc, err := GenerateScenario(context.Background(), 5, ChaosOptions{Backend: "toy-saver", Fencing: true})
	if err != nil {
		t.Fatal(err)
	}
	if ms := sc.Lock.PersistEvery.MS(); ms%1111 != 0 || ms < 7777 || ms > 9999 {
		t.Errorf("persist_every %v is not the toy's draw", sc.Lock.PersistEvery)
	}
}

// TestRegisterBackendRefusesBadEntries: a taken name, no node count or no
// lock service is refused when registered, not when a run begins.
func TestRegisterBackendRefusesBadEntries(t *testing.T) {
	for _, tc := range []struct {
		change func(b *Backend)
		says   string
	}{
		{func(b *Backend) { b.Name = BackendRaft }, "registered already"},
		{func(b *Backend) { b.Nodes = nil }, "default node count"},
		{func(b *Backend) { b.Nodes, b.DefaultNodes = []int{7}, 7 }, "node counts are 1 to 5"},
		{func(b *Backend) { b.start = nil }, "starts no lock service"},
		{func(b *Backend) { b.Name = "a b" }, "letters, digits"},
		// Who speaks for its nodes together may not be the storage or a
		// node: the page would lose that lane.
		{func(b *Backend) { b.Actor = ActorStorage }, "names another actor"},
		{func(b *Backend) { b.Actor = "node-2" }, "names another actor"},
		{func(b *Backend) { b.Kinds = []EventKind{{Kind: "toy_x"}} }, "documentation line"},
		{func(b *Backend) {
			b.Kinds = []EventKind{{Kind: "toy_x", Doc: "d", Lane: "node", Shape: "star", Class: "m-grant", Legend: "x"}}
		}, "a shape"},
		{func(b *Backend) {
			b.Kinds = []EventKind{{Kind: "toy_x", Doc: "d", Lane: "node", Shape: "dot", Class: "m-grant"}}
		}, "legend line"},
		{func(b *Backend) {
			b.Kinds = []EventKind{{Kind: "toy_x", Doc: "d", Lane: "node", Shape: "dot", Class: `x" onclick="y`, Legend: "x"}}
		}, "style class"},
		// A common kind's name: the page draws "granted" its own way, so
		// the entry's mark would never show.
		{func(b *Backend) { b.Kinds = []EventKind{{Kind: KindGranted, Doc: "d"}} }, "one every backend has"},
		{func(b *Backend) {
			b.Kinds = []EventKind{{Kind: KindDiskLost, Doc: "d", Lane: "node", Shape: "dot", Class: "m-grant", Legend: "x"}}
		}, "one every backend has"},
		// Another backend's kind with another meaning: its legend line and
		// words are etcd's, so this one would go unsaid.
		{func(b *Backend) {
			b.Kinds = []EventKind{{Kind: KindLeaseExtended, Doc: "a toy's own extension", Lane: "node", Shape: "dot", Class: "m-grant", Legend: "x"}}
		}, `"etcd"'s already, with another meaning`},
		{func(b *Backend) {
			k := backendEntry(BackendEtcd).Kinds[0]
			k.Lease = false
			b.Kinds = []EventKind{k}
		}, "another meaning"},
		{func(b *Backend) {
			k := backendEntry(BackendEtcd).Kinds[0]
			k.Legend = "a toy's extension"
			b.Kinds = []EventKind{k}
		}, "another meaning"},
		{func(b *Backend) { b.ops = []OpName{{OpRenew, "renew2"}} }, "a number from"},
		{func(b *Backend) { b.ops = []OpName{{opRevoke, "not-revoke"}} }, `is "revoke" already`},
	} {
		b := toyBackend
		tc.change(&b)
		if err := RegisterBackend(b); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: got %v, want %q", b.Name, err, tc.says)
			UnregisterBackend(b.Name)
		}
	}
}

// TestRegisterBackendTakesASharedKindDrawnItsOwnWay: a kind another
// backend declares, with the same meaning, may be drawn another way (a copy
// of etcd under another name), and comes back after its first owner goes.
func TestRegisterBackendTakesASharedKindDrawnItsOwnWay(t *testing.T) {
	b := toyBackend
	k := backendEntry(BackendEtcd).Kinds[0]
	if k.Kind != KindLeaseExtended {
		t.Fatalf("etcd's first kind is %q", k.Kind)
	}
	k.Shape, k.Class, k.Label = "dot", "m-check", "moved to {until}"
	b.Kinds = []EventKind{k}
	if err := RegisterBackend(b); err != nil {
		t.Fatalf("etcd's lease_extended drawn as a dot: %v", err)
	}
	UnregisterBackend(b.Name)
}

// TestCommonKindsListsEveryKind: every event kind constant of the engine
// is a common kind (commonKinds) or a registered backend's own, so that
// RegisterBackend refuses every name the page draws its own way.
func TestCommonKindsListsEveryKind(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]bool{}
	for _, name := range Backends() {
		for _, k := range backendEntry(name).Kinds {
			own[k.Kind] = true
		}
	}
	n := 0
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				for i, id := range v.Names {
					lit, ok := valueAt(v, i).(*ast.BasicLit)
					if !strings.HasPrefix(id.Name, "Kind") || !ok || lit.Kind != token.STRING {
						continue
					}
					kind, _ := strconv.Unquote(lit.Value)
					n++
					if !slices.Contains(commonKinds, kind) && !own[kind] {
						t.Errorf("%s: %s = %q is neither in commonKinds nor a backend's own kind", f, id.Name, kind)
					}
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d event kinds found", n)
	}
}

// valueAt is the i-th value of a constant spec, or nil.
func valueAt(v *ast.ValueSpec, i int) ast.Expr {
	if i < len(v.Values) {
		return v.Values[i]
	}
	return nil
}

// TestOptionBoundsArePerBackend: an option is checked against the bounds
// of the backend the scenario runs on.
func TestOptionBoundsArePerBackend(t *testing.T) {
	slow, _ := LookupBackend(BackendAsyncReplica)
	slow.Name = "slow-replica"
	slow.Options[0].Max = 90_000
	if err := RegisterBackend(slow); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { UnregisterBackend("slow-replica") })
	sc := Scenario{Lock: Lock{Backend: "slow-replica", ReplicationLag: Sec(80)},
		Clients: []Client{{Name: "a", Steps: []Step{{Do: StepAcquire}}}}}
	if _, err := Prepare(sc); err != nil {
		t.Errorf("80 s of lag on the slow replica: %v", err)
	}
	sc.Lock.Backend = BackendAsyncReplica
	if _, err := Prepare(sc); err == nil || !strings.Contains(err.Error(), "lock.replication_lag") {
		t.Errorf("80 s of lag on async-replica: %v", err)
	}
}

// TestACopyOfRedlockSpeaksAsItsEntrysActor: who speaks for a majority's
// servers together is the entry's Actor, not a name the engine knows: a
// copy of Redlock whose entry names another opens its timeline and tells
// its leases' ends under that name, runs as Redlock does, and no client
// may take the name while the copy is registered.
func TestACopyOfRedlockSpeaksAsItsEntrysActor(t *testing.T) {
	toy, _ := LookupBackend(BackendRedlock)
	toy.Name, toy.Actor = "toy-majority", "toy-servers"
	if err := RegisterBackend(toy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { UnregisterBackend(toy.Name) })
	p, err := LoadPreset("redlock-clock-jump")
	if err != nil {
		t.Fatal(err)
	}
	want := runScenario(t, p.Scenario)
	p.Scenario.Lock.Backend = toy.Name
	got := runScenario(t, p.Scenario)
	if got.Summary != want.Summary {
		t.Errorf("the copy's summary %+v, Redlock's %+v", got.Summary, want.Summary)
	}
	spoke := map[string]int{}
	for _, e := range got.Events {
		if e.Actor == "toy-servers" || e.Actor == ActorRedlock {
			spoke[e.Actor+" "+e.Kind]++
		}
	}
	if spoke["toy-servers leader"] != 1 || spoke["toy-servers lease_expired"] == 0 || spoke["redlock leader"]+spoke["redlock lease_expired"] != 0 {
		t.Errorf("who spoke for the servers: %v; want the copy's actor to open the run and tell the leases' ends", spoke)
	}
	sc := p.Scenario
	sc.Clients = slices.Clone(sc.Clients)
	sc.Clients[0].Name = "toy-servers"
	if _, err := Prepare(sc); err == nil || !strings.Contains(err.Error(), "storage, sms, engine, redlock, toy-servers, leader, node-N") {
		t.Errorf("a client named as the copy's actor: %v", err)
	}
}

// runScenario prepares and runs sc.
func runScenario(t *testing.T, sc Scenario) *Result {
	t.Helper()
	prep, err := Prepare(sc)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Execute(t.Context(), prep)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestACopyOfRedlockKeepsItsActor: a copy under another name alone, which
// speaks as Redlock's servers do, registers: two backends may share who
// speaks for their nodes together.
func TestACopyOfRedlockKeepsItsActor(t *testing.T) {
	toy, _ := LookupBackend(BackendRedlock)
	toy.Name = "toy-same-voice"
	if err := RegisterBackend(toy); err != nil {
		t.Fatalf("a copy of Redlock under another name: %v", err)
	}
	UnregisterBackend(toy.Name)
}
