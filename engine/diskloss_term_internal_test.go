package engine

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
)

// TestALostDiskNamesTheRealTerm: on Raft and ZooKeeper groups of 3 and 5
// with lost disks, every leader event of a chaos run names the node the real
// hashicorp/raft group elected, in the term it really leads in. A lost
// disk takes a node's term with its log: a group whose only nodes that
// knew the latest term are down, cut off or wiped really elects its next
// leader in a term it has used before. Before, the timeline counted one
// more term per election whatever the nodes remembered, and made the real
// group campaign again until it reached that count (seed 159 on 5 nodes:
// "node-1 is elected leader in term 4", a term no voter had heard of;
// real Raft elects it in term 3, node-2's, as its own timers would).
func TestALostDiskNamesTheRealTerm(t *testing.T) {
	const runs = 200
	elections, reused := 0, 0
	for _, opt := range []ChaosOptions{{Backend: BackendRaft, Nodes: 3}, {Backend: BackendRaft, Nodes: 5}, {Backend: BackendZooKeeper, Nodes: 3}, {Backend: BackendZooKeeper, Nodes: 5}} {
		opt.Fencing, opt.LoseDisk = true, true
		for seed := int64(100); seed < int64(100+runs); seed++ {
			sc, err := GenerateScenario(context.Background(), seed, opt)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s on %d nodes, seed %d", opt.Backend, opt.Nodes, seed)
			probe := &raftProbe{}
			res := probedRun(t, sc, probe, nil)
			for _, p := range probe.problems {
				t.Errorf("%s: %s", name, p)
			}
			var leaders []Event
			for _, e := range res.Events {
				if e.Kind == KindLeader {
					leaders = append(leaders, e)
				}
			}
			if len(leaders) != len(probe.terms) {
				t.Fatalf("%s: %d leader events, %d elections seen by the group", name, len(leaders), len(probe.terms))
			}
			seen := map[int64]bool{}
			for i, e := range leaders {
				sim, real := probe.terms[i][0], probe.terms[i][1]
				if e.Term != sim || sim != real || e.Node != probe.leaders[i][1] {
					t.Errorf("%s: at %s the timeline says %s is elected in term %d; the real group has %s leading in term %d (detour: %v)",
						name, FormatMS(e.T), e.Node, e.Term, probe.leaders[i][1], real, probe.detoured[i])
				}
				if seen[e.Term] {
					reused++
					if !strings.Contains(e.Message, fmt.Sprintf("led in term %d before: a lost disk took that term", e.Term)) {
						t.Errorf("%s: at %s %s is elected in a term used before, and its event does not say so: %q", name, FormatMS(e.T), e.Node, e.Message)
					}
				}
				seen[e.Term] = true
				elections++
			}
		}
	}
	if reused == 0 {
		t.Errorf("none of %d elections was in a term used before: the sweep proves nothing", elections)
	}
	t.Logf("%d elections, %d in a term used before", elections, reused)
}

// TestALaterTermDeposesTheLeader: a node that heard of a later term than
// the leader's, back in the leader's reach, refuses its entries, and the
// leader steps down. node-1 is cut off while node-2 leads in term 3 and
// node-3 in term 4 (node-2, restarted meanwhile, hears of it), then
// node-2 and node-3 crash and node-4 and node-5 lose their disks: node-1
// is elected by them in term 3 again, the term after the last one its
// voters know. When node-2 comes back with term 4, node-1 steps down, and
// is elected in term 5.
var ledBefore = regexp.MustCompile(`node-\d led in term \d+ before`)

