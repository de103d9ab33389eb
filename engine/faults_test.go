package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
)

// sideScenario: client-1 takes the lock at 0 (token 33), renews every 3 s
// and works 20 s before writing; client-2 asks from 2 s, every second. At
// 1 s a partition cuts side off from the rest for 30 s.
func sideScenario(backend string, fencing bool, side ...string) engine.Scenario {
	return engine.Scenario{
		Title: "a partition with a client on its side", Seed: 1, Fencing: fencing, Until: engine.Sec(60),
		Lock:    engine.Lock{Backend: backend, Lease: engine.Sec(10)},
		Storage: engine.Storage{Initial: 40000},
		Clients: []engine.Client{
			{Name: "client-1", RenewEvery: engine.Sec(3), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(20)}, {Do: "write", Add: ptr(int64(2000))}, {Do: "release"}}},
			{Name: "client-2", Start: engine.Sec(2), RetryEvery: engine.Sec(1), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(1)}, {Do: "write", Add: ptr(int64(3000))}, {Do: "release"}}},
		},
		Faults: []engine.Fault{{At: engine.Sec(1), Do: "partition", Side: side, For: engine.Sec(30)}},
	}
}

// TestPartitionWithClientSide: a Raft leader is cut off together with the
// client holding the lock. The leader steps down (the minority cannot
// commit), client-1's renewals go unanswered, the majority elects node-2,
// which grants token 34 to client-2 once client-1's lease ran out. client-1,
// told nothing, writes at 20 s: fencing refuses it; without fencing it
// lands on top of client-2's write.
func TestPartitionWithClientSide(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		t.Run(fmt.Sprintf("fencing=%v", fencing), func(t *testing.T) {
			res := mustRun(t, sideScenario(engine.BackendRaft, fencing, "node-1", "client-1"))
			for _, who := range []string{"node-1", "client-1"} {
				if p := find(res, who, engine.KindPartitioned); len(p) != 1 || p[0].T != 1000 || p[0].Until != 31000 {
					t.Errorf("%s should be cut off from 1 s to 31 s: %v", who, p)
				}
				if h := find(res, who, engine.KindHealed); len(h) != 1 || h[0].T != 31000 {
					t.Errorf("%s should reach the others again at 31 s: %v", who, h)
				}
			}
			if d := find(res, "node-1", engine.KindSteppedDown); len(d) != 1 || d[0].T != 1000 {
				t.Errorf("node-1 should step down at 1 s: %v", d)
			}
			if l := find(res, "node-2", engine.KindLeader); len(l) != 1 || l[0].T != 2000 {
				t.Errorf("the majority's side should elect node-2 at 2 s: %v", l)
			}
			var unanswered []int64
			for _, e := range find(res, "client-1", engine.KindUnavailable) {
				if e.Message == "renew" {
					unanswered = append(unanswered, e.T)
				}
			}
			if fmt.Sprint(unanswered) != "[3000 6000 9000]" {
				t.Errorf("client-1's renewals at 3, 6 and 9 s should go unanswered: %v", unanswered)
			}
			if s := find(res, "client-1", engine.KindRenewStopped); len(s) != 1 || s[0].T != 12000 {
				t.Errorf("client-1's renewal loop should stop by its own clock at 12 s: %v", s)
			}
			grantAt(t, res, "client-2", 34, 10000)
			if e := find(res, "node-1", engine.KindLeaseExpired); len(e) != 0 {
				t.Errorf("node-1, cut off from the majority, cannot know the lease ran out: %v", e)
			}
			s := res.Summary
			if fencing {
				lastWrite(t, res, "client-1", engine.KindWriteRefused, 33, 20000)
				if !s.Safe || s.FinalValue != 43000 {
					t.Errorf("fencing refuses the late write: %+v", s)
				}
			} else {
				w := lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 20000)
				if !w.Stale || s.Safe || s.StaleWritesAccepted != 1 || s.FinalValue != 42000 {
					t.Errorf("without fencing the late write lands on client-2's: %+v", s)
				}
			}
			if s.DoubleGrants != 0 || s.DuplicateTokens != 0 {
				t.Errorf("Raft grants once: %+v", s)
			}
			if !res.History().Linearizable(5 * time.Second) {
				t.Errorf("the history should be linearizable")
			}
		})
	}
}

