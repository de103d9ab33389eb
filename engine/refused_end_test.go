package engine_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
)

// chaos80 is chaos seed 80 (async-replica, fencing on): node-1's clock
// runs 5 times too fast from 11.528s; it grants client-3 token 35 at
// 14.5s, its lease until 35.638s by that clock (24.35s in true time), and
// ends it at 16.35s. node-1 is cut off with client-3 at 16.538s and
// node-2, whose clock reads true time, is promoted at 16.738s with a copy
// that holds the lease until 35.638s: it refuses client-1 from 21s to
// 28.8s by that copy.
const chaos80 = `{"title": "chaos 80", "seed": 80, "fencing": true, "until": "1m0s",
 "lock": {"backend": "async-replica", "nodes": 2, "lease": "10s", "first_token": 33, "replication_lag": "800ms", "election": "200ms", "latency": "150ms", "name": "account-42"},
 "storage": {"table": "records", "key": "account-42", "initial": 1000},
 "clients": [
  {"name": "client-1", "start": "3.9s", "renew_every": "2.6s", "retry_every": "1s", "on_refused": "retry", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "12s"}, {"do": "write", "add": 700}, {"do": "release"}]},
  {"name": "client-2", "start": "3s", "retry_every": "2s", "on_refused": "stop", "watch_lease": true, "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "3s"}, {"do": "check"}, {"do": "write", "add": 700}, {"do": "release"}]},
  {"name": "client-3", "start": "3.4s", "renew_every": "2s", "retry_every": "1.5s", "on_refused": "stop", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "14s"}, {"do": "write", "add": 100}, {"do": "release"}]}],
 "faults": [{"at": "13s", "do": "pause", "target": "client-2", "for": "19s"}, {"at": "5.497s", "do": "clock_drift", "target": "client-2", "for": "20.67s", "rate": 0.3},
  {"at": "11.528s", "do": "clock_drift", "target": "node-1", "for": "13.655s", "rate": 5}, {"at": "16.538s", "do": "partition", "side": ["client-3", "node-1"], "for": "11.217s"}]}`

// chaos682 is chaos seed 682 (async-replica, fencing off): node-1's
// clock jumps 8.946s ahead at 4.798s, and it grants client-2 token 34 at
// 5s, its lease until 23.946s by that clock (15s in true time). node-2,
// whose clock reads true time, is promoted at 8.061s with that lease and
// refuses client-3 by it.
const chaos682 = `{"title": "chaos 682", "seed": 682, "fencing": false, "until": "1m0s",
 "lock": {"backend": "async-replica", "nodes": 2, "lease": "10s", "first_token": 33, "replication_lag": "600ms", "election": "1.3s", "latency": "0s", "name": "account-42"},
 "storage": {"table": "records", "key": "account-42", "initial": 1000},
 "clients": [
  {"name": "client-1", "start": "300ms", "renew_every": "2.5s", "retry_every": "2s", "on_refused": "retry", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "15s"}, {"do": "write", "add": 100}, {"do": "release"}]},
  {"name": "client-2", "start": "2s", "retry_every": "500ms", "on_refused": "retry", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "5s"}, {"do": "write", "add": 400}, {"do": "release"}]},
  {"name": "client-3", "start": "5.1s", "retry_every": "1s", "on_refused": "stop", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "5s"}, {"do": "write", "add": 400}, {"do": "release"}]}],
 "faults": [{"at": "4.798s", "do": "clock_jump", "target": "node-1", "by": "8.946s"}, {"at": "6.761s", "do": "partition", "side": ["client-2", "node-1"], "for": "13.004s"}]}`

// refusalsBy returns the acquire refusals node gave actor.
func refusalsBy(res *engine.Result, actor, node string) []engine.Event {
	var out []engine.Event
	for _, e := range find(res, actor, engine.KindAcquireRefused) {
		if e.Node == node {
			out = append(out, e)
		}
	}
	return out
}

