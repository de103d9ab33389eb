package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
)

// TestEtcdRevisionToken: on etcd the token is the lock key's create
// revision. The leader's revoke of the paused holder's lease is a write
// (revision 34), so client-2's key is created at 35: tokens grow but skip.
// A pause longer than the lease left, anywhere in client-1's work, makes
// its late write happen (off: accepted and stale; on: refused, because 33
// is lower than 35).
func TestEtcdRevisionToken(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		t.Run(fmt.Sprintf("fencing=%v", fencing), func(t *testing.T) {
			res := mustRun(t, mustPreset(t, "etcd-revision-token", fencing))
			grantAt(t, res, "client-1", 33, 0)
			grantAt(t, res, "client-2", 35, 14000)
			exp := find(res, "", engine.KindLeaseExpired)
			if len(exp) != 1 || exp[0].T != 13000 || exp[0].Actor != "node-1" || !strings.Contains(exp[0].Message, "deleted at revision 34") {
				t.Errorf("the leader should revoke client-1's lease at 13 s through the log, as revision 34: %v", exp)
			}
			checkLateWrite(t, res, 4000, 15000, fencing)
		})
	}
	for _, p := range pauseStarts(true) {
		for _, d := range []int64{12000, 20000} {
			for _, fencing := range []bool{false, true} {
				t.Run(fmt.Sprintf("at=%dms/for=%dms/fencing=%v", p, d, fencing), func(t *testing.T) {
					t.Parallel()
					res := mustRun(t, mustPreset(t, "etcd-revision-token", fencing,
						"faults[0].at", fmt.Sprintf("%dms", p), "faults[0].for", fmt.Sprintf("%dms", d)))
					checkLateWrite(t, res, p, d, fencing)
					if g := find(res, "client-2", engine.KindGranted); len(g) != 1 || g[0].Token <= 34 {
						t.Errorf("client-2's key is created after the revoke's delete, so its revision is above 34: %v", g)
					}
				})
			}
		}
	}
}

// TestEtcdTxnGuard: with the data in the lock service and each write a
// transaction compared against the lock key's create revision, the paused
// holder's late write is refused with fencing off as well as on, wherever
// the pause falls, as long as it outlasts the lease.
func TestEtcdTxnGuard(t *testing.T) {
	check := func(t *testing.T, res *engine.Result, p, d int64) {
		t.Helper()
		var mine, theirs []engine.Event
		for _, e := range res.Events {
			if e.Kind == engine.KindWriteAccepted || e.Kind == engine.KindWriteRefused {
				if e.Actor == engine.ActorStorage {
					t.Errorf("a guarded write reached the separate storage: %v", e)
				}
				if e.Client == "client-1" {
					mine = append(mine, e)
				} else {
					theirs = append(theirs, e)
				}
			}
		}
		if len(theirs) != 1 || theirs[0].Kind != engine.KindWriteAccepted || !strings.HasPrefix(theirs[0].SQL, "TXN IF create_revision") {
			t.Errorf("client-2's transaction should commit: %v", theirs)
		}
		if len(mine) != 1 || mine[0].Kind != engine.KindWriteRefused || mine[0].T < p+d || *mine[0].Rows != 0 {
			t.Fatalf("client-1's late transaction should be refused when it wakes: %v", mine)
		}
		if lost := find(res, "client-1", engine.KindLockLost); len(lost) != 1 || lost[0].T != mine[0].T {
			t.Errorf("the refused transaction should tell client-1 it lost the lock: %v", lost)
		}
		if s := res.Summary; !s.Safe || s.StaleWritesAccepted != 0 || s.FinalValue != 43000 || s.WritesRefused != 1 {
			t.Errorf("the record should end at 43,000 with nothing stale: %+v", s)
		}
	}
	for _, fencing := range []bool{false, true} {
		t.Run(fmt.Sprintf("fencing=%v", fencing), func(t *testing.T) {
			res := mustRun(t, mustPreset(t, "etcd-txn-guard", fencing))
			check(t, res, 4000, 15000)
			if w := find(res, "node-1", engine.KindWriteAccepted); len(w) != 1 || w[0].Token != 35 || !strings.Contains(w[0].Message, "revision 36") {
				t.Errorf("client-2's put should be revision 36, under its key of revision 35: %v", w)
			}
		})
	}
	for _, p := range pauseStarts(true) {
		for _, d := range []int64{12000, 20000} {
			t.Run(fmt.Sprintf("at=%dms/for=%dms", p, d), func(t *testing.T) {
				t.Parallel()
				check(t, mustRun(t, mustPreset(t, "etcd-txn-guard", false,
					"faults[0].at", fmt.Sprintf("%dms", p), "faults[0].for", fmt.Sprintf("%dms", d))), p, d)
			})
		}
	}
}

