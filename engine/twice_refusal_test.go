package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// chaos684 is chaos seed 684 (async-replica, fencing on): node-1 is cut
// off from everybody from 1.9s to 5.6s; node-2, promoted at 2.8s, grants
// client-1 token 33 at 3s and crashes at 3.056s. When the partition
// heals, node-1, deposed and never having received that grant, grants
// client-2 token 33 too, and at 6.24s refuses client-1's renewal of it.
const chaos684 = `{"title": "chaos 684", "seed": 684, "fencing": true, "until": "1m0s",
 "lock": {"backend": "async-replica", "nodes": 2, "lease": "12s", "first_token": 33, "replication_lag": "900ms", "election": "900ms", "latency": "0s", "name": "account-42"},
 "storage": {"table": "records", "key": "account-42", "initial": 1000},
 "clients": [
  {"name": "client-1", "start": "2.5s", "renew_every": "3.24s", "retry_every": "500ms", "on_refused": "retry", "watch_lease": true, "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "12s"}, {"do": "write", "add": 300}, {"do": "release"}]},
  {"name": "client-2", "start": "5.6s", "retry_every": "2s", "on_refused": "stop", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "1.2s"}, {"do": "write", "add": 300}, {"do": "release"}]}],
 "faults": [{"at": "1.9s", "do": "partition", "target": "node-1", "for": "3.7s"}, {"at": "3.056s", "do": "crash", "target": "node-2"}, {"at": "22.144s", "do": "restart", "target": "node-2"}]}`

// TestDeposedTwiceRefusalNamesBothPrimaries: node-1, deposed, refuses
// client-1's renewal of token 33 at 6.24s, the token being client-2's by
// its record: the refusal names who handed it out to whom: node-2 to
// client-1 at 3s, and node-1, deposed, never having received that grant,
// to client-2 at 5.6s. Before, it said only "the token was handed out
// twice".
func TestDeposedTwiceRefusalNamesBothPrimaries(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(chaos684))
	if err != nil {
		t.Fatal(err)
	}
	for _, fencing := range []bool{true, false} {
		sc.Fencing = fencing
		refused := find(mustRun(t, sc), "client-1", engine.KindRenewRefused)
		if len(refused) != 1 || refused[0].T != 6240 || refused[0].Node != "node-1" {
			t.Fatalf("fencing %v: client-1's renewal refusals %v, want node-1's at 6.24s", fencing, refused)
		}
		want := "token 33 is held by client-2, not client-1: the token was handed out twice; " +
			"node-2 granted it to client-1 at 3s, and node-1, deposed, never having received that grant, to client-2 at 5.6s"
		if got := engine.Describe(refused[0]); !strings.HasSuffix(got, want) {
			t.Errorf("fencing %v: the refusal says %q, want %q", fencing, got, want)
		}
	}
}

// TestDeposedTwiceRefusalsSweep sweeps generated async-replica runs: a
// renewal, check or release that a deposed primary (one the monitor
// replaced, not since rejoined or promoted again) refuses because the
// token was handed out twice names the two nodes that handed it out
// (chaos seeds 70, 535, 684).
func TestDeposedTwiceRefusalsSweep(t *testing.T) {
	named := 0
	eachAsyncRun(t, 1000, func(seed int64, fencing bool, _ engine.Scenario, res *engine.Result) {
		primary, deposed := "", map[string]bool{}
		for _, e := range res.Events {
			switch e.Kind {
			case engine.KindLeader:
				if primary != "" && primary != e.Node {
					deposed[primary] = true
				}
				primary = e.Node
				delete(deposed, e.Node)
			case engine.KindRejoined:
				delete(deposed, e.Node)
			case engine.KindRenewRefused, engine.KindCheckFailed, engine.KindReleaseRefused:
				d := engine.Describe(e)
				if !deposed[e.Node] || !strings.Contains(d, "the token was handed out twice") {
					continue
				}
				if !strings.Contains(d, "never having received that grant") {
					t.Errorf("seed %d fencing %v: %s, deposed, refused at %dms without naming who handed the token out: %q", seed, fencing, e.Node, e.T, d)
				}
				named++
			}
		}
	})
	if named == 0 && !testing.Short() {
		t.Fatal("no deposed primary refused a token handed out twice: the sweep tests nothing")
	}
}