// TestPartitionSidesOnEveryBackend cuts client-1 off with the node it
// talks to, on each backend, and checks what each does.
func TestPartitionSidesOnEveryBackend(t *testing.T) {
	cases := []struct {
		backend string
		side    []string
		check   func(t *testing.T, res *engine.Result)
	}{
		{engine.BackendSingle, []string{"node-1", "client-1"}, func(t *testing.T, res *engine.Result) {
			// The one server stays with client-1: client-1 renews and
			// writes; client-2 reaches nothing until the partition heals.
			if r := find(res, "client-1", engine.KindRenewed); len(r) != 6 {
				t.Errorf("client-1 reaches its server and renews every 3 s: %v", r)
			}
			lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 20000)
			if u := find(res, "client-2", engine.KindUnavailable); len(u) == 0 || u[0].T != 2000 {
				t.Errorf("client-2 cannot reach the server: %v", u)
			}
			grantAt(t, res, "client-2", 34, 31000)
			if s := res.Summary; !s.Safe || s.DoubleGrants != 0 || s.UnavailableMS != 0 {
				t.Errorf("one holder at a time; the server answers someone throughout: %+v", s)
			}
		}},
		{engine.BackendAsyncReplica, []string{"node-1", "client-1"}, func(t *testing.T, res *engine.Result) {
			// The primary goes on serving client-1 on its side, unaware
			// it was replaced: two primaries, two holders.
			if l := find(res, "node-2", engine.KindLeader); len(l) != 1 || l[0].T != 2000 {
				t.Errorf("the monitor promotes node-2 at 2 s: %v", l)
			}
			if r := find(res, "client-1", engine.KindRenewed); len(r) != 6 || r[0].Node != "node-1" {
				t.Errorf("the deposed primary keeps renewing client-1's lease: %v", r)
			}
			grantAt(t, res, "client-2", 34, 10000)
			lastWrite(t, res, "client-1", engine.KindWriteRefused, 33, 20000)
			if j := find(res, "node-1", engine.KindRejoined); len(j) != 1 || j[0].T != 31000 {
				t.Errorf("node-1 rejoins as replica when it reaches node-2 again: %v", j)
			}
			if s := res.Summary; s.DoubleGrants != 1 || !s.Safe {
				t.Errorf("two holders at once; fencing still refuses the late write: %+v", s)
			}
		}},
		{engine.BackendRedlock, []string{"node-1", "node-2", "client-1"}, func(t *testing.T, res *engine.Result) {
			// client-1 reaches 2 of 5 servers: it cannot renew. client-2
			// reaches 3, a majority, once client-1's lease ran out there.
			if r := find(res, "client-1", engine.KindRenewed); len(r) != 0 {
				t.Errorf("client-1 cannot renew with 2 of 5 servers: %v", r)
			}
			g := find(res, "client-2", engine.KindGranted)
			if len(g) != 1 || g[0].T != 10000 || !strings.Contains(g[0].Message, "node-3, node-4, node-5") {
				t.Errorf("client-2 should hold nodes 3, 4 and 5 from 10 s: %v", g)
			}
			lastWrite(t, res, "client-1", engine.KindWriteAccepted, 0, 20000)
			if s := res.Summary; s.Safe || s.StaleWritesAccepted != 1 {
				t.Errorf("no token to fence with: the late write lands: %+v", s)
			}
		}},
		{engine.BackendRaft, []string{"leader", "client-1"}, func(t *testing.T, res *engine.Result) {
			if p := find(res, "node-1", engine.KindPartitioned); len(p) != 1 {
				t.Errorf("\"leader\" in a side is the node that leads when it strikes: %v", p)
			}
			grantAt(t, res, "client-2", 34, 10000)
			lastWrite(t, res, "client-1", engine.KindWriteRefused, 33, 20000)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.backend, func(t *testing.T) {
			t.Parallel()
			tc.check(t, mustRun(t, sideScenario(tc.backend, tc.backend != engine.BackendRedlock, tc.side...)))
		})
	}
}

