package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// lostPrimaryScenario: the primary (first) grants client-1 and crashes
// before the copy reaches the replica, which the monitor promotes without
// the grant; it grants client-2 (after client-3, which takes the token
// again and gives it back, when refused is set, so that client-2's token
// is higher), and then crashes too, at promotedCrash past its promotion:
// the first primary is still down, so none serves. client-1 writes at 6s
// past its grant. When first is node-2, node-1 first crashes and comes
// back as its replica.
func lostPrimaryScenario(first string, lag, lease, promotedCrash int64, refused bool) engine.Scenario {
	base := int64(0)
	other := map[string]string{"node-1": "node-2", "node-2": "node-1"}[first]
	var faults []engine.Fault
	if first == "node-2" {
		base = 2000
		faults = []engine.Fault{{At: engine.Ms(200), Do: "crash", Target: "node-1"}, {At: engine.Ms(1500), Do: "restart", Target: "node-1"}}
	}
	promoted := base + 2000 // the crash at 1s, then lock.election
	faults = append(faults,
		engine.Fault{At: engine.Ms(base + 1000), Do: "crash", Target: first},
		engine.Fault{At: engine.Ms(promoted + promotedCrash), Do: "crash", Target: other})
	job := func(name string, start int64, work int64, add int64) engine.Client {
		return engine.Client{Name: name, Start: engine.Ms(start), RetryEvery: engine.Ms(500), Steps: []engine.Step{
			{Do: "acquire"}, {Do: "read"}, {Do: "work", For: engine.Ms(work)}, {Do: "write", Add: ptr(add)}, {Do: "release"}}}
	}
	clients := []engine.Client{job("client-1", base, 6000, 100), job("client-2", promoted+800, 500, 200)}
	if refused {
		clients = append(clients, engine.Client{Name: "client-3", Start: engine.Ms(promoted + 300), Steps: []engine.Step{
			{Do: "acquire"}, {Do: "read"}, {Do: "release"}}})
	}
	return engine.Scenario{
		Title: "both primaries lost", Seed: 1, Fencing: true, Until: engine.Sec(60),
		Lock:    engine.Lock{Backend: engine.BackendAsyncReplica, Lease: engine.Ms(lease), Election: engine.Sec(1), ReplicationLag: engine.Ms(lag)},
		Storage: engine.Storage{Initial: 1000},
		Clients: clients,
		Faults:  faults,
	}
}

// TestNoPrimaryReadsTheLastOnesRecord: while no async primary serves,
// the service's record is the one the primary lost last left, not
// node-1's. The first primary grants client-1 and crashes before the
// copy leaves; the promoted replica, without the grant, gives the lock
// to client-2, who uses it and gives it back, and then crashes too.
// client-1's write, on the grant nobody serving holds, is judged the same
// whether the promoted node crashed before it or after: accepted on the
// token handed out again, it is a stale write (a newer holder had begun),
// counted and said so; refused by client-2's higher token, it is a stale
// write refused, not "the lock service counts client-1 as its holder".
// Before, with node-1 the primary that crashed first, the crashed node's
// old record was read once the promoted one crashed too: client-1 was
// taken for the holder, its accepted write not stale and its refused one
// a holder's with its token "handed out again". Swept over which node is
// primary first, the replication lag, the lease, and when the promoted
// node crashes.
func TestNoPrimaryReadsTheLastOnesRecord(t *testing.T) {
	for _, first := range []string{"node-1", "node-2"} {
		for _, lag := range []int64{1500, 3000} {
			for _, lease := range []int64{8000, 15000} {
				for _, crash := range []int64{2500, 6000} {
					for _, refused := range []bool{false, true} {
						res := mustRun(t, lostPrimaryScenario(first, lag, lease, crash, refused))
						name := fmt.Sprintf("%s first, lag %dms, lease %dms, promoted node crashes %dms in, client-2's token higher %v", first, lag, lease, crash, refused)
						if len(find(res, "", engine.KindGrantForgotten)) != 1 || len(find(res, engine.ActorStorage, engine.KindWriteAccepted)) < 1 {
							t.Fatalf("%s: the promoted node did not forget client-1's grant, or client-2 did not write", name)
						}
						w := writes(res, "client-1")
						if len(w) != 1 || (w[0].Kind == engine.KindWriteRefused) != refused {
							t.Fatalf("%s: client-1's writes %v", name, w)
						}
						s, v := res.Summary, engine.Verdict(res.Summary)
						stale, holders := 0, 0
						for _, e := range find(res, engine.ActorStorage, "") {
							if e.Stale {
								stale++
							}
							if e.Kind == engine.KindWriteRefused && e.Holder != "" && e.Holder == e.Client {
								holders++
							}
						}
						if s.StaleWritesAccepted != stale || s.HolderWritesRefused != holders {
							t.Errorf("%s: summary counts %d stale, %d holder's refused; the events %d and %d", name, s.StaleWritesAccepted, s.HolderWritesRefused, stale, holders)
						}
						if refused {
							if w[0].Holder != "" || strings.Contains(w[0].Reason, "holder") || !strings.Contains(v, "every stale write was refused (1 refused)") {
								t.Errorf("%s: client-1's write refused: %q (holder %q); verdict %q", name, w[0].Reason, w[0].Holder, v)
							}
							continue
						}
						if !w[0].Stale || !strings.HasPrefix(v, "UNSAFE: stale write accepted: 1 stale write landed") {
							t.Errorf("%s: client-1's write accepted, stale %v; verdict %q", name, w[0].Stale, v)
						}
					}
				}
			}
		}
	}
}

