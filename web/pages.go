package web

import (
	"net/http"
	"net/url"

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
	// The first mistake is the one shown; the page still opens on what
	// it could read.
	fail := func(err error) {
		if d.Error == "" {
			status, d.Error = http.StatusBadRequest, mapError(err).Message
		}
	}
	q := c.QueryParams()
	if sp, err := parseSpeed(q.Get("speed"), defaultSpeed); err != nil {
		fail(err)
	} else {
		d.Speed = sp
	}
	if err := shareOnly(q); err != nil {
		fail(err)
	}
	switch {
	case q.Get("s") != "":
		sc, err := DecodeShare(q.Get("s"))
		if err != nil {
			fail(err)
			break
		}
		d.Preset, d.Scenario = "", sc
		if from := q.Get("from"); from != "" {
			if p, err := engine.LoadPreset(from); err != nil {
				fail(badRequest("from", "is not a preset (%s), so what the link changed cannot be said: the link's scenario is shown as it is", excerpt(from)))
			} else {
				d.From, d.Changes = p.Name, shareChanges(p.Scenario, sc)
			}
		}
		d.AutoRun = q.Get("run") == "1" && d.Error == ""
	case q.Get("preset") != "":
		if _, err := engine.LoadPreset(q.Get("preset")); err != nil {
			fail(badRequest("preset", "%s is not one of the %d presets: pick one from the Scenario list below", excerpt(q.Get("preset")), len(engine.PresetNames())))
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

// shareOnly refuses the query values that only a share link (s) takes,
// and a preset beside one, rather than dropping them unsaid: a link that
// names two scenarios, or asks to run at once where nothing runs at once,
// is not what its sender thought.
func shareOnly(q url.Values) error {
	shared := q.Get("s") != ""
	switch run := q.Get("run"); {
	case run != "" && run != "1":
		return badRequest("run", "must be 1 (start the shared scenario when the page opens) or left out, not %s", excerpt(run))
	case run != "" && !shared:
		return badRequest("run", "goes with a share link (s) only: a preset waits for Run, so that its question comes first")
	case q.Get("from") != "" && !shared:
		return badRequest("from", "goes with a share link (s) only: it names the preset the link's scenario was changed from")
	case shared && q.Get("preset") != "":
		return badRequest("preset", "cannot go with a share link (s): the link's own scenario is shown; drop one of the two")
	}
	return nil
}