// TestEtcdLeaderChange: while no leader serves, nobody revokes a lease; a
// new leader gives the lease it inherits its full TTL from its election,
// so the holder keeps the lock through the outage, however long, and
// nobody is granted it twice. On the raft backend the same outage ends the
// lease and the waiting client takes the lock from a holder still at work.
func TestEtcdLeaderChange(t *testing.T) {
	for _, election := range []int64{2000, 6000, 10000, 15000} {
		for _, fencing := range []bool{false, true} {
			t.Run(fmt.Sprintf("election=%dms/fencing=%v", election, fencing), func(t *testing.T) {
				t.Parallel()
				res := mustRun(t, mustPreset(t, "etcd-leader-change", fencing, "lock.election", fmt.Sprintf("%dms", election)))
				elected := 4000 + election
				ext := find(res, "", engine.KindLeaseExtended)
				if len(ext) != 1 || ext[0].T != elected || ext[0].Actor != "node-2" || ext[0].Holder != "client-1" || ext[0].LeaseUntil != elected+10000 {
					t.Fatalf("node-2, elected at %d ms, should give client-1's lease its full 10 s TTL: %v", elected, ext)
				}
				if exp := find(res, "", engine.KindLeaseExpired); len(exp) != 0 {
					t.Errorf("no lease should be revoked: the holder releases it: %v", exp)
				}
				rel := find(res, "client-1", engine.KindReleased)
				g2 := find(res, "client-2", engine.KindGranted)
				if len(rel) != 1 || len(g2) != 1 || g2[0].T < rel[0].T {
					t.Errorf("client-2 should get the lock only after client-1 released it: %v %v", rel, g2)
				}
				if s := res.Summary; !s.Safe || s.DoubleGrants != 0 || s.OverlapMS != 0 || s.FinalValue != 45000 {
					t.Errorf("one holder throughout: %+v", s)
				}
			})
		}
	}
	t.Run("raft", func(t *testing.T) {
		res := mustRun(t, mustPreset(t, "etcd-leader-change", false, "lock.backend", "raft"))
		if len(find(res, "", engine.KindLeaseExtended)) != 0 {
			t.Error("a raft group extends nothing")
		}
		if s := res.Summary; s.Safe || s.StaleWritesAccepted != 1 {
			t.Errorf("on raft the lease ends during the outage and client-1's write lands stale: %+v", s)
		}
	})
}

// TestChubbyLockDelay: a dead holder's write held in the network lands
// after the next holder's write unless a lock-delay longer than the hold
// keeps the lock idle meanwhile; fencing stays off (the storage cannot
// check tokens). A holder that was only paused and wakes after the delay
// still writes stale: lock-delay does not help there.
func TestChubbyLockDelay(t *testing.T) {
	for _, hold := range []int64{12000, 15000, 20000, 25000} {
		t.Run(fmt.Sprintf("hold=%dms/no-delay", hold), func(t *testing.T) {
			t.Parallel()
			res := mustRun(t, mustPreset(t, "chubby-lock-delay", false, "faults[0].by", fmt.Sprintf("%dms", hold)))
			ws := writes(res, "client-1")
			if len(ws) != 1 || ws[0].T != 1000+hold || !ws[0].Stale {
				t.Errorf("the dead holder's write should land stale at %d ms: %v", 1000+hold, ws)
			}
			if len(find(res, "", engine.KindLockDelay)) != 0 || res.Summary.Safe {
				t.Errorf("without lock-delay the late write overwrites: %+v", res.Summary)
			}
		})
		t.Run(fmt.Sprintf("hold=%dms/delay", hold), func(t *testing.T) {
			t.Parallel()
			delay := hold + 1000
			res := mustRun(t, mustPreset(t, "chubby-lock-delay", false, "faults[0].by", fmt.Sprintf("%dms", hold),
				"lock.lock_delay", fmt.Sprintf("%dms", delay)))
			ld := find(res, "", engine.KindLockDelay)
			if len(ld) != 1 || ld[0].T != 10000 || ld[0].Until != 10000+delay || ld[0].For != delay || ld[0].Holder != "client-1" {
				t.Fatalf("the lease ends at 10 s without a release: the lock-delay runs to %d ms: %v", 10000+delay, ld)
			}
			grantAt(t, res, "client-2", 34, 10000+delay)
			for _, r := range find(res, "client-2", engine.KindAcquireRefused) {
				if r.T >= 10000 && !strings.Contains(r.Reason, "lock-delay") {
					t.Errorf("a refusal inside the window should name the lock-delay: %v", r)
				}
			}
			if s := res.Summary; !s.Safe || s.FinalValue != 45000 {
				t.Errorf("the late write lands before client-2 begins: %+v", s)
			}
			if lin := res.History().Check(10 * time.Second); lin != engine.LinearizableOK {
				t.Errorf("history: %v", lin)
			}
		})
	}
	t.Run("paused-holder", func(t *testing.T) {
		for _, fencing := range []bool{false, true} {
			res := mustRun(t, mustPreset(t, "paused-holder", fencing, "lock.lock_delay", "10s", "faults[0].for", "30s"))
			grantAt(t, res, "client-2", 34, 24000)
			if s := res.Summary; s.Safe == !fencing {
				t.Errorf("fencing=%v: a paused holder waking after the delay writes stale; only fencing stops it: %+v", fencing, s)
			}
		}
	})
}