// TestPartitionOfTheStorage: with the storage on a side of its own, the
// clients cannot reach it; a write waits, is sent again every retry_every,
// and lands when the partition heals.
func TestPartitionOfTheStorage(t *testing.T) {
	sc := sideScenario(engine.BackendSingle, true, "storage")
	sc.Faults[0].At, sc.Faults[0].For = engine.Sec(19), engine.Ms(2500)
	res := mustRun(t, sc)
	var tries []int64
	for _, e := range find(res, "client-1", engine.KindUnavailable) {
		if e.Message == "write" {
			tries = append(tries, e.T)
		}
	}
	if fmt.Sprint(tries) != "[20000 21000]" {
		t.Errorf("client-1's write should find the storage out of reach at 20 and 21 s: %v", tries)
	}
	lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 22000)
}

// TestAnswerLostWhenCutOff: client-1's acquire reaches the server, is
// granted, and client-1 is cut off before the answer gets back. The server
// shows the grant with its answer lost; client-1 sees no answer, asks again
// once it can, and gets the same grant back.
func TestAnswerLostWhenCutOff(t *testing.T) {
	sc := engine.Scenario{
		Title: "a grant nobody heard", Seed: 1, Until: engine.Sec(30),
		Lock:    engine.Lock{Backend: engine.BackendSingle, Lease: engine.Sec(10), Latency: engine.Ms(100)},
		Clients: []engine.Client{{Name: "client-1", Steps: []engine.Step{{Do: "acquire"}, {Do: "release"}}}},
		Faults:  []engine.Fault{{At: engine.Ms(150), Do: "partition", Side: []string{"client-1"}, For: engine.Sec(2)}},
	}
	res := mustRun(t, sc)
	lost := find(res, "node-1", engine.KindAnswerLost)
	if len(lost) != 1 || lost[0].T != 200 || lost[0].Message != "acquire" || lost[0].Token != 33 {
		t.Fatalf("node-1 granted token 33 and the answer was lost at 200 ms: %v", lost)
	}
	if u := find(res, "client-1", engine.KindUnavailable); len(u) == 0 || u[0].T != 200 {
		t.Errorf("client-1 should see no answer at 200 ms: %v", u)
	}
	if g := find(res, "client-1", engine.KindGranted); len(g) != 1 || g[0].Token != 33 {
		t.Errorf("asking again, client-1 gets the same grant back: %v", g)
	}
	if !res.History().Linearizable(5 * time.Second) {
		t.Errorf("the history should be linearizable with the lost answer pending")
	}
}

// driftScenario: a careful client (watch_lease) with no renewal takes a
// 10 s lease and works 15 s before writing; client-2 asks every second.
func driftScenario(fencing bool, faults ...engine.Fault) engine.Scenario {
	return engine.Scenario{
		Title: "a drifting clock", Seed: 1, Fencing: fencing, Until: engine.Sec(60),
		Lock:    engine.Lock{Backend: engine.BackendSingle, Lease: engine.Sec(10)},
		Storage: engine.Storage{Initial: 40000},
		Clients: []engine.Client{
			{Name: "client-1", WatchLease: true, Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(15)}, {Do: "write", Add: ptr(int64(2000))}, {Do: "release"}}},
			{Name: "client-2", Start: engine.Sec(1), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "write", Add: ptr(int64(3000))}, {Do: "release"}}},
		},
		Faults: faults,
	}
}

