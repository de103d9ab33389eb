package web

import "github.com/leaselab/playground/engine"

// playgroundJSON is the data the playground's script starts from.
func playgroundJSON(d PlaygroundData) any {
	type preset struct {
		Name     string          `json:"name"`
		Title    string          `json:"title"`
		Watch    string          `json:"watch"`
		Scenario engine.Scenario `json:"scenario"`
	}
	ps := make([]preset, len(d.Presets))
	for i, p := range d.Presets {
		ps[i] = preset{p.Name, p.Title, p.Watch, p.Scenario}
	}
	return map[string]any{
		"preset":   d.Preset,
		"scenario": d.Scenario,
		"speed":    d.Speed,
		"autorun":  d.AutoRun,
		"presets":  ps,
		"catalog":  d.Catalog,
		"limits": map[string]any{
			"max_clients": engine.MaxClients, "max_faults": engine.MaxFaults, "max_until_ms": engine.MaxUntil,
		},
	}
}