// TestNewPresetsAreDeterministic runs each new preset on a fresh group and
// twice on a pooled one, fenced and not, and requires the same bytes.
func TestNewPresetsAreDeterministic(t *testing.T) {
	pool, err := engine.NewRaftPool(engine.RaftPoolSize{Three: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, name := range []string{"etcd-revision-token", "etcd-txn-guard", "etcd-leader-change", "chubby-lock-delay"} {
		for _, fencing := range []bool{false, true} {
			sc := mustPreset(t, name, fencing)
			want := jsonOf(t, mustRun(t, sc))
			for i := range 2 {
				res, err := pool.Execute(context.Background(), mustPrepare(t, sc))
				if err != nil {
					t.Fatal(err)
				}
				if got := jsonOf(t, res); got != want {
					t.Fatalf("%s fencing=%v: pooled run %d differs from a fresh one:\n%s\n---\n%s", name, fencing, i, got, want)
				}
			}
		}
	}
}

// TestEtcdFieldsRefuseBadInput: a guard is a write's, "txn" only, on a
// backend that keeps data; lock_delay is bounded.
func TestEtcdFieldsRefuseBadInput(t *testing.T) {
	for _, tc := range []struct {
		sets  []string
		field string
		says  string
	}{
		{[]string{"lock.backend", "raft"}, "clients[0].steps[3].guard", "only etcd takes it, not raft"},
		{[]string{"clients[client-1].steps[3].guard", "cas"}, "clients[0].steps[3].guard", `must be "txn"`},
		{[]string{"clients[client-1].steps[1].guard", "txn"}, "clients[0].steps[1].guard", "only a write step"},
		{[]string{"lock.lock_delay", "61s"}, "lock.lock_delay", ""},
	} {
		p, err := engine.LoadPreset("etcd-txn-guard")
		if err != nil {
			t.Fatal(err)
		}
		sc := p.Scenario
		for i := 0; i+1 < len(tc.sets); i += 2 {
			if sc, err = engine.SetField(sc, tc.sets[i], tc.sets[i+1]); err != nil {
				t.Fatalf("%v: %v", tc.sets, err)
			}
		}
		_, err = engine.Prepare(sc)
		var fe *engine.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%v: got %v, want an error naming %s saying %q", tc.sets, err, tc.field, tc.says)
		}
	}
}

// TestRetriedTxnPutsTheSameValue: a guarded transaction that committed but
// whose answer was lost (the leader cut off for 200 ms just after) is sent
// again and commits again. It puts the value it computed once more: the
// record is right, the audit counts the addition once, and the run is
// safe. (Chaos seed 1094 with --guard txn, shrunk.)
func TestRetriedTxnPutsTheSameValue(t *testing.T) {
	prep, err := engine.ParseScenario([]byte(`{"title": "chaos 1094", "seed": 1094, "until": "1m0s",
	"lock": {"backend": "etcd", "nodes": 3, "lease": "5s", "election": "500ms", "latency": "180ms"},
	"storage": {"key": "account-42", "initial": 1000},
	"clients": [
	  {"name": "client-1", "start": "2s", "renew_every": "1.45s", "retry_every": "1.5s", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "6.5s"}, {"do": "write", "add": 700, "guard": "txn"}, {"do": "release"}]},
	  {"name": "client-2", "start": "9.1s", "renew_every": "1.25s", "retry_every": "2s", "on_refused": "retry", "watch_lease": true, "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "4s"}, {"do": "write", "add": 800, "guard": "txn"}]}],
	"faults": [{"at": "16.4s", "do": "partition", "target": "node-1", "for": "200ms"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Execute(t.Context(), prep)
	if err != nil {
		t.Fatal(err)
	}
	var puts []engine.Event
	for _, e := range res.Events {
		if e.Kind == engine.KindWriteAccepted && e.Client == "client-2" {
			puts = append(puts, e)
		}
	}
	if len(find(res, "node-1", engine.KindAnswerLost)) != 1 || len(puts) != 2 {
		t.Fatalf("the transaction should commit, lose its answer and commit again: %v", puts)
	}
	if puts[0].Add == nil || puts[1].Add != nil || puts[1].Set == nil || *puts[1].Set != *puts[0].Value {
		t.Errorf("the retry puts the same value, not a second addition: %v", puts)
	}
	if s := res.Summary; !s.Safe || s.LostUpdate || s.FinalValue != 2500 || s.ExpectedValue != 2500 {
		t.Errorf("nothing is lost: %+v", s)
	}
}
