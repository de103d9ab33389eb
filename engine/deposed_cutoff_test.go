package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// deposedCutScenario: client-1 takes the lock from node-1, the primary,
// and renews it every second while it works 12s. At 500ms a partition of
// cut ms cuts node-1 off (with client-1 when withHolder is set, else
// alone); the monitor promotes node-2 after lock.election (1s), at 1.5s,
// and node-2 crashes at crash ms when crash > 0, leaving no node the
// monitor can promote while node-1, deposed, still answers whoever
// reaches it. client-2 asks for the lock from ask ms, every 400ms.
func deposedCutScenario(withHolder bool, cut, crash, ask int64) engine.Scenario {
	side := []string{"node-1"}
	if withHolder {
		side = append(side, "client-1")
	}
	faults := []engine.Fault{{At: engine.Ms(500), Do: "partition", Side: side, For: engine.Ms(cut)}}
	if crash > 0 {
		faults = append(faults, engine.Fault{At: engine.Ms(crash), Do: "crash", Target: "node-2"})
	}
	return engine.Scenario{
		Title: "cut off from a deposed primary", Seed: 1, Fencing: true, Until: engine.Sec(40),
		Lock: engine.Lock{Backend: engine.BackendAsyncReplica, Nodes: 2, Lease: engine.Sec(8), FirstToken: 33,
			ReplicationLag: engine.Ms(100), Election: engine.Sec(1)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{
			{Name: "client-1", RenewEvery: engine.Sec(1), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(12)}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
			{Name: "client-2", Start: engine.Ms(ask), RetryEvery: engine.Ms(400), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(1)}, {Do: "write", Add: ptr(int64(10))}, {Do: "release"}}},
		},
		Faults: faults,
	}
}

// TestCutOffFromDeposedPrimaryNamesIt: node-1, cut off with client-1 at
// 500ms, is replaced and still answers client-1 on its side. client-2,
// on the other side with node-2, asks at 1s, before node-2 is promoted,
// and after node-2 crashed at 4s: the only node that answers then is
// node-1, across the partition. The first is "a partition cut client-2
// off from node-1, which serves the lock"; the second, node-2 being down,
// "client-2 was cut off from the lock service by a partition". Before,
// both said "no lock server answered", though node-1 was answering
// client-1 all along.
func TestCutOffFromDeposedPrimaryNamesIt(t *testing.T) {
	res := mustRun(t, deposedCutScenario(true, 20000, 4000, 1000))
	var early, late []string
	for _, e := range find(res, "client-2", engine.KindUnavailable) {
		switch {
		case e.T < 1500:
			early = append(early, engine.Describe(e))
		case e.T > 4000 && e.T < 20500:
			late = append(late, engine.Describe(e))
		}
	}
	if len(early) == 0 || len(late) == 0 {
		t.Fatalf("client-2 went unanswered %d time(s) before node-2 was promoted and %d after it crashed: the scenario proves nothing", len(early), len(late))
	}
	for _, w := range early {
		if !strings.Contains(w, "a partition cut client-2 off from node-1, which serves the lock") {
			t.Errorf("before node-2 was promoted: %q, want it to name node-1, which served client-1", w)
		}
	}
	for _, w := range late {
		if !strings.Contains(w, "client-2 was cut off from the lock service by a partition") {
			t.Errorf("node-2 down: %q, want the partition blamed: node-1 still served", w)
		}
	}
	if len(find(res, "client-1", engine.KindRenewed)) < 10 {
		t.Errorf("client-1 was not renewed by node-1 through the partition: the scenario is not the one described")
	}
}

