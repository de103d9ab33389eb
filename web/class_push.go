package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/engine"
)

// pushRequest is what a teacher pushes: a preset's name, a scenario
// document, or a share link (or its s parameter); all empty clears.
type pushRequest struct {
	Preset   string          `json:"preset"`
	Scenario json.RawMessage `json:"scenario"`
	Link     string          `json:"link"`
}

func (w *classWeb) apiPushScenario(c echo.Context) error {
	var in pushRequest
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	sc, err := validatePush(in)
	if err != nil {
		return err
	}
	cl, err := w.store().PushScenario(c.Request().Context(), c.Param("code"), teacherKey(c), sc)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"code": cl.Code, "scenario": linkFor(cl.Scenario)})
}

// validatePush checks a pushed scenario against the engine, so a learner
// is never offered one that does not run; errors name the field.
func validatePush(in pushRequest) (classroom.Scenario, error) {
	raw := strings.TrimSpace(string(in.Scenario))
	if raw == "null" {
		raw = ""
	}
	n := 0
	for _, set := range []bool{in.Preset != "", raw != "", in.Link != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return classroom.Scenario{}, nil
	case n > 1:
		return classroom.Scenario{}, badRequest("preset", "give one of preset, scenario or link, not %d of them", n)
	case in.Preset != "":
		if _, err := engine.LoadPreset(in.Preset); err != nil {
			return classroom.Scenario{}, badRequest("preset", "must be one of %s, not %s", strings.Join(engine.PresetNames(), ", "), excerpt(in.Preset))
		}
		return classroom.Scenario{Preset: in.Preset}, nil
	case in.Link != "":
		return scenarioFromLink(in.Link)
	}
	var doc []byte = in.Scenario
	// A scenario may come as a JSON object or as a string holding one (as
	// pasted from the playground's JSON editor).
	var s string
	if json.Unmarshal(in.Scenario, &s) == nil {
		doc = []byte(s)
	}
	sc, err := engine.DecodeScenario(doc)
	if err != nil {
		return classroom.Scenario{}, underField("scenario", err)
	}
	if _, err := engine.Prepare(sc); err != nil {
		return classroom.Scenario{}, underField("scenario", err)
	}
	out, err := json.Marshal(sc)
	if err != nil {
		return classroom.Scenario{}, err
	}
	return classroom.Scenario{JSON: string(out)}, nil
}

// scenarioFromLink reads a playground share link, its query, or the bare
// s parameter.
func scenarioFromLink(link string) (classroom.Scenario, error) {
	q := url.Values{}
	if strings.Contains(link, "?") || strings.Contains(link, "=") {
		u, err := url.Parse(link)
		if err != nil {
			// url.Error repeats the whole link: say what, not all of it.
			return classroom.Scenario{}, badRequest("link", "%s is not a playground link (it cannot be read as a URL)", excerpt(link))
		}
		q = u.Query()
		if !strings.Contains(link, "?") {
			q, _ = url.ParseQuery(link)
		}
	} else {
		q.Set("s", link)
	}
	switch {
	case q.Get("s") != "":
		sc, err := DecodeShare(q.Get("s"))
		if err != nil {
			return classroom.Scenario{}, underField("link", err)
		}
		out, err := json.Marshal(sc)
		if err != nil {
			return classroom.Scenario{}, err
		}
		return classroom.Scenario{JSON: string(out)}, nil
	case q.Get("preset") != "":
		return validatePush(pushRequest{Preset: q.Get("preset")})
	}
	return classroom.Scenario{}, badRequest("link", "is not a playground link: it has neither ?s= (a shared scenario) nor ?preset=")
}

// scenarioLink is a pushed scenario as a learner's page shows it.
type scenarioLink struct {
	Label    string    `json:"label"`
	URL      string    `json:"url"`
	PushedAt time.Time `json:"pushed_at"`
}

// linkFor turns a pushed scenario into a playground link: ?preset= for a
// preset, a share link for a document.
func linkFor(sc *classroom.Scenario) *scenarioLink {
	switch {
	case sc == nil:
		return nil
	case sc.Preset != "":
		return &scenarioLink{Label: pushLabel(""), URL: "/playground?preset=" + url.QueryEscape(sc.Preset), PushedAt: sc.PushedAt}
	case sc.JSON != "":
		doc, err := engine.DecodeScenario([]byte(sc.JSON))
		if err != nil {
			return nil
		}
		s, err := EncodeShare(doc)
		if err != nil {
			return nil
		}
		return &scenarioLink{Label: pushLabel(doc.Title), URL: "/playground?s=" + s, PushedAt: sc.PushedAt}
	}
	return nil
}
