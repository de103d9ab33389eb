package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestLeaseEndSaysWhoseClock: a grant or renewal's lease end is the
// answering node's clock reading; when that clock is not true time (a
// jump, a drift), the event's words say whose clock it is and when the lease
// runs out in true time (when that clock reads its end, a state machine's
// time held back after a jump back included), instead of giving the clock's
// reading as though it were a time of the run (clock-jump: "granted token
// 34, lease until 22s" at 3 s, a lease that ends at 13 s). A clock that
// reads true time adds no such words. Swept over the fault's time, size
// and kind, on a single server and on a Raft leader, and the late answer
// to a renewal says it is late in the words too.
func TestLeaseEndSaysWhoseClock(t *testing.T) {
	type variant struct{ preset, fault string }
	var cases []variant
	for at := int64(500); at <= 9500; at += 1500 {
		for _, by := range []int64{-6000, -2000, 3000, 9000, 15000} {
			f := fmt.Sprintf(`{"at":"%dms","do":"clock_jump","target":"node-1","by":"%dms"}`, at, by)
			cases = append(cases, variant{"clock-jump", f}, variant{"paused-holder", f})
		}
		for _, rate := range []string{"0.5", "2", "4"} {
			f := fmt.Sprintf(`{"at":"%dms","do":"clock_drift","target":"node-1","rate":%s,"for":"6s"}`, at, rate)
			cases = append(cases, variant{"clock-jump", f}, variant{"paused-holder", f})
		}
	}
	skewed := 0
	for _, v := range cases {
		sc := mustPreset(t, v.preset, false, "faults[0]", v.fault, "clients[0].renew_every", "2s")
		res := mustRun(t, sc)
		lease := sc.Lock.Lease.MS()
		jumped := int64(0) // how far node-1's clock jumped so far
		for _, e := range res.Events {
			if e.Kind == engine.KindClockJump && e.Actor == "node-1" {
				jumped += e.By
			}
			if (e.Kind != engine.KindGranted && e.Kind != engine.KindRenewed) || e.Token == 0 {
				continue
			}
			words := engine.Describe(e)
			// Latency 0: served at e.T. A state machine's time never goes
			// back: after a jump back it times the lease from its last
			// command's time, ahead of the clock, and the lease lasts that
			// much longer: the clock reads its end only then.
			held := int64(0)
			if jumped < 0 {
				held = max(e.LeaseUntil-lease-(e.T+jumped), 0)
			}
			trueEnd := e.T + lease + held
			if e.LeaseUntil == trueEnd {
				if strings.Contains(words, "true time") {
					t.Errorf("%s %s: a true clock's lease end is said with a clock's words: %q", v.preset, v.fault, words)
				}
				continue
			}
			skewed++
			want := fmt.Sprintf("lease until %s by %s's clock; in true time it runs until %s", engine.FormatMS(e.LeaseUntil), e.Node, engine.FormatMS(trueEnd))
			if !strings.Contains(words, want) {
				t.Errorf("%s %s: at %dms %q, want it to say %q", v.preset, v.fault, e.T, words, want)
			}
		}
	}
	if skewed == 0 {
		t.Fatal("no lease end was set by a clock off true time: the sweep proves nothing")
	}
	late := engine.Event{Kind: engine.KindRenewed, Token: 33, LeaseUntil: 28000, Node: "node-1", Message: "a late answer to the renewal sent at 6s"}
	if w := engine.Describe(late); !strings.Contains(w, "a late answer to the renewal sent at 6s") {
		t.Errorf("a late renewal's words %q say nothing of it", w)
	}
}

// TestARefusalSaysWhoseClockHoldsTheLock: an acquire refused "held by
// client-1 (token 33) until 22s" gives the answering node's reading of the
// holder's lease end; when the clock that set that end was off true time,
// the refusal says whose clock it is and the true end, as the grant did.
// Swept over the jump's time and size.
func TestARefusalSaysWhoseClockHoldsTheLock(t *testing.T) {
	skewed := 0
	for at := int64(500); at <= 9500; at += 1500 {
		for _, by := range []int64{-6000, -2000, 3000, 9000, 15000} {
			f := fmt.Sprintf(`{"at":"%dms","do":"clock_jump","target":"node-1","by":"%dms"}`, at, by)
			// paused-holder's pause kept: client-2 asks while client-1's
			// lease, renewed by a jumped clock, still runs.
			sc := mustPreset(t, "paused-holder", false, "faults[1]", f)
			res := mustRun(t, sc)
			ends := map[int64]engine.Event{} // the latest grant or renewal of each token
			for _, e := range res.Events {
				switch e.Kind {
				case engine.KindGranted, engine.KindRenewed:
					ends[e.Token] = e
				case engine.KindAcquireRefused:
					g, ok := ends[e.Token]
					if !ok || e.Token == 0 || !strings.Contains(e.Reason, "until "+engine.FormatMS(g.LeaseUntil)) {
						continue
					}
					words := engine.Describe(e)
					if granted := engine.Describe(g); strings.Contains(granted, "in true time") {
						skewed++
						if !strings.Contains(words, "by node-1's clock; in true time it runs until") {
							t.Errorf("jump %dms at %dms: at %dms %q, while the lease was %q", by, at, e.T, words, granted)
						}
					} else if strings.Contains(words, "true time") {
						t.Errorf("jump %dms at %dms: a true clock's end said with a clock's words: %q", by, at, words)
					}
				}
			}
		}
	}
	if skewed == 0 {
		t.Fatal("no refusal quoted a lease end set by a clock off true time: the sweep proves nothing")
	}
}
