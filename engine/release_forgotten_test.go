package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestAForgottenReleaseIsSaid: a single server that saves every
// persist_every crashes after client-1 released the lock and restarts from
// its last save. When that save is older than the release and the lease it
// holds still runs, the lock is client-1's again by the server's record:
// the server says it forgot the release (release_forgotten), client-2's
// first refusal "held by client-1" says the server restarted from a save
// older than the release, so the lock came back (the later ones, while
// that lease runs, name the holder alone), and the summary counts it
// (forgotten_releases) and says it in the verdict, and the end of that
// lease is shown before client-2 gets the lock. When the save holds the
// release, nothing of it is said. Swept over the save period and the
// crash's time.
func TestAForgottenReleaseIsSaid(t *testing.T) {
	came, kept := 0, 0
	for _, every := range []int64{500, 1000, 1500, 3000, 5000} {
		for crash := int64(2100); crash <= 12000; crash += 700 {
			src := fmt.Sprintf(`{"title":"a release forgotten","seed":1,"fencing":true,"until":"40s",
				"lock":{"backend":"single","lease":"10s","persist_every":"%dms"},
				"storage":{"key":"account-42","initial":1000},
				"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"work","for":"2s"},{"do":"release"}]},
				{"name":"client-2","start":"2100ms","retry_every":"500ms","on_refused":"retry","steps":[{"do":"acquire"},{"do":"release"}]}],
				"faults":[{"at":"%dms","do":"crash","target":"node-1"},{"at":"%dms","do":"restart","target":"node-1"}]}`,
				every, crash, crash+200)
			sc, err := engine.DecodeScenario([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			res := mustRun(t, sc)
			name := fmt.Sprintf("saves every %dms, crash at %dms", every, crash)
			released, ended := int64(-1), int64(-1)
			n := 0
			said := false // a refusal said how the lease last brought back came back
			for _, e := range res.Events {
				switch {
				case e.Kind == engine.KindLeaseExpired && e.Holder == "client-1" && n > 0:
					ended = e.T
					if w := engine.Describe(e); !strings.Contains(w, "a lost release brought back") {
						t.Errorf("%s: %q does not say whose lease it was", name, w)
					}
				case e.Kind == engine.KindGranted && e.Actor == "client-2" && n > 0 && ended < 0:
					t.Errorf("%s: client-2 granted at %dms, and the lease the lost release brought back was never shown to end", name, e.T)
				case e.Kind == engine.KindReleased && e.Actor == "client-1":
					released = e.T
				case e.Kind == engine.KindReleaseForgotten:
					n++
					said = false
					if w := engine.Describe(e); e.Holder != "client-1" || !strings.Contains(w, "the server restarted from the state it saved at") {
						t.Errorf("%s: %q", name, w)
					}
				case e.Kind == engine.KindAcquireRefused && e.Holder == "client-1" && released >= 0:
					came++
					w := engine.Describe(e)
					says := strings.Contains(w, "the server restarted from the state it saved at") && strings.Contains(w, "release reached it") && strings.Contains(w, "so the lock came back")
					switch {
					case n == 0 || !strings.Contains(w, "held by client-1"):
						t.Errorf("%s: at %dms, after client-1 released at %dms: %q", name, e.T, released, w)
					case !said && !says:
						t.Errorf("%s: at %dms, after client-1 released at %dms: %q, the first refusal by the lock that came back, says nothing of the lost release", name, e.T, released, w)
					case said && strings.Contains(w, "came back"):
						t.Errorf("%s: at %dms: %q says again how the lock came back", name, e.T, w)
					}
					said = true
				}
			}
			v := engine.Verdict(res.Summary)
			if res.Summary.ForgottenReleases != n || strings.Contains(v, "forgot 1 release, so a lock already given back came back") != (n == 1) {
				t.Errorf("%s: %d releases forgotten, summary counts %d; verdict %q", name, n, res.Summary.ForgottenReleases, v)
			}
			if n == 0 {
				kept++
			}
		}
	}
	if came == 0 || kept == 0 {
		t.Fatalf("refusals by a lock that came back: %d; runs whose save kept the release: %d: the sweep proves nothing", came, kept)
	}
}

// TestAPromotedReplicaSaysItForgotARelease: an async primary that applied
// client-1's release and crashed before its copy left is replaced by a
// replica that still has client-1 holding the lock; the new primary says
// it never received the release, and client-2's first refusal says the
// lock came back (the later ones name the holder alone). Swept over the
// crash's time and the replication lag.
func TestAPromotedReplicaSaysItForgotARelease(t *testing.T) {
	came := 0
	for _, lag := range []int64{300, 800, 2000} {
		for crash := int64(2050); crash <= 4000; crash += 250 {
			src := fmt.Sprintf(`{"title":"a release never copied","seed":1,"fencing":true,"until":"40s",
				"lock":{"backend":"async-replica","lease":"10s","replication_lag":"%dms","election":"1s"},
				"storage":{"key":"account-42","initial":1000},
				"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"work","for":"2s"},{"do":"release"}]},
				{"name":"client-2","start":"%dms","retry_every":"700ms","on_refused":"retry","steps":[{"do":"acquire"},{"do":"release"}]}],
				"faults":[{"at":"%dms","do":"crash","target":"node-1"}]}`, lag, crash+100, crash)
			sc, err := engine.DecodeScenario([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			res := mustRun(t, sc)
			name := fmt.Sprintf("lag %dms, crash at %dms", lag, crash)
			lost := crash <= 2000+lag // the release's copy was still on its way (a crash at its arrival comes first)
			n := len(find(res, "", engine.KindReleaseForgotten))
			if lost != (n == 1) || res.Summary.ForgottenReleases != n {
				t.Errorf("%s: %d releases forgotten (summary %d), want one exactly when the copy was lost (%v)", name, n, res.Summary.ForgottenReleases, lost)
			}
			said := 0
			for _, e := range res.Events {
				if e.Kind == engine.KindAcquireRefused && e.Holder == "client-1" {
					came++
					w := engine.Describe(e)
					if strings.Contains(w, "the promoted replica never received client-1's release, which the old primary applied at 2s, so the lock came back") {
						said++
					} else if said == 0 || strings.Contains(w, "came back") {
						t.Errorf("%s: at %dms %q", name, e.T, w)
					}
				}
			}
			if lost && said != 1 {
				t.Errorf("%s: %d refusals say how the lock came back, want the first alone", name, said)
			}
		}
	}
	if came == 0 {
		t.Fatal("no refusal by a lock that came back: the sweep proves nothing")
	}
}
