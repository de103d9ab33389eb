package engine_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/leaselab/playground/engine"
)

// FuzzSetField changes a preset by a path and a value, anything at all,
// as --set path=value, a lesson's controls and a scenario answer do. It
// never panics; a refusal is a FieldError naming a field; a change it
// takes is a scenario that survives a JSON round trip unchanged, and
// setting the same path to the same value again changes nothing.
func FuzzSetField(f *testing.F) {
	for _, s := range [][2]string{
		{"lock.lease", "20s"}, {"fencing", "false"}, {"clients[1].renew_every", "1s"},
		{"clients[client-1].renew_every", "1s"}, {"clients[9].name", "x"}, {"clients[-1].name", "x"},
		{"clients[].name", "x"}, {"clients[client-1", "x"}, {"lock", `{"backend":"single"}`}, {"lock.nodes", "1e300"},
		{"faults[0].for", "-1s"}, {"", "x"}, {".", "x"}, {"until", "null"}, {"clients", "[]"}, {"storage.initial", "9.5"},
		{"lock.backend", `"redlock"`}, {"clients[0].steps[0].do", "fly"}, {"seed", "18446744073709551616"},
	} {
		f.Add("paused-holder", s[0], s[1])
	}
	f.Add("raft-failover", "faults[0].target", "node-9")
	f.Fuzz(func(t *testing.T, preset, path, value string) {
		p, err := engine.LoadPreset(preset)
		if err != nil {
			p, _ = engine.LoadPreset("paused-holder")
		}
		sc, err := engine.SetField(p.Scenario, path, value)
		if err != nil {
			var fe *engine.FieldError
			if !errors.As(err, &fe) || fe.Message == "" {
				t.Fatalf("set %q=%q: %v (%T) is not a field error", path, value, err, err)
			}
			return
		}
		a, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := engine.DecodeScenario(a)
		if err != nil {
			t.Fatalf("set %q=%q gives a scenario that does not decode: %v\n%s", path, value, err, a)
		}
		if b, _ := json.Marshal(back); string(b) != string(a) {
			t.Fatalf("set %q=%q: the round trip changed the scenario", path, value)
		}
		again, err := engine.SetField(sc, path, value)
		if err != nil {
			t.Fatalf("set %q=%q twice: %v", path, value, err)
		}
		if b, _ := json.Marshal(again); string(b) != string(a) {
			t.Fatalf("set %q=%q twice changed the scenario again", path, value)
		}
		_, _ = engine.Prepare(sc) // any result, never a panic
	})
}
