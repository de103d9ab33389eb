package web_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// The state fold exists once, in web/state.go: the server sends its
// states (Fold) and the page draws them. It is held to a golden file of
// events and the states after each: TestStateFoldMatchesGolden folds one
// event at a time, TestFoldGivesTheGoldenStates checks what is sent.
// After a deliberate change to the fold, regenerate it with
//
//	go test ./web -run TestStateFoldMatchesGolden -update
var update = flag.Bool("update", false, "rewrite web/testdata/state-golden.json from the engine's runs")

const goldenFile = "testdata/state-golden.json"

// goldenCase is one run: the scenario with its defaults filled in, its
// events, and the states the fold goes through: each with the index of
// the event after which it holds (-1: before the first).
type goldenCase struct {
	Name     string          `json:"name"`
	Scenario engine.Scenario `json:"scenario"`
	Events   []engine.Event  `json:"events"`
	States   []goldenState   `json:"states"`
}

type goldenState struct {
	After int       `json:"after"`
	State web.State `json:"state"`
}

// stateAfter is the golden state after event i.
func (c goldenCase) stateAfter(i int) web.State {
	var s web.State
	for _, g := range c.States {
		if g.After > i {
			break
		}
		s = g.State
	}
	return s
}

// goldenScenarios are every preset as shipped, a run that takes a client
// with its node in a partition and drifts a clock, and one whose server
// restarts from a save older than a release, so that every event the fold
// reads appears.
func goldenScenarios(t *testing.T) map[string]engine.Scenario {
	out := map[string]engine.Scenario{}
	for _, p := range engine.Presets() {
		out[p.Name] = p.Scenario
	}
	p, _ := engine.LoadPreset("paused-holder")
	sc := p.Scenario
	sc.Faults = []engine.Fault{
		{At: engine.Ms(2000), Do: engine.FaultPartition, Side: []string{"node-1", "client-1"}, For: engine.Ms(4000)},
		{At: engine.Ms(3000), Do: engine.FaultClockDrift, Target: "node-2", Rate: 2, For: engine.Ms(2000)},
		{At: engine.Ms(9000), Do: engine.FaultCrash, Target: "node-2"},
		{At: engine.Ms(11000), Do: engine.FaultRestart, Target: "node-2"},
	}
	out["partition-drift-restart"] = sc
	p.Scenario.Fencing = true
	out["paused-holder-fenced"] = p.Scenario
	// The server restarts from a save taken before client-2's release.
	r, _ := engine.LoadPreset("restart-forgets")
	r.Scenario.Faults = []engine.Fault{
		{At: engine.Ms(6500), Do: engine.FaultCrash, Target: "node-1"},
		{At: engine.Ms(6700), Do: engine.FaultRestart, Target: "node-1"},
	}
	out["restart-forgets-release"] = r.Scenario
	// node-1 applies client-1's renewal and crashes before its answer
	// goes out: the service holds the lease until 4.25 s, not 3.05 s.
	a, _ := engine.LoadPreset("ambiguous-commit")
	a.Scenario.Lock.Lease = engine.Ms(3000)
	a.Scenario.Clients[0].RenewEvery = engine.Ms(1000)
	a.Scenario.Clients[0].Steps[2].For = engine.Ms(5000)
	a.Scenario.Clients[1].RetryEvery = engine.Ms(500)
	a.Scenario.Faults = []engine.Fault{{At: engine.Ms(1380), Do: engine.FaultCrash, Target: "node-1"}}
	out["renew-answer-lost"] = a.Scenario
	return out
}

func TestStateFoldMatchesGolden(t *testing.T) {
	if *update {
		writeGolden(t)
	}
	cases := readGolden(t)
	kinds := map[string]bool{}
	for _, c := range cases {
		s := web.NewState(c.Scenario)
		for i, e := range c.Events {
			kinds[e.Kind] = true
			s.Apply(e)
			got, _ := json.Marshal(s)
			want, _ := json.Marshal(c.stateAfter(i))
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, after event %d (%s %s): the fold gives\n%s\nthe golden file says\n%s", c.Name, i, e.Actor, e.Kind, got, want)
			}
		}
	}
	// The file must exercise every event the fold reads.
	for _, k := range []string{engine.KindLeader, engine.KindNodeCrashed, engine.KindPartitioned, engine.KindNodeRestarted,
		engine.KindHealed, engine.KindGrantForgotten, engine.KindReleaseForgotten, engine.KindRead, engine.KindGranted, engine.KindRenewed, engine.KindReleased,
		engine.KindLeaseExpired, engine.KindWriteAccepted, engine.KindWriteRefused, engine.KindClaimWon, engine.KindClaimLost,
		engine.KindAnswerLost} {
		if !kinds[k] {
			t.Errorf("the golden file has no %s event: add a run that has one and regenerate it", k)
		}
	}
}

func readGolden(t testing.TB) []goldenCase {
	t.Helper()
	data, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (regenerate with -update)", err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func writeGolden(t *testing.T) {
	t.Helper()
	scs := goldenScenarios(t)
	var cases []goldenCase
	names := append(engine.PresetNames(), "partition-drift-restart", "paused-holder-fenced", "restart-forgets-release", "renew-answer-lost")
	for _, name := range names {
		p, err := engine.Prepare(scs[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := engine.Execute(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		c := goldenCase{Name: name, Scenario: p.Scenario(), Events: res.Events}
		s := web.NewState(c.Scenario)
		last := ""
		record := func(i int) {
			// A deep copy: the fold keeps its node list.
			b, _ := json.Marshal(s)
			if string(b) == last {
				return
			}
			last = string(b)
			var snap web.State
			_ = json.Unmarshal(b, &snap)
			c.States = append(c.States, goldenState{After: i, State: snap})
		}
		record(-1)
		for i, e := range res.Events {
			s.Apply(e)
			record(i)
		}
		cases = append(cases, c)
	}
	data, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenFile, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFoldGivesTheGoldenStates holds Fold, what the server sends a page
// (the live run's state messages, /api/run's states), to the golden file:
// the state in force after each event is the golden one, but for the time
// it took effect.
func TestFoldGivesTheGoldenStates(t *testing.T) {
	for _, c := range readGolden(t) {
		folds := web.Fold(c.Scenario, c.Events)
		if len(folds) == 0 || folds[0].After != -1 {
			t.Fatalf("%s: the fold does not start before the first event: %+v", c.Name, folds)
		}
		k := 0
		for i := -1; i < len(c.Events); i++ {
			for k+1 < len(folds) && folds[k+1].After <= i {
				k++
			}
			got, want := folds[k].State, c.stateAfter(i)
			got.T, want.T = 0, 0
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if !bytes.Equal(g, w) {
				t.Fatalf("%s after event %d: Fold gives\n%s\nthe golden file says\n%s", c.Name, i, g, w)
			}
		}
		if len(folds) > len(c.Events)+1 {
			t.Errorf("%s: %d states for %d events: the fold sends states that change nothing", c.Name, len(folds), len(c.Events))
		}
	}
}
