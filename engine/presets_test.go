package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// grantAt asserts that client was granted token at time t.
func grantAt(t *testing.T, res *engine.Result, client string, token, at int64) {
	t.Helper()
	for _, e := range find(res, client, engine.KindGranted) {
		if e.Token == token {
			if e.T != at {
				t.Errorf("%s got token %d at %d ms, want %d ms", client, token, e.T, at)
			}
			return
		}
	}
	t.Errorf("%s was never granted token %d; grants: %v", client, token, find(res, client, engine.KindGranted))
}

// lastWrite asserts the storage's verdict on a client's last write.
func lastWrite(t *testing.T, res *engine.Result, client, kind string, token, at int64) engine.Event {
	t.Helper()
	ws := writes(res, client)
	if len(ws) == 0 {
		t.Fatalf("no write of %s reached the storage", client)
	}
	w := ws[len(ws)-1]
	if w.Kind != kind || w.Token != token || w.T != at {
		t.Errorf("%s's last write: %s token %d at %d ms, want %s token %d at %d ms", client, w.Kind, w.Token, w.T, kind, token, at)
	}
	if w.SQL == "" || w.Rows == nil {
		t.Errorf("write event carries no statement or row count: %+v", w)
	}
	if kind == engine.KindWriteRefused && *w.Rows != 0 {
		t.Errorf("a refused write changed %d rows", *w.Rows)
	}
	return w
}

