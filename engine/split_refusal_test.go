package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// splitRefusalScenario is chaos seed 10 with one more client, client-4,
// cut off with node-1 and asking for the lock from start: node-1 grants
// client-3 token 35 at 4.8s and is cut off with client-2 at 4.968s,
// before the copy reaches node-2, which is promoted without it at 5.568s
// (it forgets client-3's grant and, having missed client-1's release,
// holds client-1's token 34 until 9.8s). node-1, deposed, still answers
// client-4, refusing it for client-3's grant until 10.8s.
func splitRefusalScenario(fencing bool, start engine.Duration) engine.Scenario {
	steps := func(add int64, work engine.Duration) []engine.Step {
		return []engine.Step{{Do: "acquire"}, {Do: "read"}, {Do: "work", For: work}, {Do: "write", Add: ptr(add)}, {Do: "release"}}
	}
	return engine.Scenario{
		Title: "chaos 10, and a client beside the deposed primary", Seed: 10, Fencing: fencing, Until: engine.Sec(60),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Sec(6), FirstToken: 33,
			ReplicationLag: engine.Sec(1), Election: engine.Ms(600), Name: "account-42"},
		Storage: engine.Storage{Table: "records", Key: "account-42", Initial: 1000},
		Clients: []engine.Client{
			{Name: "client-1", Start: engine.Ms(3800), RetryEvery: engine.Sec(2), OnRefused: "retry", Steps: steps(600, engine.Ms(600))},
			{Name: "client-2", Start: engine.Ms(2200), RetryEvery: engine.Ms(500), OnRefused: "retry", Steps: steps(500, engine.Ms(600))},
			{Name: "client-3", Start: engine.Ms(3800), RetryEvery: engine.Sec(1), OnRefused: "stop", Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Ms(2400)}, {Do: "check"}, {Do: "write", Add: ptr(int64(900))}, {Do: "release"}}},
			{Name: "client-4", Start: start, RetryEvery: engine.Ms(500), OnRefused: "retry", Steps: steps(100, engine.Ms(300))},
		},
		Faults: []engine.Fault{
			{At: engine.Ms(4968), Do: "partition", Side: []string{"client-2", "node-1", "client-4"}, For: engine.Ms(6638)}},
	}
}

// TestDeposedRefusalSaysPrimariesDisagree: node-1, deposed but still
// answering client-4, refuses it "held by client-3", a grant node-2, the
// promoted primary, forgot; node-2 counts client-1 as its holder. The
// first refusal says whose record it is and what the other primary's
// says; the later ones name node-1's record and that node-2 disagrees.
// Before, they said "held by client-3" alone, while the timeline said
// node-2 forgot that grant.
func TestDeposedRefusalSaysPrimariesDisagree(t *testing.T) {
	for _, fencing := range []bool{true, false} {
		res := mustRun(t, splitRefusalScenario(fencing, engine.Ms(6000)))
		refused := find(res, "client-4", engine.KindAcquireRefused)
		if len(refused) < 2 {
			t.Fatalf("fencing %v: client-4 refused %d times, want at least 2: %v", fencing, len(refused), refused)
		}
		first := engine.Describe(refused[0])
		want := "refused, held by client-3 (token 35) until 10.8s; node-1, deposed but still serving its side of a partition, holds it for client-3, " +
			"while node-2, the primary on the other side, forgot that grant at 5.568s and counts client-1 as its holder of token 34: the two primaries disagree about who holds the lock"
		if refused[0].Node != "node-1" || !strings.Contains(first, want) {
			t.Errorf("fencing %v: first refusal by %s says %q, want %q", fencing, refused[0].Node, first, want)
		}
		later := "; by the record of node-1, deposed but still serving its side of a partition: node-2, the primary on the other side, disagrees"
		if got := engine.Describe(refused[1]); !strings.HasSuffix(got, later) {
			t.Errorf("fencing %v: second refusal says %q, want it to end %q", fencing, got, later)
		}
	}
}

