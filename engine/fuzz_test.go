package engine_test

import (
	"testing"

	"github.com/leaselab/playground/engine"
)

// FuzzParseScenario feeds arbitrary bytes to the parser and validator. It
// must never panic; whatever it accepts must be valid again after a round
// trip through JSON, with the same defaults.
func FuzzParseScenario(f *testing.F) {
	for _, p := range engine.Presets() {
		f.Add([]byte(jsonOf(f, p.Scenario)))
	}
	f.Add([]byte("clients:\n  - name: a\n    steps: [{do: acquire}]\n"))
	f.Add([]byte(`{"until":"1.5ms"}`))
	f.Add([]byte(`{"clients":[{"name":"a","steps":[{"do":"write","add":1e300}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := engine.ParseScenario(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		again, err := engine.ParseScenario([]byte(jsonOf(t, sc)))
		if err != nil {
			t.Fatalf("accepted scenario fails after a round trip: %v\n%s", err, jsonOf(t, sc))
		}
		if jsonOf(t, again) != jsonOf(t, sc) {
			t.Fatalf("round trip changed the scenario")
		}
	})
}
