package web

// playgroundJSON is the data the playground's script starts from: the
// scenario on show and the catalog. The other presets' scenarios are
// fetched from /api/presets when one is picked, which keeps the page light.
// The scenario's question and watch text are in the page's markup, where
// the script reads them, so they are not sent twice.
func playgroundJSON(d PlaygroundData) any {
	sc := d.Scenario
	sc.Question, sc.Watch = "", ""
	return map[string]any{
		"preset":   d.Preset,
		"scenario": sc,
		"autorun":  d.AutoRun,
		"from":     d.From,
		"catalog":  d.Catalog,
		// The longest scenario part (s) a share link may have: the page
		// says so rather than give a link the server will refuse.
		"max_share": maxShareParam,
	}
}