// TestSplitRefusalsNameTheirRecord sweeps when client-4 first asks:
// every refusal node-1 makes once deposed (5.568s), for client-3's grant
// that node-2, serving the other side, does not count, names node-1 as
// the node whose record refused, and node-2 as the primary that differs.
func TestSplitRefusalsNameTheirRecord(t *testing.T) {
	seen := 0
	for _, fencing := range []bool{true, false} {
		for start := int64(5000); start <= 11000; start += 250 {
			res := mustRun(t, splitRefusalScenario(fencing, engine.Ms(start)))
			for _, e := range find(res, "client-4", engine.KindAcquireRefused) {
				if e.Node != "node-1" || e.T < 5568 || e.T >= 10800 || e.Holder != "client-3" {
					continue
				}
				seen++
				d := engine.Describe(e)
				if !strings.Contains(d, "node-1, deposed") && !strings.Contains(d, "record of node-1, deposed") || !strings.Contains(d, "node-2, the primary on the other side") {
					t.Errorf("fencing %v, client-4 from %dms: node-1's refusal at %dms says %q, naming neither whose record refused nor node-2's", fencing, start, e.T, d)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("node-1 refused client-4 nowhere in the sweep: it tests nothing")
	}
}

// TestNoDisagreementWithAPrimaryNobodyReaches: node-1 grants client-1
// the lock at 1s and is cut off alone at 1.5s, before the copy reaches
// node-2, which is promoted without it and grants client-2. node-2
// refuses client-3 for client-2's grant while node-1, deposed, still
// counts client-1, but no client reaches node-1: it grants nobody, so the
// refusal says nothing of two primaries disagreeing.
func TestNoDisagreementWithAPrimaryNobodyReaches(t *testing.T) {
	steps := []engine.Step{{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(3)}, {Do: "write", Add: ptr(int64(1))}, {Do: "release"}}
	sc := engine.Scenario{
		Title: "a deposed primary cut off from every client", Seed: 1, Fencing: true, Until: engine.Sec(30),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Sec(6), FirstToken: 33,
			ReplicationLag: engine.Sec(1), Election: engine.Sec(1)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{
			{Name: "client-1", Start: engine.Sec(1), RetryEvery: engine.Ms(500), Steps: steps},
			{Name: "client-2", Start: engine.Sec(3), RetryEvery: engine.Ms(500), Steps: steps},
			{Name: "client-3", Start: engine.Ms(3500), RetryEvery: engine.Ms(500), Steps: steps},
		},
		Faults: []engine.Fault{{At: engine.Ms(1500), Do: "partition", Target: "node-1", For: engine.Sec(10)}},
	}
	res := mustRun(t, sc)
	refused := 0
	for _, e := range find(res, "client-3", engine.KindAcquireRefused) {
		if e.Node != "node-2" || e.Holder != "client-2" || e.T >= 11500 {
			continue
		}
		refused++
		if d := engine.Describe(e); strings.Contains(d, "disagree") || strings.Contains(d, "node-1") {
			t.Errorf("node-2's refusal at %dms says %q: node-1, reached by no client, grants nobody", e.T, d)
		}
	}
	if refused == 0 {
		t.Fatalf("node-2 never refused client-3 for client-2 during the partition: %v", find(res, "client-3", ""))
	}
}

// TestSplitDisagreementSaysWhatDiffers sweeps generated async-replica
// runs: a refusal that says two primaries disagree "about who holds the
// lock" names, for the other primary, nobody or another client than the
// one the refusal names; when both name the same client by two grants
// (chaos seed 195 at 14.9s: node-2 counts client-3's token 33, node-1
// its token 34), it says they disagree about which of its grants holds
// the lock.
func TestSplitDisagreementSaysWhatDiffers(t *testing.T) {
	same := 0
	eachAsyncRun(t, 1000, func(seed int64, fencing bool, _ engine.Scenario, res *engine.Result) {
		for _, e := range find(res, "", engine.KindAcquireRefused) {
			d := engine.Describe(e)
			other := "counts " + e.Holder + " as its holder"
			switch {
			case strings.Contains(d, "disagree about who holds the lock") && strings.Contains(d, other):
				t.Errorf("seed %d fencing %v: %q: both primaries name %s", seed, fencing, d, e.Holder)
			case strings.Contains(d, "disagree about which of"):
				same++
				if !strings.Contains(d, other) {
					t.Errorf("seed %d fencing %v: %q: the other primary names another client", seed, fencing, d)
				}
			}
		}
	})
	if same == 0 && !testing.Short() {
		t.Fatal("no refusal in the sweep named one client by two grants: it tests nothing")
	}
}
