package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// chaos195 is chaos seed 195 (async-replica, fencing on): node-1 is cut
// off with client-3 from 8.982s to 21.921s and deposed at 9.782s; it goes
// on renewing client-3's token 34. At 21.89s it serves client-3's renewal;
// at 21.921s the partition heals and node-1 rejoins as node-2's replica,
// which forgets the grant; the renewal's answer reaches client-3 at 21.94s.
const chaos195 = `{"title": "chaos 195", "seed": 195, "fencing": true, "until": "1m0s",
 "lock": {"backend": "async-replica", "nodes": 2, "lease": "8s", "first_token": 33, "replication_lag": "900ms", "election": "800ms", "latency": "50ms", "name": "account-42"},
 "storage": {"table": "records", "key": "account-42", "initial": 1000},
 "clients": [
  {"name": "client-1", "start": "9.4s", "retry_every": "500ms", "on_refused": "retry", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "800ms"}, {"do": "check"}, {"do": "write", "add": 200}, {"do": "release"}]},
  {"name": "client-2", "start": "4.4s", "retry_every": "500ms", "on_refused": "stop", "watch_lease": true, "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "4s"}, {"do": "check"}, {"do": "write", "add": 500}, {"do": "release"}]},
  {"name": "client-3", "start": "4s", "renew_every": "1.76s", "retry_every": "2s", "on_refused": "retry", "steps": [{"do": "acquire"}, {"do": "read"}, {"do": "work", "for": "10.4s"}, {"do": "check"}, {"do": "write", "add": 900}, {"do": "release"}]}],
 "faults": [{"at": "14.6s", "do": "clock_jump", "target": "node-1", "by": "6.4s"}, {"at": "8.982s", "do": "partition", "side": ["client-3", "node-1"], "for": "12.939s"}]}`

// TestRenewalAnsweredAfterForgetSaysSo: the renewal answered at 21.94s,
// after the timeline's grant_forgotten at 21.921s, says node-1 served it
// at 21.89s, before the service forgot the grant, and that the service no
// longer counts it. Before, it read as a renewal of a forgotten grant.
func TestRenewalAnsweredAfterForgetSaysSo(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(chaos195))
	if err != nil {
		t.Fatal(err)
	}
	for _, fencing := range []bool{true, false} {
		sc.Fencing = fencing
		res := mustRun(t, sc)
		forgot := find(res, "node-2", engine.KindGrantForgotten)
		if len(forgot) != 1 || forgot[0].T != 21921 || forgot[0].Holder != "client-3" || forgot[0].Token != 34 {
			t.Fatalf("fencing %v: grant_forgotten %v, want node-2's of client-3's token 34 at 21.921s", fencing, forgot)
		}
		var late []engine.Event
		for _, e := range find(res, "client-3", engine.KindRenewed) {
			if e.T > forgot[0].T && e.Token == 34 {
				late = append(late, e)
			}
		}
		if len(late) != 1 || late[0].T != 21940 {
			t.Fatalf("fencing %v: renewals of token 34 after the forgetting %v, want one answered at 21.94s", fencing, late)
		}
		want := "node-1 served it at 21.89s, before the lock service forgot this grant at 21.921s: the answer arrived after, and the service no longer counts the grant"
		if got := engine.Describe(late[0]); !strings.Contains(got, want) {
			t.Errorf("fencing %v: the late renewal says %q, want %q", fencing, got, want)
		}
	}
}
