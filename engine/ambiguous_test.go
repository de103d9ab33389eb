package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// The ambiguous-commit preset: messages take 50 ms each way and a commit
// takes two trips of 50 ms between the nodes. client-1's acquire reaches
// node-1, the leader (term 2), at 50 ms; node-1 appends it; the copies
// reach node-2 and node-3 at 100 ms; the acknowledgements would be back,
// and the entry committed, at 150 ms; the answer would reach client-1 at
// 200 ms. Raft's rules then decide what a crash of node-1 leaves behind:
//
//   - at or before 50 ms the request never reached a leader;
//   - after 50 ms and up to 100 ms the entry is only in node-1's log: the
//     next leader never had it, and the retry gets a fresh grant;
//   - after 100 ms and up to 150 ms the followers hold it uncommitted: the
//     next leader (node-2, term 3) commits it only with its own first entry,
//     and the retry gets that same grant;
//   - after 150 ms and up to 200 ms node-1 committed it and the answer is lost
//     on its way: the retry gets the same grant.
//
// In every case client-1 hears nothing the first time, the retry gets
// token 33, one token per client, and the history is linearizable.
const (
	ambLatency  = 50
	ambLag      = 50
	ambAppend   = ambLatency             // the request reaches the leader
	ambReach    = ambAppend + ambLag     // the copies reach the followers
	ambCommit   = ambReach + ambLag      // the acknowledgements are back
	ambAnswer   = ambCommit + ambLatency // the answer would reach the client
	ambElection = 1000                   // lock.election
	ambLease    = 10000                  // lock.lease
)

func ambiguousRun(t *testing.T, fencing bool, crash int64) *engine.Result {
	t.Helper()
	return mustRun(t, mustPreset(t, "ambiguous-commit", fencing, "faults[0].at", fmt.Sprintf("%dms", crash)))
}

// pendingOps counts the operations the history keeps open.
func pendingOps(t *testing.T, res *engine.Result) int {
	t.Helper()
	b, err := json.Marshal(res.History())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), `"unknown":true`)
}

// TestAmbiguousCommitCommitsUnderTheNextLeader: node-1 crashes after the
// copies reached the followers and before it counted their answers. The
// entry commits under node-2, in node-2's term 3, when node-2's first
// entry commits, and the timeline says so; client-1's retry gets that
// grant back; the history keeps the first acquire pending.
func TestAmbiguousCommitCommitsUnderTheNextLeader(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		for _, crash := range []int64{ambReach + 1, 125, ambCommit} {
			t.Run(fmt.Sprintf("fencing=%v/crash=%dms", fencing, crash), func(t *testing.T) {
				res := ambiguousRun(t, fencing, crash)
				if lost := find(res, "node-1", engine.KindAnswerLost); len(lost) != 0 {
					t.Errorf("nothing was committed while node-1 led, so node-1 lost no answer: %v", lost)
				}
				if u := find(res, "client-1", engine.KindUnavailable); len(u) != 1 || u[0].T != ambAnswer {
					t.Errorf("client-1 should hear nothing back, at %d ms: %v", ambAnswer, u)
				}
				leaders := find(res, "", engine.KindLeader)
				if len(leaders) != 2 || leaders[1].Node != "node-2" || leaders[1].Term != 3 || leaders[1].T != crash+ambElection {
					t.Fatalf("node-2 should be elected in term 3 one election after the crash: %v", leaders)
				}
				c := find(res, "node-2", engine.KindAnswerLost)
				if len(c) != 1 || c[0].T != leaders[1].T || c[0].Term != 3 || c[0].Client != "client-1" || c[0].Message != "acquire" || c[0].Token != 33 {
					t.Fatalf("node-2 should commit client-1's acquire (token 33) in its term 3 as it takes over: %v", c)
				}
				if c[0].LeaseUntil != ambAppend+ambLease {
					t.Errorf("the grant's lease runs from when node-1 took it, until %d ms: %v", ambAppend+ambLease, c[0])
				}
				if !strings.Contains(c[0].Reason, "node-1 in term 2") || !strings.Contains(c[0].Reason, "node-2 and node-3") {
					t.Errorf("the timeline should say who appended it, in which term, and who stored it: %q", c[0].Reason)
				}
				g := find(res, "client-1", engine.KindGranted)
				if len(g) != 1 || g[0].Token != 33 || g[0].Node != "node-2" || g[0].LeaseUntil != c[0].LeaseUntil {
					t.Fatalf("the retry should get the same grant back, token 33 until %d ms, from node-2: %v", c[0].LeaseUntil, g)
				}
				if g2 := find(res, "client-2", engine.KindGranted); len(g2) != 1 || g2[0].Token != 34 {
					t.Errorf("client-2 should be granted token 34 after client-1: %v", g2)
				}
				wantOneGrantEach(t, res, 1) // the first acquire stays pending, once
			})
		}
	}
}

