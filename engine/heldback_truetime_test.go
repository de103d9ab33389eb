package engine_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
)

// trueEndRe reads the true end a grant, renewal, refusal or check gives
// for a lease read by a skewed clock: "... by node-1's clock; in true time
// it runs until 13s" or "... by node-1's clock, which reads 10s at 13s in
// true time; ...".
var trueEndRe = regexp.MustCompile(`(?:reads \S+ at (\S+) in true time|in true time it runs until (\S+?)[;,)]?(?: |$))`)

// trueEndSaid is the true end event e gives for its lease: its words'
// when they give one, its lease_until when its clock read true time.
func trueEndSaid(t *testing.T, e engine.Event) int64 {
	m := trueEndRe.FindStringSubmatch(engine.Describe(e))
	if m == nil {
		return e.LeaseUntil
	}
	s := m[1] + m[2]
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("%q: %v", engine.Describe(e), err)
	}
	return d.Milliseconds()
}

// TestAHeldBackLeaseEndsWhenItsServerSays: a lock state machine's time
// never goes back, so after its node's clock jumps back it times a renewal
// from the last command's time, not from the clock's reading, and the
// lease lasts longer than its length: the service lets nobody else in
// until its clock reads that later end. A renewal, the checks after it,
// the refusals of the next client and the lease_expired event must all
// give that one true end, and the next client is granted the lock then.
// Before, the renewal said "in true time it runs until 12s" while a check
// said node-1 ended it at 13s, and the lease's end at 13s said the clock
// "ended it late". Swept over the jump's size and time, on one single
// server and one Raft node.
func TestAHeldBackLeaseEndsWhenItsServerSays(t *testing.T) {
	held := 0
	for _, backend := range []string{"single", "raft"} {
		for _, by := range []int64{500, 1000, 2000, 3000, 5000} {
			for at := int64(2100); at <= 6900; at += 400 {
				// A check every second; the job ends at 7.5s, between
				// renewals (every 2s), so the last renewal is answered.
				var steps []string
				for range 7 {
					steps = append(steps, `{"do":"check"},{"do":"work","for":"1s"}`)
				}
				steps = append(steps, `{"do":"work","for":"500ms"}`)
				src := fmt.Sprintf(`{"title":"held back","seed":1,"fencing":true,"until":"50s",
					"lock":{"backend":%q,"nodes":1,"lease":"8s"},
					"storage":{"key":"account-42","initial":0},
					"clients":[{"name":"client-1","renew_every":"2s","steps":[{"do":"acquire"},%s]},
					{"name":"client-2","start":"9s","retry_every":"100ms","on_refused":"retry","steps":[{"do":"acquire"}]}],
					"faults":[{"at":"%dms","do":"clock_jump","target":"node-1","by":"-%dms"}]}`,
					backend, strings.Join(steps, ","), at, by)
				sc, err := engine.DecodeScenario([]byte(src))
				if err != nil {
					t.Fatal(err)
				}
				res := mustRun(t, sc)
				name := fmt.Sprintf("%s, jump -%dms at %dms", backend, by, at)
				// The true end the last grant or renewal gave, and when: one
				// made before the jump is moved by it (the clock's doing).
				var promised int64 = -1
				var promisedAt int64
				ended, granted := int64(-1), int64(-1)
				for _, e := range res.Events {
					w := engine.Describe(e)
					switch {
					case e.Actor == "client-1" && (e.Kind == engine.KindGranted || e.Kind == engine.KindRenewed):
						promised, promisedAt = trueEndSaid(t, e), e.T
						if e.T > at && e.LeaseUntil > e.T-by+8000 {
							held++ // timed from a state machine time ahead of the clock
						}
					case e.Actor == "client-1" && e.Kind == engine.KindCheckOK && promisedAt > at:
						if got := trueEndSaid(t, e); got != promised || strings.Contains(w, "was to last") {
							t.Errorf("%s: the renewal at %dms gave the true end %dms; the check at %dms %q", name, promisedAt, promised, e.T, w)
						}
					case e.Actor == "client-2" && e.Kind == engine.KindAcquireRefused && e.Holder == "client-1" && promisedAt > at:
						if got := trueEndSaid(t, e); got != promised {
							t.Errorf("%s: the last renewal gave the true end %dms; a refusal at %dms %q", name, promised, e.T, w)
						}
					case e.Kind == engine.KindLeaseExpired && e.Holder == "client-1":
						ended = e.T
						if promisedAt > at && (e.T != promised || strings.Contains(w, "late") || strings.Contains(w, "early")) {
							t.Errorf("%s: the last renewal gave the true end %dms; at %dms %q", name, promised, e.T, w)
						}
					case e.Actor == "client-2" && e.Kind == engine.KindGranted && granted < 0:
						granted = e.T
					}
				}
				if ended < 0 || granted != ended {
					t.Errorf("%s: client-1's lease was said to end at %dms, and client-2 was granted the lock at %dms", name, ended, granted)
				}
			}
		}
	}
	if held == 0 {
		t.Fatal("no lease timed from a held-back state machine time: the sweep tests nothing")
	}
}
