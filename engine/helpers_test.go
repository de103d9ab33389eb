package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/leaselab/playground/engine"
)

// mustPreset loads a preset with fencing set and fields overridden
// (path, value pairs).
func mustPreset(tb testing.TB, name string, fencing bool, sets ...string) engine.Scenario {
	tb.Helper()
	p, err := engine.LoadPreset(name)
	if err != nil {
		tb.Fatalf("preset %s: %v", name, err)
	}
	sc := p.Scenario
	sc.Fencing = fencing
	for i := 0; i+1 < len(sets); i += 2 {
		if sc, err = engine.SetField(sc, sets[i], sets[i+1]); err != nil {
			tb.Fatalf("preset %s: set %s=%s: %v", name, sets[i], sets[i+1], err)
		}
	}
	return sc
}

// mustPrepare validates a scenario and fails the test on error.
func mustPrepare(tb testing.TB, sc engine.Scenario) *engine.Prepared {
	tb.Helper()
	p, err := engine.Prepare(sc)
	if err != nil {
		tb.Fatalf("prepare %s (seed %d): %v", sc.Title, sc.Seed, err)
	}
	return p
}

// mustRun executes a scenario and fails the test on error.
func mustRun(tb testing.TB, sc engine.Scenario) *engine.Result {
	tb.Helper()
	res, err := engine.Execute(context.Background(), mustPrepare(tb, sc))
	if err != nil {
		tb.Fatalf("run %s (seed %d): %v", sc.Title, sc.Seed, err)
	}
	return res
}

// find returns the events matching actor and kind ("" matches any).
func find(res *engine.Result, actor, kind string) []engine.Event {
	var out []engine.Event
	for _, e := range res.Events {
		if (actor == "" || e.Actor == actor) && (kind == "" || e.Kind == kind) {
			out = append(out, e)
		}
	}
	return out
}

// writes returns the storage's verdicts on a client's writes.
func writes(res *engine.Result, client string) []engine.Event {
	var out []engine.Event
	for _, e := range res.Events {
		if e.Actor == "storage" && e.Client == client && (e.Kind == engine.KindWriteAccepted || e.Kind == engine.KindWriteRefused) {
			out = append(out, e)
		}
	}
	return out
}

func jsonOf(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