func TestPresetOutcomes(t *testing.T) {
	pausedHolder := func(t *testing.T, res *engine.Result, fencing bool) {
		grantAt(t, res, "client-1", 33, 0)
		grantAt(t, res, "client-2", 34, 14000)
		if exp := find(res, "", engine.KindLeaseExpired); len(exp) == 0 || exp[0].T != 13000 || exp[0].Token != 33 {
			t.Errorf("client-1's lease should run out at 13 s: %v", exp)
		}
		lastWrite(t, res, "client-2", engine.KindWriteAccepted, 34, 15000)
		s := res.Summary
		if fencing {
			lastWrite(t, res, "client-1", engine.KindWriteRefused, 33, 19000)
			if s.StaleWritesAccepted != 0 || !s.Safe || s.FinalValue != 43000 {
				t.Errorf("fencing on: %+v", s)
			}
		} else {
			lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 19000)
			if s.StaleWritesAccepted != 1 || s.Safe || !s.LostUpdate || s.FinalValue != 42000 || s.ExpectedValue != 45000 {
				t.Errorf("fencing off: %+v", s)
			}
		}
	}
	cases := []struct {
		preset string
		sets   []string
		check  func(t *testing.T, res *engine.Result, fencing bool)
	}{
		{preset: "paused-holder", check: func(t *testing.T, res *engine.Result, fencing bool) {
			renews := find(res, "client-1", engine.KindRenewed)
			if len(renews) != 1 || renews[0].T != 3000 || renews[0].LeaseUntil != 13000 {
				t.Errorf("client-1 should renew once, at 3 s, to 13 s: %v", renews)
			}
			pausedHolder(t, res, fencing)
		}},
		{preset: "renew-more-often", check: func(t *testing.T, res *engine.Result, fencing bool) {
			renews := find(res, "client-1", engine.KindRenewed)
			if len(renews) != 3 || renews[2].T != 3000 {
				t.Errorf("client-1 should renew at 1, 2 and 3 s and never while frozen: %v", renews)
			}
			pausedHolder(t, res, fencing)
		}},
		{preset: "check-then-write", check: func(t *testing.T, res *engine.Result, fencing bool) {
			checks := find(res, "client-1", engine.KindCheckOK)
			if len(checks) != 1 || checks[0].T != 4000 {
				t.Errorf("client-1's check should pass at 4 s: %v", checks)
			}
			if fencing {
				lastWrite(t, res, "client-1", engine.KindWriteRefused, 33, 19000)
			} else {
				lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 19000)
			}
			if got, want := res.Summary.StaleWritesAccepted, map[bool]int{false: 1, true: 0}[fencing]; got != want {
				t.Errorf("stale writes accepted: %d, want %d", got, want)
			}
		}},
		{preset: "delayed-write", check: func(t *testing.T, res *engine.Result, fencing bool) {
			sent := find(res, "client-1", engine.KindWriteSent)
			if len(sent) != 1 || sent[0].T != 1000 {
				t.Fatalf("client-1 should send its write at 1 s, inside its lease: %v", sent)
			}
			grantAt(t, res, "client-2", 34, 10000)
			lastWrite(t, res, "client-2", engine.KindWriteAccepted, 34, 11000)
			s := res.Summary
			if fencing {
				lastWrite(t, res, "client-1", engine.KindWriteRefused, 33, 13000)
				if !s.Safe || s.FinalValue != 43000 {
					t.Errorf("fencing on: %+v", s)
				}
			} else {
				lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 13000)
				if s.Safe || !s.LostUpdate || s.FinalValue != 42000 || s.StaleWritesAccepted != 1 {
					t.Errorf("fencing off: the late write should overwrite: %+v", s)
				}
			}
		}},
		{preset: "nightly-total", check: func(t *testing.T, res *engine.Result, fencing bool) {
			grantAt(t, res, "A", 33, 0)
			grantAt(t, res, "B", 34, 31000)
			if reads := find(res, "A", engine.KindRead); len(reads) == 0 || *reads[0].Value != 40000 || reads[0].T != 5000 {
				t.Errorf("A should read 40,000 at 5 s: %v", reads)
			}
			if c := find(res, "A", engine.KindCheckOK); len(c) == 0 || c[0].T != 8000 {
				t.Errorf("A's check at 8 s should pass: %v", c)
			}
			lastWrite(t, res, "B", engine.KindWriteAccepted, 34, 33000)
			s := res.Summary
			if !fencing {
				if s.FinalValue != 42000 || s.ExpectedValue != 45000 || s.ExpectedValue-s.FinalValue != 3000 {
					t.Errorf("fencing off: final %d expected %d, want 42,000 and 45,000", s.FinalValue, s.ExpectedValue)
				}
				return
			}
			ws := writes(res, "A")
			if len(ws) != 2 || ws[0].Kind != engine.KindWriteRefused || ws[0].Token != 33 || ws[0].T != 55000 {
				t.Fatalf("A's write with token 33 at 55 s should be refused first: %v", ws)
			}
			grantAt(t, res, "A", 35, 55000)
			reads := find(res, "A", engine.KindRead)
			if len(reads) != 2 || *reads[1].Value != 43000 {
				t.Errorf("A should re-read 43,000: %v", reads)
			}
			if ws[1].Kind != engine.KindWriteAccepted || ws[1].Token != 35 || s.FinalValue != 45000 || !s.Safe {
				t.Errorf("A's retry should land 45,000 with token 35: %v %+v", ws[1], s)
			}
		}},
		{preset: "crashed-holder", check: func(t *testing.T, res *engine.Result, fencing bool) {
			if c := find(res, "client-1", engine.KindCrashed); len(c) != 1 || c[0].T != 0 {
				t.Fatalf("client-1 should crash at 0 s: %v", c)
			}
			if r := find(res, "client-1", engine.KindReleased); len(r) != 0 {
				t.Errorf("a crashed client released: %v", r)
			}
			grantAt(t, res, "client-2", 34, 30000)
		}},
		{preset: "crashed-holder", sets: []string{"lock.lease", "600s", "until", "700s"}, check: func(t *testing.T, res *engine.Result, fencing bool) {
			grantAt(t, res, "client-2", 34, 600000)
		}},
		{preset: "long-job", check: func(t *testing.T, res *engine.Result, fencing bool) {
			grantAt(t, res, "client-2", 34, 30000)
			if res.Summary.OverlapMS == 0 {
				t.Errorf("client-1 works on while client-2 holds the lock: overlap should be > 0")
			}
			if fencing {
				lastWrite(t, res, "client-1", engine.KindWriteRefused, 33, 90000)
			} else {
				lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 90000)
			}
		}},
		{preset: "long-job", sets: []string{"clients[client-1].renew_every", "10s"}, check: func(t *testing.T, res *engine.Result, fencing bool) {
			if r := find(res, "client-1", engine.KindRenewed); len(r) != 9 || r[0].T != 10000 || r[8].T != 90000 {
				t.Errorf("client-1 should renew every 10 s from 10 s to 90 s: %v", r)
			}
			lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 90000)
			g := find(res, "client-2", engine.KindGranted)
			if len(g) != 1 || g[0].T < 90000 {
				t.Errorf("client-2 should get the lock only after the job: %v", g)
			}
			s := res.Summary
			if s.OverlapMS != 0 || s.DoubleGrants != 0 || !s.Safe || s.FinalValue != 45000 {
				t.Errorf("one holder throughout: %+v", s)
			}
		}},
		{preset: "baseline", check: func(t *testing.T, res *engine.Result, fencing bool) {
			grantAt(t, res, "client-1", 33, 0)
			if r := find(res, "client-1", engine.KindRenewed); len(r) != 1 || r[0].T != 3000 {
				t.Errorf("client-1 renews at 3 s while it works: %v", r)
			}
			if r := find(res, "client-2", engine.KindAcquireRefused); len(r) == 0 || r[0].T != 2000 || r[0].Holder != "client-1" {
				t.Errorf("client-2 asks at 2 s and waits its turn: %v", r)
			}
			lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, 5000)
			grantAt(t, res, "client-2", 34, 6000)
			lastWrite(t, res, "client-2", engine.KindWriteAccepted, 34, 8000)
			s := res.Summary
			if !s.Safe || s.FinalValue != 45000 || s.OverlapMS != 0 || s.DoubleGrants != 0 || s.StaleWritesAccepted != 0 {
				t.Errorf("two clients take turns: %+v", s)
			}
		}},
		{preset: "seat-hold", check: func(t *testing.T, res *engine.Result, fencing bool) {
			s := res.Summary
			if s.ClaimsWon != 1 || s.ClaimsLost != 1 || !s.Safe || s.Grants != 0 {
				t.Errorf("exactly one hold, no lock service: %+v", s)
			}
			const hold = "UPDATE seats SET hold_id = ? WHERE seat = ? AND hold_id IS NULL"
			won, lost := find(res, "storage", engine.KindClaimWon), find(res, "storage", engine.KindClaimLost)
			if len(won) != 1 || len(lost) != 1 || won[0].SQL != hold || lost[0].SQL != hold || *won[0].Rows != 1 || *lost[0].Rows != 0 {
				t.Errorf("one buyer's hold changes 1 row, the other's 0, with the notes' statement: %v %v", won, lost)
			}
		}},
		{preset: "ride-claim", check: func(t *testing.T, res *engine.Result, fencing bool) {
			s := res.Summary
			if s.ClaimsWon != 1 || s.ClaimsLost != 4 || !s.Safe {
				t.Errorf("exactly one claim should win: %+v", s)
			}
			for _, e := range find(res, "storage", engine.KindClaimLost) {
				if *e.Rows != 0 {
					t.Errorf("a lost claim changed %d rows", *e.Rows)
				}
			}
			if len(find(res, "", engine.KindLeader)) != 0 || s.Grants != 0 {
				t.Errorf("no lock service should be involved")
			}
		}},
	}
	for _, tc := range cases {
		for _, fencing := range []bool{false, true} {
			name := fmt.Sprintf("%s%v/fencing=%v", tc.preset, tc.sets, fencing)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				res := mustRun(t, mustPreset(t, tc.preset, fencing, tc.sets...))
				tc.check(t, res, fencing)
			})
		}
	}
}

