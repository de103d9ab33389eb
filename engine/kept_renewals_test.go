package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// chaos543 is chaos seed 543 (async-replica, fencing on): node-1 grants
// client-2 token 34 at 7.7s and renews it at 11.06s and 14.42s; node-2
// receives the first renewal but not the second before node-1 is cut off
// with client-2 at 14.508s. node-2 is promoted at 15.708s, and node-1,
// deposed, renews the grant alone until it rejoins at 32.328s.
const chaos543 = `{"title": "chaos 543", "seed": 543, "fencing": true, "until": "1m0s",
 "lock": {"backend": "async-replica", "nodes": 2, "lease": "12s", "first_token": 33, "replication_lag": "200ms", "election": "1.2s", "latency": "0s", "name": "account-42"},
 "storage": {"table": "records", "key": "account-42", "initial": 1000},
 "clients": [
  {"name": "client-1", "start": "500ms", "retry_every": "2s", "on_refused": "stop", "watch_lease": true, "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "6s"}, {"do": "write", "add": 200}, {"do": "release"}]},
  {"name": "client-2", "start": "6.2s", "renew_every": "3.36s", "retry_every": "1.5s", "on_refused": "stop", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "10.8s"}, {"do": "write", "add": 600}, {"do": "release"}]}],
 "faults": [{"at": "11.179s", "do": "clock_jump", "target": "client-2", "by": "-5.525s"}, {"at": "14.508s", "do": "partition", "side": ["client-2", "node-1"], "for": "17.82s"}, {"at": "18.194s", "do": "delay", "target": "client-2", "by": "20.553s", "kind": "write"}]}`

// TestPromotionNamesLackedRenewalsBriefly: node-2's promotion says, in
// one short clause, which renewals it lacks and who still holds the
// grant for whom; when node-1 rejoins, the grant_forgotten says the
// renewals lost are the ones node-1 alone kept (the one of 14.42s was
// made before node-1 was cut off), not ones it made alone.
func TestPromotionNamesLackedRenewalsBriefly(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(chaos543))
	if err != nil {
		t.Fatal(err)
	}
	for _, fencing := range []bool{true, false} {
		sc.Fencing = fencing
		res := mustRun(t, sc)
		leaders := find(res, "node-2", engine.KindLeader)
		if len(leaders) != 1 || leaders[0].T != 15708 {
			t.Fatalf("fencing %v: node-2's leader events %v, want its promotion at 15.708s", fencing, leaders)
		}
		want := "is promoted to primary with the copies it had received (next token 35); it lacks client-2's renewals of token 34, which node-1, deposed, still holds for the clients that reach it"
		if got := engine.Describe(leaders[0]); got != want {
			t.Errorf("fencing %v: the promotion says %q, want %q", fencing, got, want)
		}
		forgot := find(res, "node-2", engine.KindGrantForgotten)
		if len(forgot) != 1 || forgot[0].T != 32328 {
			t.Fatalf("fencing %v: grant_forgotten %v, want one at 32.328s", fencing, forgot)
		}
		if want := "node-1 rejoined as replica: the renewals it alone kept are gone"; !strings.Contains(engine.Describe(forgot[0]), want) {
			t.Errorf("fencing %v: grant_forgotten says %q, want %q", fencing, engine.Describe(forgot[0]), want)
		}
	}
}