// TestAmbiguousEntryDiesWithItsLeader: node-1 crashes after it appended
// the acquire and before the copies left it. The next leader never had the
// entry, the timeline says it is lost, and client-1's retry is a fresh
// grant (token 33 still: no token was ever handed out), its lease timed
// from the retry. No operation is left pending: the first never happened.
func TestAmbiguousEntryDiesWithItsLeader(t *testing.T) {
	for _, crash := range []int64{ambAppend + 1, 75, ambReach} {
		t.Run(fmt.Sprintf("crash=%dms", crash), func(t *testing.T) {
			res := ambiguousRun(t, true, crash)
			if c := find(res, "", engine.KindAnswerLost); len(c) != 0 {
				t.Fatalf("no follower had the entry: nobody can commit it: %v", c)
			}
			l := find(res, "node-2", engine.KindEntryLost)
			if len(l) != 1 || l[0].Client != "client-1" || l[0].Term != 3 || !strings.Contains(l[0].Reason, "only node-1's log had it") {
				t.Fatalf("node-2, leading in term 3, should say client-1's acquire is lost with node-1: %v", l)
			}
			g := find(res, "client-1", engine.KindGranted)
			if len(g) != 1 || g[0].Token != 33 || g[0].Node != "node-2" || g[0].LeaseUntil <= ambAppend+ambLease {
				t.Fatalf("the retry should be a fresh grant of token 33, its lease later than the lost one's: %v", g)
			}
			wantOneGrantEach(t, res, 0) // the lost acquire never took effect
		})
	}
}

// TestAmbiguousCommitSweep moves the crash across the whole window, from
// before the request reaches node-1 to after its answer is back, and
// checks at every millisecond-step the outcome the rules above give.
func TestAmbiguousCommitSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep of many runs")
	}
	for crash := int64(ambAppend - 10); crash <= ambAnswer+10; crash += 10 {
		t.Run(fmt.Sprintf("crash=%dms", crash), func(t *testing.T) {
			res := ambiguousRun(t, true, crash)
			committed := len(find(res, "node-2", engine.KindAnswerLost)) // committed by the next leader, never answered
			lostEntry := len(find(res, "", engine.KindEntryLost))
			lostAnswer := len(find(res, "node-1", engine.KindAnswerLost)) // committed by node-1, its answer lost
			pending := pendingOps(t, res)
			switch {
			case crash <= ambAppend, crash > ambAnswer:
				if committed+lostEntry+lostAnswer+pending != 0 {
					t.Errorf("nothing ambiguous: committed %d, lost entries %d, lost answers %d, pending %d", committed, lostEntry, lostAnswer, pending)
				}
			case crash <= ambReach:
				if lostEntry != 1 || committed+lostAnswer+pending != 0 {
					t.Errorf("only node-1 had it: lost entries %d, committed %d, lost answers %d, pending %d", lostEntry, committed, lostAnswer, pending)
				}
			case crash <= ambCommit:
				if committed != 1 || pending != 1 || lostEntry+lostAnswer != 0 {
					t.Errorf("the next leader commits it: committed %d, pending %d, lost entries %d, lost answers %d", committed, pending, lostEntry, lostAnswer)
				}
			default:
				if lostAnswer != 1 || pending != 1 || committed+lostEntry != 0 {
					t.Errorf("node-1 committed it, the answer is lost: lost answers %d, pending %d, committed %d, lost entries %d", lostAnswer, pending, committed, lostEntry)
				}
			}
			g := find(res, "client-1", engine.KindGranted)
			if len(g) != 1 || g[0].Token != 33 {
				t.Errorf("client-1 is granted token 33, once: %v", g)
			}
			s := res.Summary
			if !s.Safe || !s.LockSafe || s.DuplicateTokens != 0 || s.DoubleGrants != 0 {
				t.Errorf("safe, one token per grant: %+v", s)
			}
			if !res.History().Linearizable(0) {
				t.Errorf("the history should be linearizable")
			}
		})
	}
}

// TestCrashBeforeTheRequest: when the leader crashes before the request
// reaches it, nothing was appended: no answer is lost, no entry waits, and
// the next leader grants token 33 afresh.
func TestCrashBeforeTheRequest(t *testing.T) {
	res := ambiguousRun(t, true, 40)
	for _, k := range []string{engine.KindAnswerLost, engine.KindEntryLost} {
		if e := find(res, "", k); len(e) != 0 {
			t.Fatalf("nothing was appended, so no %s: %v", k, e)
		}
	}
	if n := pendingOps(t, res); n != 0 {
		t.Errorf("no pending operation: %d", n)
	}
	if g := find(res, "client-1", engine.KindGranted); len(g) != 1 || g[0].Token != 33 {
		t.Fatalf("client-1 should be granted token 33 by the next leader: %v", g)
	}
}