// TestRenewingFasterChangesNothing compares the two presets whole: renewing
// every second instead of every 3 s leaves the outcome of a pause unchanged.
// So that equal summaries cannot come from two runs that renew alike,
// client-1 must really renew more often in renew-more-often.
func TestRenewingFasterChangesNothing(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		ra := mustRun(t, mustPreset(t, "paused-holder", fencing))
		rb := mustRun(t, mustPreset(t, "renew-more-often", fencing))
		if na, nb := len(find(ra, "client-1", engine.KindRenewed)), len(find(rb, "client-1", engine.KindRenewed)); nb <= na {
			t.Errorf("fencing %v: client-1 renews %d times in renew-more-often, %d in paused-holder: want more", fencing, nb, na)
		}
		a, b := ra.Summary, rb.Summary
		a.EndMS, b.EndMS = 0, 0
		if a != b {
			t.Errorf("fencing %v: summaries differ:\n paused-holder    %+v\n renew-more-often %+v", fencing, a, b)
		}
	}
}

// TestCrashWaitScalesWithLease: the wait after a crash is the lease, so a
// 600 s lease blocks 20 times longer than a 30 s one.
func TestCrashWaitScalesWithLease(t *testing.T) {
	wait := func(lease string) int64 {
		res := mustRun(t, mustPreset(t, "crashed-holder", true, "lock.lease", lease, "until", "700s"))
		crash := find(res, "client-1", engine.KindCrashed)[0].T
		return find(res, "client-2", engine.KindGranted)[0].T - crash
	}
	short, long := wait("30s"), wait("600s")
	if short != 30000 || long != 600000 || long/short != 20 {
		t.Errorf("waits %d ms and %d ms, want 30 s and 600 s (20-fold)", short, long)
	}
}