// TestCutOffFromDeposedPrimarySwept: whatever the partition's length,
// when node-2 crashes and when client-2 asks, client-2 left without an
// answer while node-1 (never crashed) is deposed and answers whoever
// reaches it is never told that no lock server answered. While node-2 is
// up on client-2's side, the words name node-1, never "cut off from the
// lock service": client-2 reached a node, just not the one serving.
// Once node-2 is down, it was cut off from the lock service. With node-1
// cut off alone and node-2 down, no client reaches the service while
// node-1 could serve: the verdict blames the partition for that time
// (cut_off_ms), not the servers.
func TestCutOffFromDeposedPrimarySwept(t *testing.T) {
	seen := map[string]int{}
	for _, withHolder := range []bool{true, false} {
		for _, cut := range []int64{3000, 9000, 20000} {
			for _, crash := range []int64{0, 2500, 6000} {
				for _, ask := range []int64{600, 1100, 3000, 7000} {
					res := mustRun(t, deposedCutScenario(withHolder, cut, crash, ask))
					name := fmt.Sprintf("holder with node-1 %v, cut %dms, node-2 crashed at %dms, client-2 asks at %dms", withHolder, cut, crash, ask)
					for _, e := range res.Events {
						if e.Kind != engine.KindUnavailable || e.T <= 500 || e.T >= 500+cut {
							continue
						}
						w := engine.Describe(e)
						node2Up := crash == 0 || e.T < crash
						switch {
						case strings.Contains(w, "no lock server answered"):
							t.Errorf("%s: %s at %dms %q, while node-1 served", name, e.Actor, e.T, w)
						case node2Up && !strings.Contains(w, "a partition cut "+e.Actor+" off from node-1, which serves the lock"):
							t.Errorf("%s: %s at %dms %q, want node-1 named: %s reached node-2", name, e.Actor, e.T, w, e.Actor)
						case !node2Up && !strings.Contains(w, e.Actor+" was cut off from the lock service by a partition"):
							t.Errorf("%s: %s at %dms %q, want the partition blamed", name, e.Actor, e.T, w)
						}
						seen[fmt.Sprint(node2Up)]++
					}
					if s := res.Summary; !withHolder && crash > 0 && crash < 500+cut {
						want := "a partition cut every client off from the lock service for " + engine.FormatMS(s.CutOffMS)
						if s.CutOffMS == 0 || !strings.Contains(engine.Verdict(s), want) {
							t.Errorf("%s: cut_off_ms %d of unavailable_ms %d, verdict %q: node-1 could serve while node-2 was down", name, s.CutOffMS, s.UnavailableMS, engine.Verdict(s))
						}
					}
				}
			}
		}
	}
	if seen["true"] == 0 || seen["false"] == 0 {
		t.Fatalf("unanswered with node-2 up %d time(s), down %d: the sweep proves too little", seen["true"], seen["false"])
	}
}

// seed349 is chaos seed 349 on async-replica, fencing on: node-1 grants
// client-2 token 34 at 26.1s and is cut off from everyone at 26.47s;
// node-2, promoted at 27.97s without that grant, grants client-2 token 34
// again at 31.7s, by its clock 7.2s ahead (until 46.9s by it, 39.7s in
// true time), and crashes at 31.924s. Only node-1, deposed, is up then,
// and it answers no one.
const seed349 = `{"title":"chaos 349","seed":349,"fencing":true,"until":"1m0s",
	"lock":{"backend":"async-replica","nodes":2,"lease":"8s","first_token":33,"replication_lag":"400ms","election":"1.5s"},
	"storage":{"key":"account-42","initial":1000},
	"clients":[{"name":"client-1","start":"4.4s","renew_every":"1.6s","retry_every":"500ms","on_refused":"retry",
		"steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"7.2s"},{"do":"write","add":700},{"do":"release"}]},
	{"name":"client-2","start":"8.6s","retry_every":"500ms","on_refused":"retry","watch_lease":true,
		"steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"5.6s"},{"do":"check"},{"do":"write","add":300},{"do":"release"}]}],
	"faults":[{"at":"13.4s","do":"clock_jump","target":"node-2","by":"7.2s"},{"at":"11.261s","do":"delay","target":"client-1","by":"14.275s","kind":"write"},
	{"at":"26.47s","do":"partition","target":"node-1","for":"13.811s"},{"at":"31.924s","do":"crash","target":"node-2"}]}`