func TestALaterTermDeposesTheLeader(t *testing.T) {
	sc, err := DecodeScenario([]byte(`{"title":"a later term","seed":1,"fencing":true,"until":"14s",
		"lock":{"backend":"raft","nodes":5,"lease":"3s","election":"1s"},
		"storage":{"key":"account-42","initial":0},
		"clients":[{"name":"client-1","retry_every":"1s","renew_every":"1s","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"12s"},{"do":"write","add":1},{"do":"release"}]}],
		"faults":[{"at":"1s","do":"partition","side":["node-1"],"for":"5500ms"},
		{"at":"3s","do":"crash","target":"node-2"},{"at":"4500ms","do":"restart","target":"node-2"},{"at":"5500ms","do":"crash","target":"node-2"},
		{"at":"6s","do":"crash","target":"node-3"},{"at":"6s","do":"lose_disk","target":"node-4"},{"at":"6s","do":"lose_disk","target":"node-5"},
		{"at":"9s","do":"restart","target":"node-2"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	probe := &raftProbe{}
	res := probedRun(t, sc, probe, nil)
	for _, p := range probe.problems {
		t.Error(p)
	}
	var got []string
	for _, e := range res.Events {
		switch e.Kind {
		case KindLeader:
			l := fmt.Sprintf("%s %s t%d", FormatMS(e.T), e.Node, e.Term)
			if m := ledBefore.FindString(e.Message); m != "" {
				l += " (" + m + ")"
			}
			got = append(got, l)
		case KindSteppedDown:
			got = append(got, fmt.Sprintf("%s %s %s", FormatMS(e.T), e.Node, e.Message))
		}
	}
	want := []string{"0s node-1 t2",
		"1s node-1 is cut off from the majority: it steps down, and the clients on its side get no answer",
		"2s node-2 t3", "4s node-3 t4", "7.5s node-1 t3 (node-2 led in term 3 before)",
		"9s node-1 hears of term 4 from node-2, later than its own term 3: it steps down, and the group elects again",
		"10s node-1 t5"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("leaders and step-downs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, tt := range probe.terms {
		if tt[0] != tt[1] || probe.leaders[i][0] != probe.leaders[i][1] {
			t.Errorf("election %d: the timeline says %s in term %d; the real group has %s leading in term %d (detour: %v)",
				i, probe.leaders[i][0], tt[0], probe.leaders[i][1], tt[1], probe.detoured[i])
		}
	}
}

// TestATermWithTwoLeadersSaysWhatTheLogsKeep: node-2 leads in term 3
// while node-1 and node-5 are cut off, and grants client-1 the lock; then
// node-2 crashes and node-3 loses its disk. node-1 is elected in term 3
// again, by node-3 and node-5, and node-4 still holds node-2's grant in
// term 3: Raft compares entries by index and term, so node-1's entries
// at those indexes do not replace it, and node-4's log really differs
// from node-1's there. The leader event says so.
func TestATermWithTwoLeadersSaysWhatTheLogsKeep(t *testing.T) {
	sc, err := DecodeScenario([]byte(`{"title":"two leaders in a term","seed":1,"until":"8s",
		"lock":{"backend":"raft","nodes":5,"lease":"10s","election":"500ms"},
		"storage":{"key":"account-42","initial":0},
		"clients":[{"name":"client-1","start":"2s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1}]},
		{"name":"client-2","start":"5s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1},{"do":"release"}]}],
		"faults":[{"at":"1s","do":"partition","side":["node-1","node-5"],"for":"3s"},
		{"at":"3s","do":"crash","target":"node-2"},{"at":"3s","do":"lose_disk","target":"node-3"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	probe := &raftProbe{atClose: func(s *raftService) {
		lead, kept := s.nodes[0], s.nodes[3]
		last, _ := kept.log.LastIndex()
		for i := uint64(1); i <= last; i++ {
			var a, b raft.Log
			if kept.log.GetLog(i, &a) == nil && lead.log.GetLog(i, &b) == nil && a.Term == 3 && b.Term == 3 && !bytes.Equal(a.Data, b.Data) {
				differ++
			}
		}
	}}
	res := probedRun(t, sc, probe, nil)
	for _, p := range probe.problems {
		t.Error(p)
	}
	var leaders []Event
	for _, e := range res.Events {
		if e.Kind == KindLeader {
			leaders = append(leaders, e)
		}
	}
	if len(leaders) != 3 {
		t.Fatalf("leader events %+v, want 3", leaders)
	}
	e := leaders[2]
	want := "node-2 led in term 3 before: a lost disk took that term from the voters, and the term has two leaders; node-4 keeps node-2's commands of term 3"
	if e.Node != "node-1" || e.Term != 3 || !strings.Contains(e.Message, want) {
		t.Errorf("%s in term %d: %q, want node-1 in term 3 saying %q", e.Node, e.Term, e.Message, want)
	}
	for i, tt := range probe.terms {
		if tt[0] != tt[1] || probe.leaders[i][0] != probe.leaders[i][1] {
			t.Errorf("election %d: the timeline says %s in term %d; the real group has %s leading in term %d", i, probe.leaders[i][0], tt[0], probe.leaders[i][1], tt[1])
		}
	}
	if differ == 0 {
		t.Error("node-4's log holds the same commands as node-1's in term 3: the scenario shows no two leaders' entries")
	}
}