// TestNoPrimaryJudgesLeasesByTheLastOnesClock: while no async primary
// serves, leases are judged by the clock of the primary lost last,
// not node-1's. The primary, its clock jumped, grants client-1 and
// crashes with its replica already down; the monitor finds no node to
// promote, and promotes the replica, without the grant, once it is back.
// The grant is forgotten while its lease ran only when the replica takes
// over before the lease's end by the clock of the node that granted it
// (in true time, its length after the grant): otherwise it is forgotten
// after its lease ended, at that end. Before, with node-2 the primary
// that granted, node-1's clock judged the lease once the monitor found no
// node: a clock ahead ended it late, and the grant was said forgotten
// while its lease ran when it had run out; a clock behind ended it
// early. Swept over which node grants, the jump, the lease, and whether
// the replica comes back before the lease's end or after.
func TestNoPrimaryJudgesLeasesByTheLastOnesClock(t *testing.T) {
	for _, granter := range []string{"node-1", "node-2"} {
		replica := map[string]string{"node-1": "node-2", "node-2": "node-1"}[granter]
		for _, jump := range []int64{-2000, 3000, 6000} {
			for _, lease := range []int64{6000, 8000} {
				for _, before := range []bool{true, false} {
					const grant = 2500
					end := grant + lease // in true time, by the granter's clock too
					back := end + 500    // promoted a second later (lock.election)
					if before {
						back = end - 1500
					}
					// The replica crashes first: node-1, the primary, is
					// replaced by node-2; node-2, the replica, is merely down.
					faults := []engine.Fault{
						{At: engine.Ms(500), Do: "clock_jump", Target: granter, By: engine.Ms(jump)},
						{At: engine.Sec(1), Do: "crash", Target: replica},
						{At: engine.Sec(3), Do: "crash", Target: granter},
						{At: engine.Ms(back), Do: "restart", Target: replica},
					}
					sc := engine.Scenario{
						Title: "a lease while no primary serves", Seed: 1, Fencing: true, Until: engine.Sec(40),
						Lock:    engine.Lock{Backend: engine.BackendAsyncReplica, Lease: engine.Ms(lease), Election: engine.Sec(1)},
						Storage: engine.Storage{Initial: 1000},
						Clients: []engine.Client{{Name: "client-1", Start: engine.Ms(grant), Steps: []engine.Step{
							{Do: "acquire"}, {Do: "work", For: engine.Sec(30)}}}},
						Faults: faults,
					}
					res := mustRun(t, sc)
					name := fmt.Sprintf("%s grants, its clock %+dms, lease %dms, %s back at %dms", granter, jump, lease, replica, back)
					g := find(res, "client-1", engine.KindGranted)
					f := find(res, "", engine.KindGrantForgotten)
					if len(g) != 1 || g[0].Node != granter || len(f) != 1 || f[0].Actor != replica {
						t.Fatalf("%s: granted %v, forgotten %v: not the run meant", name, g, f)
					}
					s, v := res.Summary, engine.Verdict(res.Summary)
					if before {
						if f[0].Ended || s.ForgottenGrants != 1 || s.ForgottenEndedGrants != 0 || !strings.Contains(v, "forgot 1 grant while its lease ran") {
							t.Errorf("%s: forgotten %q (ended %v) with %d ran, %d ended; verdict %q", name, f[0].Reason, f[0].Ended, s.ForgottenGrants, s.ForgottenEndedGrants, v)
						}
						continue
					}
					says := fmt.Sprintf("its lease had already run out at %s", engine.FormatMS(end))
					if !f[0].Ended || !strings.Contains(f[0].Reason, says) || s.ForgottenGrants != 0 || s.ForgottenEndedGrants != 1 || !strings.Contains(v, "forgot 1 grant after its lease ended") {
						t.Errorf("%s: forgotten %q (ended %v), want %q; %d ran, %d ended; verdict %q", name, f[0].Reason, f[0].Ended, says, s.ForgottenGrants, s.ForgottenEndedGrants, v)
					}
				}
			}
		}
	}
}

