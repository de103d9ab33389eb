package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
)

// pauseStarts are the instants of client-1's work (from 0 to 4 s in
// paused-holder) at which the sweep starts a pause: every 250 ms, and the
// edges around the renewal at 3 s and the write at 4 s. A pause at 0 ms is
// not inside the work: faults due at an instant apply before the client's
// own action, so it falls before client-1 even asks for the lock.
func pauseStarts(short bool) []int64 {
	step := int64(250)
	if short {
		step = 1000
	}
	starts := []int64{1, 2999, 3001, 3999}
	for p := step; p <= 4000; p += step {
		starts = append(starts, p)
	}
	return starts
}

// TestPauseAnywhereInWorkWritesLate is the notes' timeline as a property:
// with paused-holder's settings, a pause longer than the remaining lease
// that starts anywhere inside client-1's work makes its late write happen,
// wherever it falls. Fencing off, the storage accepts it and the run is
// unsafe; fencing on, it is refused. Renewing every second instead of
// every 3 s changes nothing: a frozen process renews nothing.
func TestPauseAnywhereInWorkWritesLate(t *testing.T) {
	pauses := []int64{12000, 15000, 20000}
	if testing.Short() {
		pauses = []int64{15000}
	}
	for _, renew := range []string{"3s", "1s"} {
		for _, p := range pauseStarts(testing.Short()) {
			for _, d := range pauses {
				for _, fencing := range []bool{false, true} {
					name := fmt.Sprintf("renew=%s/at=%dms/for=%dms/fencing=%v", renew, p, d, fencing)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						res := mustRun(t, mustPreset(t, "paused-holder", fencing,
							"clients[client-1].renew_every", renew,
							"faults[0].at", fmt.Sprintf("%dms", p),
							"faults[0].for", fmt.Sprintf("%dms", d)))
						checkLateWrite(t, res, p, d, fencing)
					})
				}
			}
		}
	}
}

// checkLateWrite asserts the outcome of a pause at p for d on client-1.
func checkLateWrite(t *testing.T, res *engine.Result, p, d int64, fencing bool) {
	t.Helper()
	// The pause is longer than what was left of the lease when it began.
	leaseEnd := int64(0)
	for _, e := range res.Events {
		if e.Actor == "client-1" && (e.Kind == engine.KindGranted || e.Kind == engine.KindRenewed) && e.T <= p {
			leaseEnd = e.LeaseUntil
		}
	}
	if leaseEnd == 0 || leaseEnd-p >= d {
		t.Fatalf("the pause of %d ms at %d ms should outlast the lease (ending at %d ms)", d, p, leaseEnd)
	}
	if r := find(res, "client-1", engine.KindRenewed); len(r) > 0 && r[len(r)-1].T > p {
		t.Errorf("a frozen client renewed: %v", r)
	}
	ws := writes(res, "client-1")
	if len(ws) != 1 {
		t.Fatalf("client-1 should write exactly once, late: %v", ws)
	}
	w := ws[0]
	if w.T < p+d {
		t.Errorf("client-1's write landed at %d ms, before it woke at %d ms", w.T, p+d)
	}
	if lost := find(res, "client-1", engine.KindLockLost); len(lost) > 0 && lost[0].T < w.T {
		t.Errorf("the worker learned it lost the lock before writing, though nothing told it: %v", lost)
	}
	s := res.Summary
	if fencing {
		if w.Kind != engine.KindWriteRefused || w.Token != 33 || s.StaleWritesAccepted != 0 || !s.Safe {
			t.Errorf("fencing on: the late write with token 33 should be refused: %v %+v", w, s)
		}
		return
	}
	if w.Kind != engine.KindWriteAccepted || !w.Stale || s.StaleWritesAccepted != 1 || s.Safe || !s.LostUpdate {
		t.Errorf("fencing off: the late write should be accepted, marked stale, and the run unsafe: %v %+v", w, s)
	}
}

