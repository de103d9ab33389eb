package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// lostRelease is one run of a sweep where the lock service may lose
// client-1's release: the scenario, whether the release is lost there,
// and what the timeline must then say.
type lostRelease struct {
	name string
	src  string // the scenario, as JSON
	lost bool   // the release is lost: one release_forgotten, counted
	// actor says it ("" for any); says is in its words.
	actor, says string
	// mark picks out the acquire refusals that say how the lock came back
	// ("" where clients wait on a watch instead of being refused);
	// cameBack is what each of them says, and exactly one does, the first
	// refusal after the release is said lost.
	mark, cameBack string
	// ended is in the words of the lease_expired that ends the lease the
	// lost release brought back, before anyone else is granted the lock.
	ended string
}

// checkLostRelease runs r and checks the timeline, the summary and the
// verdict against it: a release said lost, once, after client-1 is shown
// releasing, in r's words, where it is lost, and nothing of it where it
// is not.
func checkLostRelease(t *testing.T, r lostRelease) {
	t.Helper()
	sc, err := engine.DecodeScenario([]byte(r.src))
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sc)
	want := 0
	if r.lost {
		want = 1
	}
	got := find(res, "", engine.KindReleaseForgotten)
	if len(got) != want || res.Summary.ForgottenReleases != want {
		t.Errorf("%s: %d releases forgotten, summary %d, want %d", r.name, len(got), res.Summary.ForgottenReleases, want)
		return
	}
	if v := engine.Verdict(res.Summary); r.lost != strings.Contains(v, "the lock service forgot") {
		t.Errorf("%s: verdict %q", r.name, v)
	}
	if r.lost {
		if w := engine.Describe(got[0]); got[0].Holder != "client-1" || r.actor != "" && got[0].Actor != r.actor || !strings.Contains(w, r.says) {
			t.Errorf("%s: %s says %q, want %s to say %q", r.name, got[0].Actor, w, r.actor, r.says)
		}
	}
	said, ended, released, forgot, refused := 0, false, false, false, false
	for _, e := range res.Events {
		switch {
		case e.Kind == engine.KindReleased && e.Actor == "client-1":
			released = true
		case e.Kind == engine.KindReleaseForgotten:
			forgot = true
			if !released {
				t.Errorf("%s: the release is said forgotten at %dms, before client-1 is shown releasing", r.name, e.T)
			}
		case e.Kind == engine.KindAcquireRefused && r.mark != "":
			w := engine.Describe(e)
			if strings.Contains(w, r.mark) {
				said++
				if !strings.Contains(w, r.cameBack) {
					t.Errorf("%s: at %dms %q, want it to say %q", r.name, e.T, w, r.cameBack)
				}
			} else if forgot && !refused {
				t.Errorf("%s: the first refusal after the release was said lost, at %dms, %q", r.name, e.T, w)
			}
			refused = refused || forgot
		case e.Kind == engine.KindLeaseExpired && e.Holder == "client-1" && strings.Contains(engine.Describe(e), r.ended):
			ended = true
		case e.Kind == engine.KindGranted && e.Actor != "client-1" && forgot && !ended:
			t.Errorf("%s: %s holds the lock at %dms, and the lease the lost release brought back was never shown to end", r.name, e.Actor, e.T)
		}
	}
	if r.mark != "" && said != want {
		t.Errorf("%s: %d refusals say how the lock came back, want %d", r.name, said, want)
	}
	if r.lost && !ended {
		t.Errorf("%s: the end of the lease the lost release brought back is not shown", r.name)
	}
}

// TestARedlockServerSaysItForgotARelease: Redlock servers that save every
// persist_every crash after client-1 released the lock at 2.05s and
// restart from their last save. A server whose save is older than the
// release counts client-1's lease again. One server of five is one vote:
// the lock did not come back, and nothing says it did. Three are a
// majority: the lock came back, so Redlock says it forgot the release
// (release_forgotten, no token: Redlock has none), which servers count the
// lease again and until when, the summary counts it once, client-2's
// first refusal by those servers says they count client-1's lease again,
// and the lease's end is shown before client-2 gets the lock. A save that
// holds the release says nothing. Before, nothing was said, and client-2
// was refused with three servers counting a lease already given back.
// Swept over the save period, the crash's time and how many servers
// crash.
func TestARedlockServerSaysItForgotARelease(t *testing.T) {
	lost, kept := 0, 0
	for _, every := range []int64{500, 1000, 3000} {
		for _, crash := range []int64{2100, 2300, 2700, 3300, 4100} {
			for _, k := range []int{1, 3} {
				var faults []string
				for i := 1; i <= k; i++ {
					faults = append(faults, fmt.Sprintf(`{"at":"%dms","do":"crash","target":"node-%d"},{"at":"%dms","do":"restart","target":"node-%d"}`, crash, i, crash+200, i))
				}
				saved := crash / every * every    // the last save before the crash
				back := saved > 0 && saved < 2050 // a save at 0s, before the grant, holds no lease
				if back {
					lost++
				} else {
					kept++
				}
				checkLostRelease(t, lostRelease{
					name: fmt.Sprintf("saves every %dms, %d server(s) crash at %dms (saved at %dms)", every, k, crash, saved),
					src: fmt.Sprintf(`{"title":"a Redlock release forgotten","seed":1,"until":"40s",
						"lock":{"backend":"redlock","lease":"10s","persist_every":"%dms"},
						"storage":{"key":"account-42","initial":0},
						"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"work","for":"2050ms"},{"do":"release"}]},
						{"name":"client-2","start":"3s","retry_every":"1s","on_refused":"retry","steps":[{"do":"acquire"},{"do":"release"}]}],
						"faults":[%s]}`, every, strings.Join(faults, ",")),
					lost:     back && k == 3, // one server of five is one vote
					says:     "forgot client-1's release: node-1, node-2 and node-3 restarted from saves older than client-1's release: 3 of the 5 servers count client-1's lease again, a majority, until",
					mark:     "lease again",
					cameBack: "node-1, node-2 and node-3 count client-1's lease again: they restarted from saves older than its release",
					ended:    "it was the lease lost releases brought back to a majority of the servers; client-1 had given the lock back at 2.05s",
				})
			}
		}
	}
	if lost == 0 || kept == 0 {
		t.Fatalf("runs with a release lost: %d, kept: %d: the sweep proves nothing", lost, kept)
	}
}

