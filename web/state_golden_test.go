package web_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// The state fold exists twice: web/state.go, which the server folds for
// the live panels, and static/js/state.js, which the page folds for any
// moment of a run. Both are held to one golden file of events and the
// states after each: TestStateFoldMatchesGolden here, and
// TestE2EStateFoldMatchesGolden in the browser. After a deliberate change
// to the fold, regenerate it with
//
//	go test ./web -run TestStateFoldMatchesGolden -update
//
// and the browser test holds the page's fold to the new file.
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

// goldenScenarios are every preset as shipped, and a run that takes a
// client with its node in a partition and drifts a clock, so that every
// event the fold reads appears.
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
		engine.KindHealed, engine.KindGrantForgotten, engine.KindRead, engine.KindGranted, engine.KindRenewed, engine.KindReleased,
		engine.KindLeaseExpired, engine.KindWriteAccepted, engine.KindWriteRefused, engine.KindClaimWon, engine.KindClaimLost} {
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
	names := append(engine.PresetNames(), "partition-drift-restart", "paused-holder-fenced")
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

// TestE2EStateFoldMatchesGolden runs the page's fold (static/js/state.js)
// on the golden file's events and holds it to the same states.
func TestE2EStateFoldMatchesGolden(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground")
	src := run(b, ctx, chromedp.Evaluate[string](`document.querySelector('script[type=module]').src`))
	stateURL := strings.TrimSuffix(src, "playground.js") + "state.js"
	for _, c := range readGolden(t) {
		scJSON, _ := json.Marshal(c.Scenario)
		evJSON, _ := json.Marshal(c.Events)
		js := fmt.Sprintf(`import(%q).then(m => { const sc = %s, ev = %s; return JSON.stringify([m.newState(sc), ...ev.map((e, i) => m.stateAt(sc, ev.slice(0, i + 1), Infinity))]); })`, stateURL, scJSON, evJSON)
		var got []web.State
		if err := json.Unmarshal([]byte(run(b, ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))), &got); err != nil {
			t.Fatal(err)
		}
		for i := -1; i < len(c.Events); i++ {
			want, _ := json.Marshal(c.stateAfter(i))
			have, _ := json.Marshal(got[i+1])
			if !bytes.Equal(want, have) {
				t.Fatalf("%s after event %d: the page's fold gives\n%s\nthe golden file says\n%s", c.Name, i, have, want)
			}
		}
	}
}
