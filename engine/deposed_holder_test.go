package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// deposedScenario cuts the async primary (deposed) off with client-2,
// which it granted, while client-1 waits on the other side for the
// primary the monitor promotes in its place. When deposed is node-2,
// node-1 first crashes and comes back as its replica. client-2, granted
// at the start, is cut off cut later with its primary for length, works
// until 15s past its grant and then writes (or, fenced, reads); it
// renews every second when renew is set.
func deposedScenario(deposed, last string, lease, cut, length int64, renew bool) engine.Scenario {
	base := int64(0)
	var faults []engine.Fault
	if deposed == "node-2" {
		base = 2000
		faults = []engine.Fault{{At: engine.Ms(200), Do: "crash", Target: "node-1"}, {At: engine.Ms(1500), Do: "restart", Target: "node-1"}}
	}
	step := engine.Step{Do: "read"}
	if last == "write" {
		step = engine.Step{Do: "write", Add: ptr(int64(200))}
	}
	c2 := engine.Client{Name: "client-2", Start: engine.Ms(base), Steps: []engine.Step{
		{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Sec(15)}, step, {Do: "release"}}}
	if renew {
		c2.RenewEvery = engine.Sec(1)
	}
	return engine.Scenario{
		Title: "a deposed primary's holder", Seed: 1, Fencing: true, Until: engine.Sec(90),
		Lock:    engine.Lock{Backend: engine.BackendAsyncReplica, Lease: engine.Ms(lease), Election: engine.Sec(1)},
		Storage: engine.Storage{Initial: 1000},
		Clients: []engine.Client{
			{Name: "client-1", Start: engine.Ms(base + 1000), RetryEvery: engine.Ms(500), Steps: []engine.Step{
				{Do: "acquire"}, {Do: "read"}, {Do: "write", Add: ptr(int64(100))}, {Do: "release"}}},
			c2,
		},
		Faults: append(faults, engine.Fault{At: engine.Ms(base + cut), Do: "partition", Side: []string{deposed, "client-2"}, For: engine.Ms(length)}),
	}
}