// TestBreakFirst: every failure preset ships with the settings that show
// the failure, so that running it as it is, with no flag, breaks; its watch
// text names the fix, and that fix, made with the fields the playground's
// form offers (fencing, lease, renewal, backend, per-client settings),
// mends it. The presets that show normal operation or a fix are safe as
// they ship.
func TestBreakFirst(t *testing.T) {
	fencingOn := func(sc *engine.Scenario) { sc.Fencing = true }
	raft := func(nodes int) func(sc *engine.Scenario) {
		return func(sc *engine.Scenario) {
			sc.Lock = engine.Lock{Backend: engine.BackendRaft, Nodes: nodes, Lease: sc.Lock.Lease, Election: sc.Lock.Election}
		}
	}
	unsafe := func(t *testing.T, s engine.Summary) {
		if s.Safe {
			t.Errorf("as it ships it should break: %+v", s)
		}
	}
	safe := func(t *testing.T, s engine.Summary) {
		if !s.Safe {
			t.Errorf("should be safe: %+v", s)
		}
	}
	cases := []struct {
		preset  string
		mention string // the fix, in the watch text
		broken  func(t *testing.T, s engine.Summary)
		fix     func(sc *engine.Scenario)
		fixed   func(t *testing.T, s engine.Summary)
	}{
		{"paused-holder", "turn fencing on", unsafe, fencingOn, safe},
		{"renew-more-often", "turn fencing on", unsafe, fencingOn, safe},
		{"check-then-write", "turn fencing on", unsafe, fencingOn, safe},
		{"delayed-write", "turn fencing on", unsafe, fencingOn, safe},
		{"nightly-total", "turn fencing on", unsafe, fencingOn, func(t *testing.T, s engine.Summary) {
			if !s.Safe || s.FinalValue != 45000 {
				t.Errorf("A retries and saves 45,000: %+v", s)
			}
		}},
		{"clock-jump", "turn fencing on", unsafe, fencingOn, safe},
		{"long-job", "renewal to every 10 s", unsafe, func(sc *engine.Scenario) { sc.Clients[0].RenewEvery = engine.Sec(10) },
			func(t *testing.T, s engine.Summary) {
				if !s.Safe || s.DoubleGrants != 0 || s.OverlapMS != 0 {
					t.Errorf("one holder throughout: %+v", s)
				}
			}},
		{"lock-server-down", "switch the backend to raft", func(t *testing.T, s engine.Summary) {
			if s.UnavailableMS == 0 || s.WritesAccepted != 0 {
				t.Errorf("nobody can do anything while the only server is down: %+v", s)
			}
		}, raft(3), func(t *testing.T, s engine.Summary) {
			if s.WritesAccepted != 2 || !s.Safe {
				t.Errorf("another node takes over and both jobs get done: %+v", s)
			}
		}},
		{"restart-forgets", "switch the backend to raft", unsafe, raft(3), safe},
		{"async-failover", "switch the backend to raft", unsafe, raft(3), safe},
		{"redlock-clock-jump", "switch the backend to raft with 5 nodes and turn fencing on", unsafe,
			func(sc *engine.Scenario) { raft(5)(sc); sc.Fencing = true }, safe},
		{"sms-reminder", "idempotency key", unsafe, func(sc *engine.Scenario) {
			sc.Clients[0].Steps[2].IdempotencyKey = "reminder-order-7"
			sc.Clients[1].Steps[1].IdempotencyKey = "reminder-order-7"
		}, safe},
		{"etcd-revision-token", "turn fencing on", unsafe, fencingOn, safe},
		{"etcd-txn-guard", "", safe, nil, nil},
		{"etcd-leader-change", "", safe, nil, nil},
		{"chubby-lock-delay", "lock.lock_delay to 10s", unsafe, func(sc *engine.Scenario) { sc.Lock.LockDelay = engine.Sec(10) }, safe},
		{"zookeeper-session-expiry", "turn fencing on", unsafe, fencingOn, safe},
		{"lease-read-stale", "turn fencing on", unsafe, fencingOn, safe},
		{"follower-read-stale", "turn fencing on", unsafe, fencingOn, safe},
		{"raft-disk-loss", "fsync", unsafe, nil, nil},
		{"ambiguous-commit", "", safe, nil, nil},
		{"baseline", "", safe, nil, nil},
		{"raft-failover", "", safe, nil, nil},
		{"ride-claim", "", safe, nil, nil},
		{"seat-hold", "", safe, nil, nil},
	}
	covered := map[string]bool{"crashed-holder": true} // its failure is a wait, not a safety breach (TestCrashWaitScalesWithLease)
	for _, tc := range cases {
		covered[tc.preset] = true
		t.Run(tc.preset, func(t *testing.T) {
			t.Parallel()
			p, err := engine.LoadPreset(tc.preset)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.ToLower(p.Watch), tc.mention) {
				t.Errorf("the watch text should name the fix %q: %s", tc.mention, p.Watch)
			}
			// The question is shown before the first run: naming the fix
			// there would tell the learner what breaks.
			if tc.mention != "" && strings.Contains(strings.ToLower(p.Question), tc.mention) {
				t.Errorf("the question gives the fix %q away before a run: %s", tc.mention, p.Question)
			}
			res, err := engine.Execute(t.Context(), p.Prepared())
			if err != nil {
				t.Fatal(err)
			}
			tc.broken(t, res.Summary)
			if tc.fix == nil {
				return
			}
			sc := p.Scenario
			tc.fix(&sc)
			tc.fixed(t, mustRun(t, sc).Summary)
		})
	}
	for _, name := range engine.PresetNames() {
		if !covered[name] {
			t.Errorf("preset %s: say in this table whether it ships broken, and what fixes it", name)
		}
	}
}

// TestPresetQuestionsAskWithoutTelling: a preset's question is what a page
// shows before the learner's first run, so it must ask something and must
// not carry the outcome (a verdict word, the fix) that its watch text
// tells after the run.
func TestPresetQuestionsAskWithoutTelling(t *testing.T) {
	tells := []string{"fix", "accepts the", "is accepted", "refuses", "is refused", "is lost", "are lost", "overwrite",
		"unsafe", "double grant", "duplicate token", "changes 0 rows", "exactly one"}
	for _, p := range engine.Presets() {
		q := strings.ToLower(p.Question)
		if !strings.HasSuffix(strings.TrimSpace(q), "?") && !strings.Contains(q, "? ") {
			t.Errorf("%s: the question asks nothing: %q", p.Name, p.Question)
		}
		for _, w := range tells {
			if strings.Contains(q, w) {
				t.Errorf("%s: the question tells the outcome (%q) before a run: %s", p.Name, w, p.Question)
			}
		}
		if p.Question == p.Watch {
			t.Errorf("%s: the question is the watch text", p.Name)
		}
	}
}