// TestDriftOnACarefulClient: a careful client whose clock runs at half
// speed believes its lease lasts twice as long: after 15 s of work its
// clock reads 7.5 s, so it writes, late. With a true clock the same client
// gives up before writing.
func TestDriftOnACarefulClient(t *testing.T) {
	true_ := mustRun(t, driftScenario(false))
	if l := find(true_, "client-1", engine.KindLockLost); len(l) != 1 || l[0].T != 15000 {
		t.Fatalf("with a true clock the careful client gives up at 15 s: %v", l)
	}
	if len(writes(true_, "client-1")) != 0 {
		t.Fatalf("with a true clock the careful client does not write")
	}
	for _, fencing := range []bool{false, true} {
		t.Run(fmt.Sprintf("fencing=%v", fencing), func(t *testing.T) {
			res := mustRun(t, driftScenario(fencing, engine.Fault{At: engine.Ms(0), Do: "clock_drift", Target: "client-1", Rate: 0.5}))
			if d := find(res, "client-1", engine.KindClockDrift); len(d) != 1 || d[0].Rate != 0.5 || d[0].T != 0 {
				t.Errorf("client-1's clock should drift from 0 s: %v", d)
			}
			grantAt(t, res, "client-2", 34, 10000)
			if l := find(res, "client-1", engine.KindLockLost); len(l) > 0 && l[0].T < 15000 {
				t.Errorf("client-1 should not notice before writing: %v", l)
			}
			s := res.Summary
			if fencing {
				lastWrite(t, res, "client-1", engine.KindWriteRefused, 33, 15000)
				if !s.Safe {
					t.Errorf("%+v", s)
				}
				return
			}
			lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 15000)
			if s.Safe || s.StaleWritesAccepted != 1 {
				t.Errorf("its slow clock let client-1 write late: %+v", s)
			}
		})
	}
}

// TestDriftOnTheServer: a lock server whose clock runs twice as fast ends
// a 10 s lease after 5 s of true time and grants the lock again while the
// first holder is healthy; once the drift ends the clock keeps its lead
// but runs true again.
func TestDriftOnTheServer(t *testing.T) {
	sc := driftScenario(true, engine.Fault{At: engine.Ms(0), Do: "clock_drift", Target: "node-1", Rate: 2, For: engine.Sec(4)})
	sc.Clients[0].WatchLease = false
	res := mustRun(t, sc)
	d := find(res, "node-1", engine.KindClockDrift)
	if len(d) != 2 || d[0].Rate != 2 || d[0].Until != 4000 || d[1].T != 4000 || d[1].Rate != 1 {
		t.Fatalf("node-1's clock should drift from 0 to 4 s: %v", d)
	}
	// By 4 s the clock reads 8 s; the lease (until 10 s by that clock) ends
	// 2 s later, at 6 s true time.
	if e := find(res, "node-1", engine.KindLeaseExpired); len(e) == 0 || e[0].T != 6000 {
		t.Errorf("client-1's lease should run out at 6 s: %v", e)
	}
	grantAt(t, res, "client-2", 34, 6000)
	if s := res.Summary; s.DoubleGrants != 1 || !s.Safe {
		t.Errorf("a second holder while the first is healthy; fencing refuses the late write: %+v", s)
	}
	lastWrite(t, res, "client-1", engine.KindWriteRefused, 33, 15000)
}

// TestAsyncUnavailableEndsAtPromotion: the lock service is unavailable from
// the primary's crash until the replica is promoted, not until the next
// request happens to come.
func TestAsyncUnavailableEndsAtPromotion(t *testing.T) {
	res := mustRun(t, mustPreset(t, "async-failover", true))
	if s := res.Summary; s.UnavailableMS != 1000 {
		t.Errorf("unavailable from the crash at 200 ms to the promotion at 1.2 s, not to client-2's request at 1.5 s: %d ms", s.UnavailableMS)
	}
}

// TestDownNodeTellsNothing: a crashed lock server does not announce that a
// lease ran out; when it comes back it tells what it missed.
func TestDownNodeTellsNothing(t *testing.T) {
	if e := find(mustRun(t, mustPreset(t, "lock-server-down", true)), "", engine.KindLeaseExpired); len(e) != 0 {
		t.Errorf("the only server is down: nobody can say the lease ran out: %v", e)
	}
	sc := mustPreset(t, "lock-server-down", true)
	sc.Faults = append(sc.Faults, engine.Fault{At: engine.Sec(16), Do: "restart", Target: "node-1"})
	e := find(mustRun(t, sc), "", engine.KindLeaseExpired)
	if len(e) != 1 || e[0].T != 16000 || e[0].Actor != "node-1" || !strings.Contains(e[0].Message, "ran out at 13s") {
		t.Errorf("back at 16 s, node-1 tells that the lease ran out at 13 s: %v", e)
	}
}