// TestRaftCommitTakesTwoTrips: with lock.replication_lag, a Raft leader
// answers only once the followers' acknowledgements are back: the copy
// travels for the lag, the acknowledgement for the lag again. With no
// fault, client-1's acquire is granted by node-1 at 2×latency + 2×lag,
// and the lease runs from when node-1 took the request.
func TestRaftCommitTakesTwoTrips(t *testing.T) {
	sc := mustPreset(t, "ambiguous-commit", true)
	sc.Faults = nil
	res := mustRun(t, sc)
	g := find(res, "client-1", engine.KindGranted)
	if len(g) != 1 || g[0].T != ambAnswer || g[0].Node != "node-1" || g[0].Token != 33 || g[0].LeaseUntil != ambAppend+ambLease {
		t.Fatalf("node-1 should grant token 33 at %d ms, its lease until %d ms: %v", ambAnswer, ambAppend+ambLease, g)
	}
	if n := pendingOps(t, res); n != 0 || !res.History().Linearizable(0) {
		t.Errorf("a plain run: %d pending, linearizable %v", n, res.History().Linearizable(0))
	}
}

// TestAmbiguousCommitReachedOneFollower: node-2 is cut off while node-1
// appends the acquire, so only node-3 stores the copy before node-1
// crashes. When node-2 is back, Raft's election restriction decides: node-2
// lacks an entry node-3 holds and cannot win, so node-3 leads in term 3 and
// commits the entry with its first one; client-1's retry gets that grant.
func TestAmbiguousCommitReachedOneFollower(t *testing.T) {
	for _, tc := range []struct{ cut, holder string }{{"node-2", "node-3"}, {"node-3", "node-2"}} {
		t.Run("cut="+tc.cut, func(t *testing.T) {
			sc := mustPreset(t, "ambiguous-commit", true)
			sc.Faults = append(sc.Faults, engine.Fault{At: engine.Ms(0), Do: engine.FaultPartition, Target: tc.cut, For: engine.Ms(500)})
			res := mustRun(t, sc)
			leaders := find(res, "", engine.KindLeader)
			if len(leaders) != 2 || leaders[1].Node != tc.holder || leaders[1].Term != 3 || !strings.Contains(leaders[1].Message, tc.cut+" could not win") {
				t.Fatalf("%s, the only node with the entry, should win term 3 over %s: %v", tc.holder, tc.cut, leaders)
			}
			c := find(res, tc.holder, engine.KindAnswerLost)
			if len(c) != 1 || c[0].Term != 3 || c[0].Token != 33 || c[0].T != leaders[1].T || !strings.Contains(c[0].Reason, "stored by "+tc.holder+",") {
				t.Fatalf("%s should commit client-1's acquire in term 3 as it takes over: %v", tc.holder, c)
			}
			g := find(res, "client-1", engine.KindGranted)
			if len(g) != 1 || g[0].Token != 33 || g[0].Node != tc.holder || g[0].LeaseUntil != c[0].LeaseUntil {
				t.Fatalf("the retry should get the grant %s committed: %v", tc.holder, g)
			}
			if n := pendingOps(t, res); n != 1 || !res.History().Linearizable(0) {
				t.Errorf("one pending acquire and a linearizable history: %d pending, linearizable %v", n, res.History().Linearizable(0))
			}
			if s := res.Summary; !s.LockSafe || s.DuplicateTokens != 0 {
				t.Errorf("one token per grant: %+v", s)
			}
		})
	}
}

// TestAmbiguousCommitMessages: kept, the messages show the window: node-1's
// copies of the acquire leave when it appends it (50 ms) and reach node-2
// and node-3 a replication lag later (100 ms); client-1's first request
// reached node-1, and no answer to it ever left.
func TestAmbiguousCommitMessages(t *testing.T) {
	res := runMessages(t, mustPreset(t, "ambiguous-commit", true), nil)
	var copies []string
	first := 0
	for _, m := range res.Messages {
		if m.Kind == "append" && m.Sent == ambAppend && m.Text == "client-1's acquire" {
			copies = append(copies, fmt.Sprintf("%s→%s@%d lost=%v", m.From, m.To, m.At, m.Lost))
		}
		if m.Kind == "acquire" && m.From == "client-1" && m.Sent == 0 {
			first = m.ID
		}
	}
	want := []string{fmt.Sprintf("node-1→node-2@%d lost=false", ambReach), fmt.Sprintf("node-1→node-3@%d lost=false", ambReach)}
	if fmt.Sprint(copies) != fmt.Sprint(want) {
		t.Errorf("node-1's copies: %v, want %v", copies, want)
	}
	if first == 0 {
		t.Fatal("client-1's first acquire is not in the message log")
	}
	for _, m := range res.Messages {
		if m.Answer == first {
			t.Errorf("the first acquire was never committed by node-1, so no answer left it: %+v", m)
		}
	}
}

// wantOneGrantEach checks a run after an ambiguous acquire: safe, one
// grant per client and no token twice, pending operations left open in
// the history, and the history linearizable with them.
func wantOneGrantEach(t *testing.T, res *engine.Result, pending int) {
	t.Helper()
	s := res.Summary
	if !s.Safe || !s.LockSafe || s.DuplicateTokens != 0 || s.DoubleGrants != 0 || s.Grants != 2 {
		t.Errorf("one grant per client: %+v", s)
	}
	if n := pendingOps(t, res); n != pending {
		t.Errorf("%d operations pending in the history, want %d", n, pending)
	}
	if !res.History().Linearizable(0) {
		t.Errorf("the history should be linearizable")
	}
}