// TestDeposedPrimaryTellsNoLeaseItNeverGranted (seed 349): client-2's
// check and release at 37.3s reach no node, while node-1, deposed, is
// the only one up and would answer whoever reached it: client-2 was cut
// off from the lock service by a partition. The lease node-2 granted
// (token 34 again, until 39.7s in true time) is not told to end at 39.7s
// by node-1, whose record holds only its own older lease of token 34
// (until 34.1s by its clock): no node that knew of node-2's lease served
// when it ran out, and that is said once node-1 is primary again. Run
// twice, it gives the same result byte for byte.
func TestDeposedPrimaryTellsNoLeaseItNeverGranted(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(seed349))
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sc)
	if again := mustRun(t, sc); jsonOf(t, again) != jsonOf(t, res) {
		t.Fatal("the same scenario ran twice gave two results")
	}
	cut := 0
	for _, e := range find(res, "client-2", engine.KindUnavailable) {
		if w := engine.Describe(e); e.T == 37300 && strings.Contains(w, "client-2 was cut off from the lock service by a partition") {
			cut++
		} else {
			t.Errorf("at %dms %q, want client-2 cut off from the lock service", e.T, w)
		}
	}
	if cut != 2 {
		t.Errorf("client-2's check and release at 37.3s said cut off %d time(s), want 2", cut)
	}
	var ends []string
	for _, e := range find(res, "", engine.KindLeaseExpired) {
		if e.Holder == "client-2" && e.Token == 34 {
			ends = append(ends, fmt.Sprintf("%dms %s: %s", e.T, e.Actor, e.Message))
		}
	}
	want := "41781ms node-1: it ran out at 39.7s, while no node that knew of it served"
	if len(ends) != 1 || ends[0] != want {
		t.Errorf("client-2's lease of token 34 ended %q, want only %q", ends, want)
	}
}

// TestCutOffFromDeposedNode2NamesIt: node-1 crashes at 300ms and node-2 is
// promoted at 1.3s; node-1 comes back at 2s as its replica. At 3s a
// partition cuts node-2 off with client-1, its holder: the monitor
// replaces it, promoting node-1 at 4s, and until then node-2, deposed,
// alone serves. client-2, on node-1's side, asks at 3.2s: it is told a
// partition cut it off from node-2, which serves the lock, and its lost
// request was going to node-2, not to node-1, which served no one then.
func TestCutOffFromDeposedNode2NamesIt(t *testing.T) {
	sc := deposedCutScenario(true, 0, 0, 3200)
	sc.Faults = []engine.Fault{
		{At: engine.Ms(300), Do: "crash", Target: "node-1"}, {At: engine.Sec(2), Do: "restart", Target: "node-1"},
		{At: engine.Sec(3), Do: "partition", Side: []string{"node-2", "client-1"}, For: engine.Sec(20)}}
	res := runMessages(t, sc, nil)
	var words []string
	for _, e := range find(res, "client-2", engine.KindUnavailable) {
		if e.T < 4000 {
			words = append(words, engine.Describe(e))
		}
	}
	if len(words) == 0 {
		t.Fatal("client-2 was answered before node-1 was promoted: the scenario proves nothing")
	}
	for _, w := range words {
		if !strings.Contains(w, "a partition cut client-2 off from node-2, which serves the lock") {
			t.Errorf("%q, want it to name node-2, deposed, which served client-1", w)
		}
	}
	lost := 0
	for _, m := range res.Messages {
		if m.From == "client-2" && m.Lost && m.Answer == 0 && m.At >= 3000 && m.At < 4000 {
			lost++
			if m.To != "node-2" {
				t.Errorf("client-2's %s at %dms went to %s, want node-2, the node that served", m.Kind, m.At, m.To)
			}
		}
	}
	if lost == 0 {
		t.Error("no request of client-2's was lost before node-1 was promoted")
	}
}
