package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestAimsOfOneAimsFaultsTogether: an aim that placed several faults (a
// crash and its restart; Redlock's cut and clock jump; a lost disk's cut,
// crash and wipes) is one line in an example's aims, and when the
// shrinker dropped one of its faults the line says so instead of
// describing it (seed 5 on async-replica: "node-1 crashes ... and
// restarts 7.985s later" beside a scenario with no restart at all), and
// when it moved several, says which moved where (seed 5 on single: the
// same aim twice, once "strikes at 16.4s" and once "strikes at 18s").
func TestAimsOfOneAimsFaultsTogether(t *testing.T) {
	note := "node-1 crashes 36ms after it applied the grant of token 33 to client-1, inside the 500ms replication lag and restarts 7.985s later"
	crash := Fault{At: Ms(2336), Do: FaultCrash, Target: "node-1"}
	restart := Fault{At: Ms(10321), Do: FaultRestart, Target: "node-1"}
	gen := Scenario{Faults: []Fault{crash, restart}}
	notes := map[string]aimed{crash.key(): {"primary crash", note}, restart.key(): {"primary crash", note}}
	for _, tc := range []struct {
		name  string
		small []Fault
		want  string
	}{
		{"kept as generated", []Fault{crash, restart}, note},
		{"restart dropped", []Fault{crash}, note + " (as generated; in the example, node-1's restart is left out)"},
		{"both moved", []Fault{{At: Ms(2000), Do: FaultCrash, Target: "node-1"}, {At: Ms(8000), Do: FaultRestart, Target: "node-1"}},
			note + " (as generated; in the example, node-1's crash strikes at 2s; node-1's restart strikes at 8s)"},
		{"moved and dropped", []Fault{{At: Ms(2000), Do: FaultCrash, Target: "node-1"}},
			note + " (as generated; in the example, node-1's crash strikes at 2s; node-1's restart is left out)"},
	} {
		got := aimsOf(Scenario{Faults: tc.small}, gen, notes)
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: aims %q, want [%q]", tc.name, got, tc.want)
		}
	}
	// One fault alone keeps its words.
	pause := Fault{At: Ms(4468), Do: FaultPause, Target: "client-2", For: Ms(26771)}
	got := aimsOf(Scenario{Faults: []Fault{{At: Ms(4000), Do: FaultPause, Target: "client-2", For: Ms(13300)}}},
		Scenario{Faults: []Fault{pause}}, map[string]aimed{pause.key(): {aimNamePause, "client-2 pauses"}})
	if want := "client-2 pauses (as generated; the example's strikes at 4s, for 13.3s)"; len(got) != 1 || got[0] != want {
		t.Errorf("one fault: aims %q, want [%q]", got, want)
	}
}

// TestExamplesAimNoFaultTheyLack sweeps chaos examples on the backends
// whose aims place several faults at once: every generated fault of an
// aim the example still follows is either in the example or said to be
// left out, and each aim is one line.
func TestExamplesAimNoFaultTheyLack(t *testing.T) {
	multi, dropped := 0, 0
	for _, opt := range []ChaosOptions{
		{Runs: 60, Seed: 1, Backend: "single", Fencing: true, Examples: 5},
		{Runs: 60, Seed: 1, Backend: "async-replica", Fencing: false, Examples: 5},
		{Runs: 40, Seed: 1, Backend: "redlock", Nodes: 5, Examples: 5},
	} {
		rep, err := Chaos(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range rep.Examples {
			gen, notes, _, err := generate(context.Background(), ex.Seed, opt)
			if err != nil {
				t.Fatal(err)
			}
			used := make([]bool, len(gen.Faults))
			for _, f := range ex.Scenario.Faults {
				for i, g := range gen.Faults {
					if !used[i] && sameFault(f, g) {
						used[i] = true
						break
					}
				}
			}
			groups := map[string][]int{}
			for i, g := range gen.Faults {
				if a, ok := notes[g.key()]; ok {
					groups[a.note] = append(groups[a.note], i)
				}
			}
			for note, idx := range groups {
				kept := 0
				for _, i := range idx {
					if used[i] {
						kept++
					}
				}
				if kept == 0 || len(idx) == 1 {
					continue
				}
				multi++
				var lines []string
				for _, a := range ex.Aims {
					if strings.HasPrefix(a, note) {
						lines = append(lines, a)
					}
				}
				if len(lines) != 1 {
					t.Errorf("%s seed %d: aim %q is told %d times: %q", opt.Backend, ex.Seed, note, len(lines), lines)
					continue
				}
				for _, i := range idx {
					if used[i] {
						continue
					}
					dropped++
					if want := fmt.Sprintf("%s is left out", faultSubject(gen.Faults[i])); !strings.Contains(lines[0], want) {
						t.Errorf("%s seed %d: the example has no %s, yet its aim says %q", opt.Backend, ex.Seed, faultSubject(gen.Faults[i]), lines[0])
					}
				}
			}
		}
	}
	if multi == 0 || dropped == 0 {
		t.Fatalf("%d examples kept an aim of several faults, %d dropped one of them: the sweep proves nothing", multi, dropped)
	}
}