// TestNoPrimaryAfterSplitJudgesByTheLostPrimary: a deposed async primary,
// cut off with client-2, keeps renewing its lease, its clock jumped ahead;
// the promoted one grants client-1 and crashes, and the monitor, reaching
// neither node, promotes the deposed one once the partition heals. Until
// then client-1's lease is judged by the clock of the primary that granted
// it and was lost, not by the deposed one's (which answered client-2 last,
// and, as node-1, was read before): taken over before the lease's true
// end, client-1's grant is forgotten while its lease ran; after, it had
// run out at its true end. Before, with node-1 deposed, its clock ended
// client-1's lease early and the grant was said forgotten after its lease
// had run out, when it had not. Swept over which node is deposed, the
// lease and when the partition heals.
func TestNoPrimaryAfterSplitJudgesByTheLostPrimary(t *testing.T) {
	const jump = 3500
	for _, deposed := range []string{"node-1", "node-2"} {
		promoted := map[string]string{"node-1": "node-2", "node-2": "node-1"}[deposed]
		for _, lease := range []int64{5000, 8000} {
			for _, before := range []bool{true, false} {
				base := int64(0)
				var faults []engine.Fault
				if deposed == "node-2" {
					base = 2000
					faults = []engine.Fault{{At: engine.Ms(200), Do: "crash", Target: "node-1"}, {At: engine.Ms(1500), Do: "restart", Target: "node-1"}}
				}
				// client-1 is granted when the promoted node's copy of
				// client-2's lease, last renewed at base+1s, runs out; the
				// deposed node is promoted a second after the partition
				// heals.
				grant := base + 1000 + lease
				end := grant + lease
				heal := end + 5000
				if before {
					heal = end - 1200
				}
				faults = append(faults,
					engine.Fault{At: engine.Ms(base + 1500), Do: "partition", Side: []string{deposed, "client-2"}, For: engine.Ms(heal - base - 1500)},
					engine.Fault{At: engine.Ms(grant + 1500), Do: "clock_jump", Target: deposed, By: engine.Ms(jump)},
					engine.Fault{At: engine.Ms(grant + 2000), Do: "crash", Target: promoted})
				sc := engine.Scenario{
					Title: "no primary after a split", Seed: 1, Fencing: true, Until: engine.Sec(60),
					Lock:    engine.Lock{Backend: engine.BackendAsyncReplica, Lease: engine.Ms(lease), Election: engine.Sec(1)},
					Storage: engine.Storage{Initial: 1000},
					Clients: []engine.Client{
						{Name: "client-1", Start: engine.Ms(base + 1000), RetryEvery: engine.Ms(500), Steps: []engine.Step{
							{Do: "acquire"}, {Do: "work", For: engine.Sec(30)}}},
						{Name: "client-2", Start: engine.Ms(base), RenewEvery: engine.Sec(1), Steps: []engine.Step{
							{Do: "acquire"}, {Do: "work", For: engine.Sec(30)}}},
					},
					Faults: faults,
				}
				res := mustRun(t, sc)
				name := fmt.Sprintf("%s deposed, lease %dms, healed at %dms", deposed, lease, heal)
				g1 := find(res, "client-1", engine.KindGranted)
				if len(g1) != 1 || g1[0].Node != promoted || g1[0].T != grant {
					t.Fatalf("%s: client-1 granted %v: not the run meant", name, g1)
				}
				var f []engine.Event
				for _, e := range find(res, "", engine.KindGrantForgotten) {
					if e.Holder == "client-1" {
						f = append(f, e)
					}
				}
				if len(f) != 1 || f[0].Actor != deposed || f[0].T != heal+1000 {
					t.Fatalf("%s: client-1's grant forgotten %v, want once by %s at %s", name, f, deposed, engine.FormatMS(heal+1000))
				}
				says := fmt.Sprintf("its lease had already run out at %s", engine.FormatMS(end))
				if f[0].Ended == before || !before && !strings.Contains(f[0].Reason, says) || before && strings.Contains(f[0].Reason, "run out") {
					t.Errorf("%s: client-1's grant forgotten at %s: %q (ended %v); its lease runs until %s", name, engine.FormatMS(f[0].T), f[0].Reason, f[0].Ended, engine.FormatMS(end))
				}
			}
		}
	}
}
