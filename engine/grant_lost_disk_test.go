package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestALostDiskSaysItTookAGrant: on Raft and ZooKeeper, one follower (the
// lagger) is cut off from 0s to 3s, so client-1's grant at 0s is stored by
// node-1 and the other follower only; then the leader node-1 crashes and a
// follower loses its disk. When the disk lost is the other follower's,
// before the lagger got the grant back, the leader elected next has no
// copy of the grant while client-1's lease still runs: it says it forgot
// the grant (grant_forgotten, when it is elected), the summary counts it
// and the verdict says so. When the disk lost is the lagger's, or is lost
// after the lagger caught up, the next leader has the grant and nothing
// of it is said. Before, the grant vanished unnamed: client-2 was granted
// the lock while client-1 held it, and chaos left the history
// unexplained. Swept over which follower lags, which loses its disk, and
// when.
func TestALostDiskSaysItTookAGrant(t *testing.T) {
	lost, kept := 0, 0
	for _, backend := range []string{"raft", "zookeeper"} {
		for _, lagger := range []string{"node-2", "node-3"} {
			other := map[string]string{"node-2": "node-3", "node-3": "node-2"}[lagger]
			for _, loser := range []string{other, lagger} {
				for _, at := range []int64{1000, 2500, 4000} {
					src := fmt.Sprintf(`{"title":"a grant lost with a disk","seed":1,"fencing":true,"until":"40s",
						"lock":{"backend":%q,"nodes":3,"lease":"10s","election":"1s"},
						"storage":{"key":"account-42","initial":0},
						"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"8s"},{"do":"write","add":1},{"do":"release"}]},
						{"name":"client-2","start":"1500ms","retry_every":"1s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1},{"do":"release"}]}],
						"faults":[{"at":"0s","do":"partition","side":[%q],"for":"3s"},
						{"at":"%dms","do":"crash","target":"node-1"},{"at":"%dms","do":"lose_disk","target":%q}]}`,
						backend, lagger, at, at, loser)
					sc, err := engine.DecodeScenario([]byte(src))
					if err != nil {
						t.Fatal(err)
					}
					res := mustRun(t, sc)
					name := fmt.Sprintf("%s, %s cut off until 3s, %s loses its disk at %dms", backend, lagger, loser, at)
					want := 0
					if loser == other && at < 3000 {
						want = 1 // no node left up has the grant
					}
					got := find(res, "", engine.KindGrantForgotten)
					v := engine.Verdict(res.Summary)
					if len(got) != want || res.Summary.ForgottenGrants != want || strings.Contains(v, "while its lease ran") != (want > 0) {
						t.Errorf("%s: %d grants forgotten, summary %d, want %d; verdict %q", name, len(got), res.Summary.ForgottenGrants, want, v)
						continue
					}
					if want == 0 {
						kept++
						continue
					}
					lost++
					granted := find(res, "client-1", engine.KindGranted)
					leaders := find(res, "", engine.KindLeader)
					if len(granted) == 0 || len(leaders) < 2 {
						t.Fatalf("%s: client-1 granted %v, leaders %v", name, granted, leaders)
					}
					leader := leaders[len(leaders)-1]
					says := fmt.Sprintf("forgot client-1's grant of token %d: a lost disk took a copy of this grant, committed at 0s, and %s was elected by nodes whose logs lack it", granted[0].Token, leader.Node)
					if w := engine.Describe(got[0]); got[0].Holder != "client-1" || got[0].Actor != leader.Node || got[0].T != leader.T || !strings.Contains(w, says) {
						t.Errorf("%s: %s at %dms %q, want %s to say at %dms %q", name, got[0].Actor, got[0].T, w, leader.Node, leader.T, says)
					}
					if !strings.Contains(v, "the lock service forgot 1 grant while its lease ran") {
						t.Errorf("%s: verdict %q", name, v)
					}
				}
			}
		}
	}
	if lost == 0 || kept == 0 {
		t.Fatalf("runs with a grant lost: %d, kept: %d: the sweep proves nothing", lost, kept)
	}
}

// TestALostDiskSaysItTookAnEndedGrantsToken: as above, but client-1's
// lease had already ended when the next leader is elected: it released the
// lock at 1s, or crashed and its 2s lease ran out 2s after its last
// renewal (seen by node-1, or, when node-1 crashed first, by nobody). client-1 loses nothing, but the leader
// elected without the grant lost its token too, and hands client-2 the
// same token again: it says, when it is elected, that it forgot the grant
// after its lease ended and that the token can be handed out again
// (grant_forgotten with ended), the summary counts it apart from the
// grants forgotten while their lease ran, and no lease end of client-1 is
// shown after it. Before, the token came back unexplained (and the new
// leader said client-1's lease "ran out" though it never had the grant),
// and chaos left the history unexplained. When the lost disk is the
// lagger's, or is lost after it caught up, nothing of it is said.
func TestALostDiskSaysItTookAnEndedGrantsToken(t *testing.T) {
	lost, kept := 0, 0
	for _, backend := range []string{"raft", "zookeeper"} {
		for _, end := range []string{"release", "crash"} {
			for _, loser := range []string{"node-2", "node-3"} {
				for _, at := range []int64{1500, 2500, 4000} {
					src := fmt.Sprintf(`{"title":"an ended grant lost with a disk","seed":1,"fencing":true,"until":"40s",
						"lock":{"backend":%q,"nodes":3,"lease":"2s","election":"1s"},
						"storage":{"key":"account-42","initial":0},
						"clients":[{"name":"client-1","renew_every":"500ms","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1},{"do":"work","for":"1s"},{"do":%q}]},
						{"name":"client-2","start":"3500ms","retry_every":"500ms","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1},{"do":"release"}]}],
						"faults":[{"at":"0s","do":"partition","side":["node-3"],"for":"3s"},
						{"at":"%dms","do":"crash","target":"node-1"},{"at":"%dms","do":"lose_disk","target":%q}]}`,
						backend, end, at, at, loser)
					sc, err := engine.DecodeScenario([]byte(src))
					if err != nil {
						t.Fatal(err)
					}
					res := mustRun(t, sc)
					name := fmt.Sprintf("%s, client-1's %s at 1s, %s loses its disk at %dms", backend, end, loser, at)
					want := 0
					if loser == "node-2" && at < 3000 {
						want = 1 // node-3, cut off, never had the grant
					}
					got := find(res, "", engine.KindGrantForgotten)
					s := res.Summary
					v := engine.Verdict(s)
					if len(got) != want || s.ForgottenEndedGrants != want || s.ForgottenGrants != 0 || strings.Contains(v, "after its lease ended") != (want > 0) {
						t.Errorf("%s: %d grants forgotten, summary %d ended and %d open, want %d ended; verdict %q", name, len(got), s.ForgottenEndedGrants, s.ForgottenGrants, want, v)
						continue
					}
					if want == 0 {
						kept++
						continue
					}
					lost++
					g1 := find(res, "client-1", engine.KindGranted)
					leaders := find(res, "", engine.KindLeader)
					if len(g1) == 0 || len(leaders) < 2 {
						t.Fatalf("%s: client-1 granted %v, leaders %v", name, g1, leaders)
					}
					leader := leaders[len(leaders)-1]
					until := g1[0].LeaseUntil
					if r := find(res, "client-1", engine.KindRenewed); len(r) > 0 {
						until = r[len(r)-1].LeaseUntil
					}
					ended := fmt.Sprintf("its lease had already run out at %s and client-1 lost nothing", engine.FormatMS(until))
					if end == "release" {
						ended = "client-1 had already released it at 1s and lost nothing"
					}
					says := fmt.Sprintf("forgot client-1's grant of token %d: a lost disk took a copy of this grant, committed at 0s, and %s was elected by nodes whose logs lack it; %s, but the token went with it: token %d can be handed out again",
						g1[0].Token, leader.Node, ended, g1[0].Token)
					if w := engine.Describe(got[0]); !got[0].Ended || got[0].Actor != leader.Node || got[0].T != leader.T || !strings.Contains(w, says) {
						t.Errorf("%s: %s at %dms (ended %v) %q, want %s to say at %dms %q", name, got[0].Actor, got[0].T, got[0].Ended, w, leader.Node, leader.T, says)
					}
					if !strings.Contains(v, "the lock service forgot 1 grant after its lease ended, and with it the token it had handed out") {
						t.Errorf("%s: verdict %q", name, v)
					}
					for _, e := range find(res, "", engine.KindLeaseExpired) {
						if e.Holder == "client-1" && e.T >= got[0].T {
							t.Errorf("%s: at %dms %s says %q, after it forgot the grant", name, e.T, e.Actor, engine.Describe(e))
						}
					}
					if g2 := find(res, "client-2", engine.KindGranted); backend == "raft" && (len(g2) == 0 || g2[0].Token != g1[0].Token || s.DuplicateTokens != 1) {
						t.Errorf("%s: client-2 granted %v, duplicate tokens %d: the forgotten token should be handed out again", name, g2, s.DuplicateTokens)
					}
				}
			}
		}
	}
	if lost == 0 || kept == 0 {
		t.Fatalf("runs with an ended grant lost: %d, kept: %d: the sweep proves nothing", lost, kept)
	}
}

// TestChaosExplainsEveryLostDiskHistory: on Raft and ZooKeeper with lost
// disks, every lock history chaos finds not linearizable is explained in
// its report, by a clock or by what the lock service forgot; the
// violations stay what they were (an explanation is not a finding).
// Before, about one in six of the histories was left unexplained.
func TestChaosExplainsEveryLostDiskHistory(t *testing.T) {
	runs := 200
	if testing.Short() {
		runs = 60
	}
	for _, backend := range []string{"raft", "zookeeper"} {
		rep := mustChaos(t, engine.ChaosOptions{Runs: runs, Seed: 1, Backend: backend, Fencing: true, LoseDisk: true, Examples: 1})
		l := rep.Linearizability
		if l.Illegal == 0 || rep.IllegalForgotten == 0 {
			t.Fatalf("%s: no history broken by a lost disk in %d runs: %+v", backend, runs, l)
		}
		if unexplained := l.Illegal - rep.IllegalByClock - rep.IllegalForgotten; unexplained != 0 {
			t.Errorf("%s: %d histories not linearizable, %d by a clock, %d with something forgotten: %d say nothing of why",
				backend, l.Illegal, rep.IllegalByClock, rep.IllegalForgotten, unexplained)
		}
	}
}