// TestDeposedPrimaryHolderWrites: an async primary cut off with client-2
// goes on renewing its lease, unaware that the monitor promoted the other
// node, which grants client-1 a higher token once its copy of the lease
// runs out; client-1's fenced read shows it to the storage. client-2,
// still the holder by its own primary's record, then writes or reads and
// is refused. The refusal names it as holder and says why: the other
// primary granted the higher token, two primaries at once; the summary
// counts the write as a holder's refused by a split brain, as its event
// says, and the verdict blames two primaries, not a stale write. Before,
// the deposed primary's record was not read: the write was counted a
// stale one refused ("every stale write was refused") and the read said
// "a newer holder has begun". A client-2 that does not renew has no
// lease left on its primary by then: it is no holder, and its refusal is
// a stale writer's, and so is one whose partition healed first: its
// primary rejoined as the other's replica, which never counted it. Swept
// over which node is deposed, when the partition begins and how long it
// lasts, the lease, renewing or not, and a write or a fenced read.
func TestDeposedPrimaryHolderWrites(t *testing.T) {
	said := 0
	for _, deposed := range []string{"node-1", "node-2"} {
		promoted := map[string]string{"node-1": "node-2", "node-2": "node-1"}[deposed]
		for _, last := range []string{"write", "read"} {
			for _, lease := range []int64{3000, 5000, 8000} {
				for _, cut := range []int64{500, 1500} {
					for _, length := range []int64{11000, 60000} {
						for _, renew := range []bool{true, false} {
							res := mustRun(t, deposedScenario(deposed, last, lease, cut, length, renew))
							name := fmt.Sprintf("%s deposed, cut at +%dms for %dms, lease %dms, renew %v, client-2 %ss", deposed, cut, length, lease, renew, last)
							// client-2 holds the lock by its primary's record
							// at 15s if it renews and the partition still
							// stands.
							holds := renew && cut+length > 15000
							g2, g1 := find(res, "client-2", engine.KindGranted), find(res, "client-1", engine.KindGranted)
							if len(g2) != 1 || g2[0].Node != deposed || len(g1) != 1 || g1[0].Node != promoted {
								t.Fatalf("%s: client-2 granted %v, client-1 %v: not the run meant", name, g2, g1)
							}
							says := fmt.Sprintf("%s, cut off from %s by a partition, counts client-2 as its holder of token %d, while %s, primary on the other side, granted client-1 token %d at %s: two primaries granted the lock at once, each on its own side",
								deposed, promoted, g2[0].Token, promoted, g1[0].Token, engine.FormatMS(g1[0].T))
							var refused []engine.Event
							for _, e := range append(writes(res, "client-2"), find(res, "client-2", engine.KindReadRefused)...) {
								if e.Kind != engine.KindWriteAccepted {
									refused = append(refused, e)
								}
							}
							if len(refused) != 1 {
								t.Fatalf("%s: client-2's %s refused %d times, want once: %v", name, last, len(refused), refused)
							}
							e := refused[0]
							holder := e.Kind == engine.KindWriteRefused && e.Holder == "client-2"
							if split := strings.Contains(e.Reason, says); split != holds || (e.Kind == engine.KindWriteRefused && holder != holds) {
								t.Errorf("%s: %s says %q (holder %q); want the two primaries named: %v", name, e.Kind, e.Reason, e.Holder, holds)
							}
							if strings.Contains(e.Reason, "handed out again") || holds && strings.Contains(e.Reason, "a newer holder has begun") {
								t.Errorf("%s: %s blames what did not happen: %q", name, e.Kind, e.Reason)
							}
							s, v := res.Summary, engine.Verdict(res.Summary)
							if last == "read" {
								continue
							}
							// The summary counts what the events say.
							holders, splits := 0, 0
							for _, e := range find(res, engine.ActorStorage, engine.KindWriteRefused) {
								if e.Holder != "" && e.Holder == e.Client {
									holders++
									if strings.Contains(e.Reason, "two primaries granted the lock at once") {
										splits++
									}
								}
							}
							if s.HolderWritesRefused != holders || s.SplitBrainWritesRefused != splits || s.WritesRefused != 1 {
								t.Errorf("%s: summary counts %d refused, %d the holder's, %d by two primaries; the events %d and %d",
									name, s.WritesRefused, s.HolderWritesRefused, s.SplitBrainWritesRefused, holders, splits)
							}
							want, not := "every stale write was refused (1 refused)", "holder"
							if holds {
								want, not = "the lock holder's own write was refused (1 refused): another primary, serving the other side of a partition, had granted a higher token", "stale"
								said++
							}
							if !strings.Contains(v, want) || strings.Contains(v, not) {
								t.Errorf("%s: the verdict %q does not say %q", name, v, want)
							}
						}
					}
				}
			}
		}
	}
	if said == 0 {
		t.Fatal("no deposed primary's holder was refused: the sweep proves nothing")
	}
}

// TestDeposedPrimaryHolderWritesUnfenced: without fencing, the write of
// client-2, still the holder by the record of the deposed primary that
// renews it, is accepted after client-1's: it is no stale write (its
// lease had not ended by the lock service's record: two primaries each
// had a holder), so the event is not marked stale, and the verdict says
// the update was lost beside the two primaries' double grant, not that a
// write landed "from a client whose lease had ended". Before, it was
// counted stale. A client-2 that does not renew has no lease left by
// then, and its write is a stale one.
func TestDeposedPrimaryHolderWritesUnfenced(t *testing.T) {
	for _, deposed := range []string{"node-1", "node-2"} {
		for _, lease := range []int64{3000, 5000, 8000} {
			for _, cut := range []int64{500, 1500} {
				for _, renew := range []bool{true, false} {
					sc := deposedScenario(deposed, "write", lease, cut, 60000, renew)
					sc.Fencing = false
					res := mustRun(t, sc)
					name := fmt.Sprintf("%s deposed, cut at +%dms, lease %dms, renew %v", deposed, cut, lease, renew)
					w := writes(res, "client-2")
					if len(w) != 1 || w[0].Kind != engine.KindWriteAccepted {
						t.Fatalf("%s: client-2's writes %v, want one accepted", name, w)
					}
					s, v := res.Summary, engine.Verdict(res.Summary)
					if w[0].Stale == renew || s.StaleWritesAccepted != map[bool]int{true: 0, false: 1}[renew] {
						t.Errorf("%s: client-2's write stale %v (%q), %d counted stale", name, w[0].Stale, w[0].Reason, s.StaleWritesAccepted)
					}
					if renew && (!strings.HasPrefix(v, "UNSAFE: update lost: final 1,200, expected 1,300") || !strings.Contains(v, "by two primaries at once")) {
						t.Errorf("%s: the verdict %q", name, v)
					}
				}
			}
		}
	}
}