// TestPromotedRefusalJudgesEndByItsClock: node-2 refuses client-1 by its
// copy of client-3's lease, until 35.638s by node-2's clock, which reads
// true time: an end node-1's fast clock set, on a lease the service had
// ended at 16.35s, and which in true time ran out at 24.35s. Before, the
// refusals said "by node-1's clock; in true time it runs until 24.35s",
// up to 28.8s, as if node-1's clock judged it and its end were ahead.
// The first refusal says it whole, the later six name node-2's copy
// alone: before, all seven repeated the whole.
func TestPromotedRefusalJudgesEndByItsClock(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(chaos80))
	if err != nil {
		t.Fatal(err)
	}
	refused := refusalsBy(mustRun(t, sc), "client-1", "node-2")
	if len(refused) != 7 || refused[0].T != 21000 || refused[6].T != 28800 {
		t.Fatalf("node-2's refusals of client-1 %v, want 7 from 21s to 28.8s", refused)
	}
	by := "until 35.638s by node-2's clock, which reads true time, an end node-1's clock set 11.288s ahead of true time; " +
		"the lock service had ended that lease at 16.35s, and node-2's copy brought it back: in true time the lease "
	for i, e := range refused {
		if i == 1 {
			// The first said it whole; the later ones name the copy alone.
			by = "until 35.638s by node-2's clock, its copy of the lease the lock service had ended at 16.35s: in true time the lease "
		}
		want := by + "was to run until 24.35s"
		if e.T >= 24350 {
			want = by + "ran out at 24.35s"
		}
		if got := engine.Describe(e); !strings.Contains(got, want) || strings.Contains(got, "by node-1's clock") {
			t.Errorf("refusal at %dms says %q, want %q", e.T, got, want)
		}
	}
}

// TestPromotedRefusalOfALiveLease: node-2 refuses client-3 by a lease
// node-1's jumped clock set and had not ended: node-2's clock reads
// true time and holds it until 23.946s, though in true time it was to
// run until 15s. Before: "by node-1's clock; in true time it runs until
// 15s", as if node-2 let go then.
func TestPromotedRefusalOfALiveLease(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(chaos682))
	if err != nil {
		t.Fatal(err)
	}
	refused := refusalsBy(mustRun(t, sc), "client-3", "node-2")
	if len(refused) < 2 || refused[0].T != 8100 {
		t.Fatalf("node-2's refusals of client-3 %v, want the first at 8.1s", refused)
	}
	want := "held by client-2 (token 34) until 23.946s by node-2's clock, which reads true time, an end node-1's clock set 8.946s ahead of true time: in true time the lease was to run until 15s"
	for _, e := range refused[:2] {
		if got := engine.Describe(e); !strings.HasSuffix(got, want) {
			t.Errorf("refusal at %dms says %q, want %q", e.T, got, want)
		}
	}
}

// refusalClock matches a refusal's clock words: whose clock, and the
// true end it tells as still ahead.
var (
	refusalClock  = regexp.MustCompile(`until [0-9.ms]+ by (node-\d+)'s clock`)
	refusalAhead  = regexp.MustCompile(`in true time (?:it runs|the lease was to run) until ([0-9.ms]+)`)
	refusalPassed = regexp.MustCompile(`in true time (?:it|the lease) ran out at ([0-9.ms]+)`)
)

// TestRefusalClockIsTheRefusers sweeps generated async-replica runs: a
// refusal's lease end is read by the clock of the node that refused, and
// a true end it tells is ahead when it says "runs until" and passed when
// it says "ran out at" (chaos seeds 80, 682, 711).
func TestRefusalClockIsTheRefusers(t *testing.T) {
	ms := func(s string) int64 {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return d.Milliseconds()
	}
	eachAsyncRun(t, 1000, func(seed int64, fencing bool, _ engine.Scenario, res *engine.Result) {
		for _, e := range find(res, "", engine.KindAcquireRefused) {
			d := engine.Describe(e)
			if m := refusalClock.FindStringSubmatch(d); m != nil && m[1] != e.Node {
				t.Errorf("seed %d fencing %v: %s refused at %dms by %s's clock: %q", seed, fencing, e.Node, e.T, m[1], d)
			}
			if m := refusalAhead.FindStringSubmatch(d); m != nil && ms(m[1]) <= e.T {
				t.Errorf("seed %d fencing %v: a refusal at %dms tells a passed end as ahead: %q", seed, fencing, e.T, d)
			}
			if m := refusalPassed.FindStringSubmatch(d); m != nil && ms(m[1]) > e.T {
				t.Errorf("seed %d fencing %v: a refusal at %dms tells an end ahead as passed: %q", seed, fencing, e.T, d)
			}
		}
	})
}