// TestALostDiskSaysItTookARelease: on Raft and ZooKeeper, node-3 is cut
// off while client-1 releases at 2s, so only node-1 and node-2 store the
// release; then the leader node-1 crashes and node-2 loses its disk. The
// leader elected from node-2 and node-3 (node-3: node-2 knows no group
// until a leader reaches it) has client-1 holding the lock
// again: it says a lost disk took the release (release_forgotten), the
// summary counts it, client-2's first refusal says how the lock came
// back, and the end of that lease is shown. When the disk is lost after
// node-3 got the release back, or the partition ends before the
// release, nothing of it is said. Swept over the partition's length and
// the crash's time.
func TestALostDiskSaysItTookARelease(t *testing.T) {
	lost, kept := 0, 0
	for _, backend := range []string{"raft", "zookeeper"} {
		for _, heal := range []int64{1900, 3500, 6000} {
			for _, crash := range []int64{2500, 3000, 4000} {
				r := lostRelease{
					name: fmt.Sprintf("%s, node-3 cut off until %dms, crash at %dms", backend, heal, crash),
					src: fmt.Sprintf(`{"title":"a release lost with a disk","seed":1,"fencing":true,"until":"40s",
						"lock":{"backend":%q,"nodes":3,"lease":"10s"},
						"storage":{"key":"account-42","initial":0},
						"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"work","for":"2s"},{"do":"release"}]},
						{"name":"client-2","start":"5s","retry_every":"1s","on_refused":"retry","steps":[{"do":"acquire"},{"do":"release"}]}],
						"faults":[{"at":"1500ms","do":"partition","side":["node-3"],"for":"%dms"},
						{"at":"%dms","do":"crash","target":"node-1"},{"at":"%dms","do":"lose_disk","target":"node-2"}]}`,
						backend, heal-1500, crash, crash),
					lost:  heal > 2000 && crash < heal, // node-3 never got the release before the disk was lost
					says:  "a lost disk took a copy of client-1's release, committed at 2s, and node-3 was elected by nodes whose logs lack it",
					ended: "a lost release brought back",
				}
				if backend == "raft" { // ZooKeeper's client waits on a watch instead of being refused
					r.mark, r.cameBack = "so the lock came back", r.says+", so the lock came back"
				}
				if r.lost {
					lost++
				} else {
					kept++
				}
				checkLostRelease(t, r)
			}
		}
	}
	if lost == 0 || kept == 0 {
		t.Fatalf("runs with a release lost: %d, kept: %d: the sweep proves nothing", lost, kept)
	}
}

// TestADeposedPrimarysReleaseIsSaidLost: client-1 and the async primary
// node-1 are cut off from the rest; node-2 is promoted with client-1
// still holding the lock, and client-1's release reaches only node-1, the
// deposed primary. node-2 says it never received that release
// (release_forgotten), the summary counts it, client-2's first refusal
// "held by client-1" says how the lock came back, and that lease's end is
// shown. Before, nothing was said of it. A release made before the cut
// reaches node-2 by its copy and says nothing; one made after the cut and
// before the promotion is said by the promotion. Swept over the
// partition's time and the release's.
func TestADeposedPrimarysReleaseIsSaidLost(t *testing.T) {
	lost, kept := 0, 0
	for _, cut := range []int64{500, 1500, 3000} {
		for _, work := range []int64{1000, 2200, 4700, 8000} {
			says := fmt.Sprintf("node-1, a deposed primary cut off from node-2, applied client-1's release at %s, and node-2, the primary, never received it", engine.FormatMS(work))
			if work < cut+1000 { // released before node-2's promotion, which says it
				says = fmt.Sprintf("the promoted replica never received client-1's release, which the old primary applied at %s", engine.FormatMS(work))
			}
			r := lostRelease{
				name: fmt.Sprintf("cut at %dms, release at %dms", cut, work),
				src: fmt.Sprintf(`{"title":"a release to a deposed primary","seed":1,"fencing":true,"until":"40s",
					"lock":{"backend":"async-replica","lease":"10s","election":"1s"},
					"storage":{"key":"account-42","initial":0},
					"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"work","for":"%dms"},{"do":"release"}]},
					{"name":"client-2","start":"100ms","retry_every":"700ms","on_refused":"retry","steps":[{"do":"acquire"},{"do":"release"}]}],
					"faults":[{"at":"%dms","do":"partition","side":["client-1","node-1"],"for":"30s"}]}`, work, cut),
				lost:     work > cut, // the release never left node-1's side
				actor:    "node-2",
				says:     says,
				mark:     "so the lock came back",
				cameBack: says + ", so the lock came back",
				ended:    "a lost release brought back",
			}
			if r.lost {
				lost++
			} else {
				kept++
			}
			checkLostRelease(t, r)
		}
	}
	if lost == 0 || kept == 0 {
		t.Fatalf("runs with a release lost: %d, kept: %d: the sweep proves nothing", lost, kept)
	}
}
