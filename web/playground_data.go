package web

// playgroundJSON is the data the playground's script starts from: the
// scenario on show and the catalog. The other presets' scenarios are
// fetched from /api/presets when one is picked, which keeps the page light.
func playgroundJSON(d PlaygroundData) any {
	return map[string]any{
		"preset":   d.Preset,
		"scenario": d.Scenario,
		"autorun":  d.AutoRun,
		"catalog":  d.Catalog,
	}
}
