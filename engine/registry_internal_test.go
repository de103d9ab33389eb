package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// stealService is a toy lock server that hands the lock to whoever asks:
// before each acquire it releases the current holder. It is a real lock
// service (a LockFSM behind the single server's node), only a careless one,
// so every scenario with two clients can be granted twice at once.
type stealService struct{ *singleService }

func (s stealService) serve(cmd Command) (Reply, string, bool) {
	if cmd.Op == OpAcquire && s.answers(cmd.Client) {
		if h, tok, _, ok := s.n.fsm.Entry(cmd.Lock); ok && h != cmd.Client {
			s.n.fsm.Apply(Command{Op: OpRelease, Lock: cmd.Lock, Client: h, Token: tok, ReqID: 1 << 40})
		}
	}
	return s.singleService.serve(cmd)
}

// toyBackend is the whole of a new backend: one entry, registered from
// this file alone.
var toyBackend = Backend{
	Name: "toy-steal", Label: "toy that steals",
	Nodes: []int{1}, DefaultNodes: 1, NodesRule: "the toy has 1 node",
	Tokens: true, Leader: true,
	Options: []BackendOption{persistEvery},
	start:   func(w *world, _ *RaftPool) (lockService, error) { return stealService{newSingleService(w)}, nil },
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
// validated by its entry's bounds, listed in the capabilities, and runs its
// own lock service, which grants the lock twice at once.
func TestToyBackendRunsFromItsEntry(t *testing.T) {
	registerToy(t)
	caps := Capabilities()
	i := slices.IndexFunc(caps.Backends, func(b BackendCapability) bool { return b.Name == "toy-steal" })
	if i < 0 {
		t.Fatalf("capabilities lack the toy: %+v", caps.Backends)
	}
	if b := caps.Backends[i]; b.Label != "toy that steals" || !slices.Equal(b.Fields, []string{"persist_every"}) || len(b.Options) != 1 || b.Options[0].Min != minPeriod {
		t.Errorf("toy's capability: %+v", b)
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
	granted := 0
	for _, e := range res.Events {
		if e.Kind == KindGranted {
			granted++
		}
	}
	if granted != 2 || res.Summary.DoubleGrants == 0 {
		t.Errorf("the toy granted %d times, double grants %d: want 2 grants, the second while a held the lock", granted, res.Summary.DoubleGrants)
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
// what the toy gets wrong.
func TestChaosPicksUpToyBackend(t *testing.T) {
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
	} {
		b := toyBackend
		tc.change(&b)
		if err := RegisterBackend(b); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: got %v, want %q", b.Name, err, tc.says)
			UnregisterBackend(b.Name)
		}
	}
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
