package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/engine"
)

// defaultPreset is what /playground opens with: the failure the whole
// playground is about.
const defaultPreset = "paused-holder"

// defaultSpeed lets a 20 s story play in about 4 s.
const defaultSpeed = 5

func (s *Server) home(c echo.Context) error {
	return s.render(c, http.StatusOK, HomePage(s.page("Home"), engine.Presets(), s.cfg.Lessons.Lessons()))
}

// PlaygroundData is everything the playground page starts from.
type PlaygroundData struct {
	Preset   string // the chosen preset, "" for a shared scenario
	Scenario engine.Scenario
	Speed    float64
	AutoRun  bool
	// From is the preset a shared scenario was changed from, and Changes
	// what was changed, in words ("fencing: true (the preset has false)").
	From    string
	Changes []string
	Error   string // bad query input, shown above the controls
	Presets []engine.Preset
	Catalog Catalog
}

func (s *Server) playground(c echo.Context) error {
	d := PlaygroundData{Preset: defaultPreset, Speed: defaultSpeed, Presets: engine.Presets(), Catalog: TheCatalog()}
	status := http.StatusOK
	fail := func(err error) {
		status, d.Error = http.StatusBadRequest, mapError(err).Message
	}
	q := c.QueryParams()
	if sp, err := parseSpeed(q.Get("speed"), defaultSpeed); err != nil {
		fail(err)
	} else {
		d.Speed = sp
	}
	switch {
	case q.Get("s") != "":
		sc, err := DecodeShare(q.Get("s"))
		if err != nil {
			fail(err)
			break
		}
		d.Preset, d.Scenario, d.AutoRun = "", sc, q.Get("run") == "1" && d.Error == ""
		if p, err := engine.LoadPreset(q.Get("from")); err == nil && q.Get("from") != "" {
			d.From, d.Changes = p.Name, shareChanges(p.Scenario, sc)
		}
	case q.Get("preset") != "":
		if _, err := engine.LoadPreset(q.Get("preset")); err != nil {
			fail(err)
			break
		}
		d.Preset = q.Get("preset")
	}
	if d.Preset != "" {
		p, _ := engine.LoadPreset(d.Preset)
		d.Scenario = p.Scenario
	}
	p := s.page("Playground")
	p.Styles = nil // nothing of the lessons' on it: every learner loads it, by the byte
	return s.render(c, status, PlaygroundPage(p, d))
}