// TestLateRenewalKeepsTheLock: one renewal held up in the network for 20 s
// must not cost a client renewing every second under a 15 s lease its
// lock. The next renewals go out on schedule; the held one is shown as
// timed out, and its answer, when it comes, is still applied and shown.
func TestLateRenewalKeepsTheLock(t *testing.T) {
	sc := engine.Scenario{
		Title: "one renewal held up", Seed: 1, Until: engine.Sec(60),
		Lock:    engine.Lock{Backend: engine.BackendRaft, Nodes: 3, Lease: engine.Sec(15)},
		Storage: engine.Storage{Initial: 100},
		Clients: []engine.Client{
			{Name: "client-1", RenewEvery: engine.Sec(1), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(40)}, {Do: "write", Add: ptr(int64(1))}, {Do: "release"}}},
			{Name: "client-2", Start: engine.Sec(1), RetryEvery: engine.Sec(1), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "write", Add: ptr(int64(10))}, {Do: "release"}}},
		},
		Faults: []engine.Fault{{At: engine.Sec(2), Do: "delay", Target: "client-1", Kind: "renew", By: engine.Sec(20)}},
	}
	for _, fencing := range []bool{false, true} {
		t.Run(fmt.Sprintf("fencing=%v", fencing), func(t *testing.T) {
			sc.Fencing = fencing
			res := mustRun(t, sc)
			if d := find(res, "client-1", engine.KindDelayed); len(d) != 1 || d[0].T != 2000 || d[0].Until != 22000 {
				t.Fatalf("the renewal sent at 2 s should be held until 22 s: %v", d)
			}
			if to := find(res, "client-1", engine.KindRenewTimeout); len(to) != 1 || to[0].T != 3000 {
				t.Errorf("the held renewal should time out at 3 s (renew_timeout defaults to renew_every): %v", to)
			}
			renewed := find(res, "client-1", engine.KindRenewed)
			at := map[int64]bool{}
			for _, r := range renewed {
				at[r.T] = true
			}
			for s := int64(3000); s <= 40000; s += 1000 {
				if !at[s] {
					t.Errorf("no renewal answered at %d ms: the renewals should not wait for the held one", s)
				}
			}
			late := false
			for _, r := range renewed {
				late = late || (r.T == 22000 && strings.Contains(r.Message, "late answer to the renewal sent at 2s"))
			}
			if !late {
				t.Errorf("the held renewal's answer should arrive at 22 s and be shown as late: %v", renewed)
			}
			if len(find(res, "client-1", engine.KindRenewStopped)) != 0 || len(find(res, "client-1", engine.KindLockLost)) != 0 {
				t.Errorf("client-1 should never lose its lock")
			}
			lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 40000)
			if g := find(res, "client-2", engine.KindGranted); len(g) != 1 || g[0].T != 41000 {
				t.Errorf("client-2 should get the lock at its first try after client-1 released it at 40 s: %v", g)
			}
			if s := res.Summary; !s.Safe || s.DoubleGrants != 0 || s.OverlapMS != 0 {
				t.Errorf("one holder throughout: %+v", s)
			}
			if !res.History().Linearizable(5 * time.Second) {
				t.Errorf("the history should be linearizable")
			}
		})
	}
}

// TestWatchLease: a careful client looks at its own clock before each
// step and gives up when the lease it believes it holds ran out, so the
// paused holder no longer writes late; but a pause step falls inside the
// step after it, after that step's look (the gap between checking and
// writing), so check-then-write still writes late.
func TestWatchLease(t *testing.T) {
	res := mustRun(t, mustPreset(t, "paused-holder", false, "clients[client-1].watch_lease", "true"))
	lost := find(res, "client-1", engine.KindLockLost)
	if len(lost) != 1 || lost[0].T != 19000 || !strings.Contains(lost[0].Reason, "own clock reads 19s") {
		t.Errorf("client-1 should notice at 19 s, before its write, that its lease ran out at 13 s: %v", lost)
	}
	if ws := writes(res, "client-1"); len(ws) != 0 {
		t.Errorf("a careful client must not write after its lease ran out: %v", ws)
	}
	if s := res.Summary; !s.Safe || s.StaleWritesAccepted != 0 {
		t.Errorf("no late write, no harm: %+v", s)
	}

	res = mustRun(t, mustPreset(t, "check-then-write", false, "clients[client-1].watch_lease", "true"))
	lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 19000)
	if s := res.Summary; s.Safe || s.StaleWritesAccepted != 1 {
		t.Errorf("a pause between the look and the write defeats a careful client too: %+v", s)
	}
}

// TestRenewalStopsButWorkerCarriesOn: when the renewal loop finds the lease
// gone it stops and says so, and the worker, told nothing, carries on.
func TestRenewalStopsButWorkerCarriesOn(t *testing.T) {
	res := mustRun(t, mustPreset(t, "paused-holder", false))
	stopped := find(res, "client-1", engine.KindRenewStopped)
	if len(stopped) != 1 || stopped[0].T != 19000 || !strings.Contains(stopped[0].Reason, "own clock") {
		t.Errorf("client-1's renewal loop should stop at 19 s by its own clock: %v", stopped)
	}
	lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 19000)
	if len(find(res, "client-1", engine.KindLockLost)) != 0 {
		t.Errorf("nothing told the worker it lost the lock")
	}
	if len(find(res, "client-1", engine.KindDone)) != 1 {
		t.Errorf("the worker should finish its job as if nothing happened")
	}
}

