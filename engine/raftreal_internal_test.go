package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// raftScenarios are the Raft presets, fenced, and Raft failures on top of
// raft-failover: a cut-off leader, a crashed leader and follower with a
// restart, and a majority lost and regained.
func raftScenarios(t *testing.T) map[string]Scenario {
	t.Helper()
	out := map[string]Scenario{}
	for _, name := range PresetNames() {
		p, err := LoadPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := p.Prepared().Scenario()
		if slices.ContainsFunc(sc.Faults, func(f Fault) bool { return f.Do == FaultLoseDisk }) {
			// A lost disk breaks what these tests hold the group to: the
			// leader's log no longer has every answered command.
			continue
		}
		for i := range sc.Clients {
			for j := range sc.Clients[i].Steps {
				sc.Clients[i].Steps[j].Read = "" // a lease or follower read is answered off the log
			}
		}
		if sc.Lock.Backend == BackendRaft && UsesLock(&sc) {
			sc.Fencing = true
			out[name] = sc
		}
	}
	base := out["raft-failover"]
	with := func(faults ...Fault) Scenario {
		sc := base.clone()
		sc.Faults = faults
		return sc
	}
	out["partitioned-leader"] = with(Fault{At: Ms(200), Do: FaultPartition, Target: TargetLeader, For: Sec(3)})
	out["crash-and-restart"] = with(
		Fault{At: Ms(100), Do: FaultCrash, Target: "node-3"},
		Fault{At: Ms(200), Do: FaultCrash, Target: TargetLeader},
		Fault{At: Sec(2), Do: FaultRestart, Target: "node-3"},
	)
	out["majority-lost"] = with(
		Fault{At: Ms(2500), Do: FaultCrash, Target: "node-2"},
		Fault{At: Ms(2600), Do: FaultCrash, Target: "node-3"},
		Fault{At: Sec(4), Do: FaultRestart, Target: "node-2"},
	)
	// A deposed leader heals while the next one, cut off too, still
	// believes it leads. node-1 missed the entry that opened node-2's
	// term 3, which node-2 and node-3 stored, so node-1 cannot win: the
	// lowest-numbered node that can is node-2, in term 4.
	out["two-stale-leaders"] = with(
		Fault{At: Ms(300), Do: FaultPartition, Target: "node-1", For: Sec(4)},
		Fault{At: Ms(1500), Do: FaultPartition, Target: "node-2", For: Ms(3500)},
	)
	// node-1 is cut off while node-2 leads term 3 and then crashes: when
	// node-1 heals, it and node-3 make a majority, but node-3 will not
	// vote for node-1, whose log lacks term 3. Only node-3 can win.
	out["stale-log-heals"] = with(
		Fault{At: Ms(300), Do: FaultPartition, Target: "node-1", For: Sec(3)},
		Fault{At: Ms(1500), Do: FaultCrash, Target: "node-2"},
	)
	// Ambiguous commits (ambiguous.go): node-1 appends client-1's acquire
	// at 50 ms and crashes before it commits, with the copy only in its own
	// log (90 ms), or on node-3 alone while node-2 is cut off (120 ms): the
	// real group must lose the first and commit the second under node-3.
	amb := out["ambiguous-commit"]
	lost := amb.clone()
	lost.Faults = []Fault{{At: Ms(90), Do: FaultCrash, Target: TargetLeader}}
	out["ambiguous-entry-lost"] = lost
	one := amb.clone()
	one.Faults = append(one.Faults, Fault{At: Ms(0), Do: FaultPartition, Target: "node-2", For: Ms(500)})
	out["ambiguous-one-follower"] = one
	five := with(Fault{At: Ms(300), Do: FaultCrash, Target: TargetLeader}, Fault{At: Sec(3), Do: FaultCrash, Target: TargetLeader})
	five.Lock.Nodes = 5
	out["five-nodes-two-failovers"] = five
	return out
}