// TestBadPartitionsAndDrifts: every mistake names the field.
func TestBadPartitionsAndDrifts(t *testing.T) {
	base := sideScenario(engine.BackendRaft, true)
	cases := []struct {
		name  string
		fault engine.Fault
		field string
		says  string
	}{
		{"side and target", engine.Fault{At: engine.Sec(1), Do: "partition", Target: "node-1", Side: []string{"node-2"}, For: engine.Sec(1)}, "faults[0].side", "not both"},
		{"neither", engine.Fault{At: engine.Sec(1), Do: "partition", For: engine.Sec(1)}, "faults[0].side", "is required"},
		{"empty side", engine.Fault{At: engine.Sec(1), Do: "partition", Side: []string{}, For: engine.Sec(1)}, "faults[0].side", "lists nothing"},
		{"unknown member", engine.Fault{At: engine.Sec(1), Do: "partition", Side: []string{"node-1", "client-9"}, For: engine.Sec(1)}, "faults[0].side[1]", `"client-9"`},
		{"twice", engine.Fault{At: engine.Sec(1), Do: "partition", Side: []string{"client-1", "client-1"}, For: engine.Sec(1)}, "faults[0].side[1]", "listed twice"},
		{"everything", engine.Fault{At: engine.Sec(1), Do: "partition", Side: []string{"node-1", "node-2", "node-3", "client-1", "client-2", "storage"}, For: engine.Sec(1)}, "faults[0].side", "nothing is left"},
		// Every node and client, storage left out: the storage stays
		// reachable from both sides, so nothing is cut off.
		{"every node and client", engine.Fault{At: engine.Sec(1), Do: "partition", Side: []string{"node-1", "node-2", "node-3", "client-1", "client-2"}, For: engine.Sec(1)}, "faults[0].side", "nothing is cut off"},
		{"client as target", engine.Fault{At: engine.Sec(1), Do: "partition", Target: "client-1", For: engine.Sec(1)}, "faults[0].target", "list it in side"},
		{"side on a pause", engine.Fault{At: engine.Sec(1), Do: "pause", Target: "client-1", Side: []string{"node-1"}, For: engine.Sec(1)}, "faults[0].side", "takes no"},
		{"drift too slow", engine.Fault{At: engine.Sec(1), Do: "clock_drift", Target: "client-1", Rate: 0.01}, "faults[0].rate", "between 0.1 and 10"},
		{"drift too fast", engine.Fault{At: engine.Sec(1), Do: "clock_drift", Target: "node-2", Rate: 11}, "faults[0].rate", "between 0.1 and 10"},
		{"drift of 1", engine.Fault{At: engine.Sec(1), Do: "clock_drift", Target: "node-2", Rate: 1}, "faults[0].rate", "changes nothing"},
		{"drift without rate", engine.Fault{At: engine.Sec(1), Do: "clock_drift", Target: "node-2"}, "faults[0].rate", "is required"},
		{"drift of the leader", engine.Fault{At: engine.Sec(1), Do: "clock_drift", Target: "leader", Rate: 2}, "faults[0].target", "needs a node by name"},
		{"drift with by", engine.Fault{At: engine.Sec(1), Do: "clock_drift", Target: "node-2", Rate: 2, By: engine.Sec(1)}, "faults[0].by", "takes no"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := base
			sc.Faults = []engine.Fault{tc.fault}
			_, err := engine.Prepare(sc)
			var fe *engine.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.says) {
				t.Errorf("got %v, want %s saying %q", err, tc.field, tc.says)
			}
		})
	}
}