func ptr[T any](v T) *T { return &v }

// answerLostScenario: client-1 renews every second; its renewal sent at
// 2 s is held in the network for 5 s, and client-1 dies at 5 s. The held
// renewal reaches the lock server at 7 s, after the crash: it is applied
// (the lease now runs to 17 s) and its answer goes nowhere.
func answerLostScenario() engine.Scenario {
	return engine.Scenario{
		Title: "a renewal whose answer is lost", Seed: 1, Until: engine.Sec(40),
		Lock: engine.Lock{Backend: engine.BackendSingle, Lease: engine.Sec(10)},
		Clients: []engine.Client{
			{Name: "client-1", RenewEvery: engine.Sec(1), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(5)}, {Do: "crash"}}},
			{Name: "client-2", Start: engine.Sec(1), RetryEvery: engine.Sec(1), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "write", Add: ptr(int64(1))}, {Do: "release"}}},
		},
		Faults: []engine.Fault{{At: engine.Sec(2), Do: "delay", Target: "client-1", Kind: "renew", By: engine.Sec(5)}},
	}
}

// TestAnswerLost: a command applied whose answer never reached its client
// is shown as a lock-service event, and the lease it extended is visible;
// the history records it with an unknown outcome, so the checker finds the
// run linearizable (client-2's refusals until 17 s are explained by it).
func TestAnswerLost(t *testing.T) {
	res := mustRun(t, answerLostScenario())
	lost := find(res, "node-1", engine.KindAnswerLost)
	if len(lost) != 1 || lost[0].T != 7000 || lost[0].Client != "client-1" || lost[0].Message != "renew" ||
		lost[0].Token != 33 || !strings.Contains(lost[0].Reason, "granted until 17s") {
		t.Fatalf("node-1 should apply the held renewal at 7 s and its answer be lost: %v", lost)
	}
	if g := find(res, "client-2", engine.KindGranted); len(g) != 1 || g[0].T != 17000 {
		t.Errorf("client-2 waits for the lease the lost renewal extended, to 17 s: %v", g)
	}
	if !res.History().Linearizable(5 * time.Second) {
		t.Errorf("a lost answer raised a false alarm: the history should be linearizable")
	}
	if h := jsonOf(t, res.History()); strings.Count(h, `"unknown":true`) != 1 {
		t.Errorf("the history should hold exactly one operation of unknown outcome: %s", h)
	}
}

// TestOldHolderCannotTouchTheNewLease: after a restart forgot client-1's
// grant and handed token 33 to client-2, client-1, holding the same token,
// cannot renew, check or release client-2's lease: the lock service
// compares the holder as well as the token.
func TestOldHolderCannotTouchTheNewLease(t *testing.T) {
	const why = "held by client-2, not client-1"
	for _, last := range []string{"check", "release"} {
		t.Run(last, func(t *testing.T) {
			res := mustRun(t, mustPreset(t, "restart-forgets", true,
				"clients[client-1].renew_every", "1s",
				"clients[client-1].steps", `[{"do":"acquire"},{"do":"read"},{"do":"work","for":"3s"},{"do":"write","add":2000},{"do":"`+last+`"}]`,
				"clients[client-2].steps[2].for", "5s"))
			grantAt(t, res, "client-1", 33, 1500)
			grantAt(t, res, "client-2", 33, 2000)
			if r := find(res, "client-1", engine.KindRenewRefused); len(r) != 1 || r[0].T != 2500 || !strings.Contains(r[0].Reason, why) {
				t.Errorf("client-1's renewal at 2.5 s should be refused: %v", r)
			}
			kind := map[string]string{"check": engine.KindCheckFailed, "release": engine.KindReleaseRefused}[last]
			if c := find(res, "client-1", kind); len(c) != 1 || c[0].T != 4500 || !strings.Contains(c[0].Reason, why) {
				t.Errorf("client-1's %s at 4.5 s should be refused: %v", last, c)
			}
			// client-2's lease was never extended or ended by client-1.
			if r := find(res, "client-2", engine.KindReleased); len(r) != 1 || r[0].T != 7000 {
				t.Errorf("client-2 should release its own lease at 7 s: %v", r)
			}
			if e := find(res, "node-1", engine.KindLeaseExpired); len(e) != 0 {
				t.Errorf("no lease should run out: %v", e)
			}
			for _, e := range res.Events {
				if (strings.HasSuffix(e.Kind, "_refused") || e.Kind == engine.KindCheckFailed) && e.Reason == "" {
					t.Errorf("a refusal without a reason: %+v", e)
				}
			}
		})
	}
}