// probedRun runs a scenario with a probe on its real Raft group.
func probedRun(t *testing.T, sc Scenario, probe *raftProbe, pool *RaftPool) *Result {
	t.Helper()
	p, err := Prepare(sc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(context.Background(), p, Options{probe: probe, Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil {
		t.Fatalf("%s: %v", sc.Title, err)
	}
	return res
}

type reqKey struct {
	client string
	id     uint64
}

// distinct keeps the first command of each (client, request id): a
// command sent again after a hiccup carries the same id and is applied once.
func distinct(cmds []Command) map[reqKey]Command {
	out := map[reqKey]Command{}
	for _, c := range cmds {
		k := reqKey{c.Client, c.ReqID}
		if _, ok := out[k]; !ok {
			out[k] = c
		}
	}
	return out
}

// TestRaftIsReal watches the real hashicorp/raft group under every Raft
// scenario: the operations the group answered are exactly the command
// entries in its leader's log, no node but the simulation's leader ever
// believes it leads after a step of the simulation, the simulation's leader
// really leads at most steps, and at every election the leader event
// names the node that really leads, in the term it really leads in.
func TestRaftIsReal(t *testing.T) {
	var mu sync.Mutex
	elected := 0 // scenarios whose group held an election after the boot
	t.Cleanup(func() {
		// The checks at every election prove little if few scenarios
		// hold one: the faults must have disturbed most leaders.
		if !t.Failed() && elected < 6 {
			t.Errorf("only %d scenarios held an election after the boot, want at least 6", elected)
		}
	})
	for name, sc := range raftScenarios(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			probe := &raftProbe{}
			res := probedRun(t, sc, probe, nil)
			for _, p := range probe.problems {
				t.Error(p)
			}
			if probe.steps == 0 || probe.led == 0 {
				t.Errorf("the simulation's leader never led for real (%d of %d steps)", probe.led, probe.steps)
			}
			answered, logged := distinct(probe.answered), distinct(probe.log)
			if len(answered) == 0 {
				t.Fatal("no operation was answered")
			}
			if len(answered) != len(logged) {
				t.Errorf("%d operations answered, %d distinct commands in %s's log", len(answered), len(logged), probe.logFrom)
			}
			for k, c := range answered {
				if l, ok := logged[k]; !ok || l.Op != c.Op || l.Lock != c.Lock || l.Token != c.Token {
					t.Errorf("answered %v %+v, but %s's log has %+v (present %v)", c.Op, k, probe.logFrom, l, ok)
				}
			}
			// Answers the clients saw are a subset of what was answered.
			answers := 0
			for _, e := range res.Events {
				switch e.Kind {
				case KindGranted, KindAcquireRefused, KindRenewed, KindRenewRefused, KindReleased, KindReleaseRefused, KindCheckOK, KindCheckFailed:
					answers++
				}
			}
			if answers == 0 || answers > len(answered) {
				t.Errorf("%d answers in the timeline, %d operations committed", answers, len(answered))
			}
			var leaderTerms []int64
			for _, e := range res.Events {
				if e.Kind == KindLeader {
					leaderTerms = append(leaderTerms, e.Term)
				}
			}
			var leaderNodes []string
			for _, e := range res.Events {
				if e.Kind == KindLeader {
					leaderNodes = append(leaderNodes, e.Node)
				}
			}
			if len(leaderTerms) != len(probe.terms) || len(leaderNodes) != len(probe.leaders) {
				t.Fatalf("%d leader events, %d elections seen by the group", len(leaderTerms), len(probe.terms))
			}
			for i, tt := range probe.terms {
				sim, real := tt[0], tt[1]
				if leaderTerms[i] != sim || sim != bootTerm+int64(i) {
					t.Errorf("leader event %d has term %d; the simulation's term is %d, want %d", i, leaderTerms[i], sim, bootTerm+int64(i))
				}
				// The real group holds exactly the election the simulation
				// holds, won by the node the event names, in the term the
				// event says. Only a detour the wall clock forced (a busy
				// machine: replication that lagged, a wait with no change;
				// never a node a majority would refuse) may cost the real
				// group extra terms.
				switch {
				case real < sim:
					t.Errorf("election %d: the real leader's term %d is below the timeline's %d: the group did not hold that election", i, real, sim)
				case real != sim && !probe.detoured[i]:
					t.Errorf("election %d: the timeline says term %d, the real leader is in term %d", i, sim, real)
				case real != sim:
					t.Logf("election %d: the busy machine cost the real group %d extra term(s)", i, real-sim)
				}
				if sim, real := probe.leaders[i][0], probe.leaders[i][1]; leaderNodes[i] != sim || real != sim {
					t.Errorf("election %d: the timeline names %s, the simulation %s, and %q really leads", i, leaderNodes[i], sim, real)
				}
			}
			if len(probe.terms) > 1 {
				mu.Lock()
				elected++
				mu.Unlock()
			}
			t.Logf("%d operations, %d steps (the simulation's leader led at %d), %d elections",
				len(answered), probe.steps, probe.led, len(probe.terms))
		})
	}
}

// TestRaftHiccupsAreWaitedOut makes the real group elect another leader
// behind the simulation's back every few steps, as Raft's own timers do
// when a starved machine delays heartbeats. Every run must complete with
// the same timeline as an undisturbed one, and the group must still have
// committed each answered operation once.
func TestRaftHiccupsAreWaitedOut(t *testing.T) {
	scenarios := raftScenarios(t)
	var mu sync.Mutex
	disturbed := 0
	t.Cleanup(func() {
		// A test whose disturbances never landed proves nothing: most
		// scenarios must have been disturbed.
		if !t.Failed() && 2*disturbed < len(scenarios) {
			t.Errorf("only %d of %d scenarios were disturbed", disturbed, len(scenarios))
		}
	})
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := jsonText(t, probedRun(t, sc, &raftProbe{}, nil))
			probe := &raftProbe{disturbEvery: 3}
			got := jsonText(t, probedRun(t, sc, probe, nil))
			if probe.disturbed == 0 {
				t.Skip("the scenario has too few steps with a leader to disturb")
			}
			mu.Lock()
			disturbed++
			mu.Unlock()
			if got != want {
				t.Fatalf("a disturbed run differs from an undisturbed one:\n%s\n---\n%s", got, want)
			}
			answered, logged := distinct(probe.answered), distinct(probe.log)
			if len(answered) != len(logged) {
				t.Errorf("%d operations answered, %d distinct commands in the log", len(answered), len(logged))
			}
			raised := slices.ContainsFunc(probe.terms, func(tt [2]int64) bool { return tt[1] > tt[0] })
			t.Logf("%d disturbances, real terms beyond the simulation's: %v", probe.disturbed, raised)
		})
	}
}

// TestRaftADisturbanceAtAnyStepIsWaitedOut sweeps one real election
// behind the simulation's back over every step of the ambiguous commits,
// where the leader's links are held with an entry only some nodes have:
// wherever it falls (before the copies leave, between them and the
// crash, after it), the timeline must be the undisturbed one.
func TestRaftADisturbanceAtAnyStepIsWaitedOut(t *testing.T) {
	scenarios := raftScenarios(t)
	for _, name := range []string{"ambiguous-commit", "ambiguous-entry-lost", "ambiguous-one-follower"} {
		sc, ok := scenarios[name]
		if !ok {
			t.Fatalf("no scenario %s", name)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			undisturbed := &raftProbe{}
			want := jsonText(t, probedRun(t, sc, undisturbed, nil))
			disturbed := 0
			for step := 1; step <= undisturbed.steps; step++ {
				probe := &raftProbe{disturbAt: step}
				got := jsonText(t, probedRun(t, sc, probe, nil))
				disturbed += probe.disturbed
				if got != want {
					t.Fatalf("disturbed after step %d of %d, the run differs from an undisturbed one:\n%s\n---\n%s", step, undisturbed.steps, got, want)
				}
			}
			// Steps with no leader (after the crash, before the election)
			// have nobody to depose; most steps have one.
			if 2*disturbed < undisturbed.steps {
				t.Errorf("only %d of %d steps were disturbed", disturbed, undisturbed.steps)
			}
			t.Logf("%d steps, %d disturbed", undisturbed.steps, disturbed)
		})
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNodesReportsTheRealGroup reads the observed node state of a paused
// run from another goroutine: node-1 leads in term 2 before the first
// step with the bootstrap and its election in its log, the others follow
// in that term with the same log (a new group waits for them), and after
// the run the nodes are as they were at its last step.
func TestNodesReportsTheRealGroup(t *testing.T) {
	p, _ := LoadPreset("raft-failover")
	r, err := Start(t.Context(), p.Prepared(), Options{Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	var nodes []NodeStatus
	done := make(chan struct{})
	go func() { defer close(done); nodes = r.Nodes() }()
	<-done
	if len(nodes) != 3 {
		t.Fatalf("%d nodes", len(nodes))
	}
	for i, n := range nodes {
		if n.Name != fmt.Sprintf("node-%d", i+1) {
			t.Errorf("node %d is named %q", i+1, n.Name)
		}
		if i == 0 && (n.Role != "leader" || n.Term != bootTerm || n.LastLogIndex < 2 || n.CommitIndex < 2) {
			t.Errorf("%+v, want the leader in term %d with its election committed", n, bootTerm)
		}
		if i > 0 && (n.Role != "follower" || n.Term != bootTerm || n.LastLogIndex != nodes[0].LastLogIndex) {
			t.Errorf("%+v, want a follower in term %d holding node-1's log", n, bootTerm)
		}
	}
	r.Resume()
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	// After the run, the nodes as they were at its last step: node-1
	// crashed, node-2 elected after it, node-3 following.
	after := r.Nodes()
	want := []string{"shutdown", "leader", "follower"}
	for i, n := range after {
		if n.Role != want[i] || (i == 1 && n.Term <= bootTerm) {
			t.Errorf("after the run %s is %q in term %d, want %q (node-2 in a later term than %d)", n.Name, n.Role, n.Term, want[i], bootTerm)
		}
	}
	if len(after) != 3 {
		t.Errorf("after the run, %d nodes", len(after))
	}
	single, _ := LoadPreset("lock-server-down")
	res, err := Start(t.Context(), single.Prepared(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Nodes(); n != nil {
		t.Errorf("a single server has no Raft nodes, got %+v", n)
	}
	res.Wait()
}
