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
// document, a share link (or its s parameter), a lesson's slug or an
// exercise's id; all empty clears.
type pushRequest struct {
	Preset   string          `json:"preset"`
	Scenario json.RawMessage `json:"scenario"`
	Link     string          `json:"link"`
	Lesson   string          `json:"lesson"`
	Exercise string          `json:"exercise"`
}

// apiPushScenario: POST /api/classes/{code}/push (and the older
// /scenario) with the teacher key. Every learner's page offers what was
// pushed in a banner with a button; nobody is moved off their page.
func (w *classWeb) apiPushScenario(c echo.Context) error {
	body, err := w.s.readBody(c)
	if err != nil {
		return err
	}
	var in pushRequest
	if err := decodeStrict(body, &in); err != nil {
		return err
	}
	if err := emptyPushField(body); err != nil {
		return err
	}
	sc, err := validatePush(in)
	if err != nil {
		return err
	}
	if err := w.checkPushedPage(sc); err != nil {
		return err
	}
	cl, err := w.store().PushScenario(c.Request().Context(), c.Param("code"), teacherKey(c), sc)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"code": cl.Code, "scenario": w.linkFor(cl.Scenario, cl.Settings)})
}

// checkPushedPage refuses a lesson or exercise the catalog does not have.
func (w *classWeb) checkPushedPage(sc classroom.Scenario) error {
	cat := w.s.cfg.Lessons
	switch {
	case sc.Lesson != "":
		if cat == nil {
			return badRequest("lesson", "this server has no lessons")
		}
		if _, err := cat.Lesson(sc.Lesson); err != nil {
			return badRequest("lesson", "%s is not a lesson of this course", excerpt(sc.Lesson))
		}
	case sc.Exercise != "":
		if cat == nil {
			return badRequest("exercise", "this server has no lessons")
		}
		if _, err := cat.Exercise(sc.Exercise); err != nil {
			return badRequest("exercise", "%s is not an exercise of this course", excerpt(sc.Exercise))
		}
	}
	return nil
}

// emptyPushField refuses a push that names a field and leaves it empty
// ({"preset": ""}): it would clear what the class has, which only {} (the
// dashboard's Clear) asks for.
func emptyPushField(body []byte) error {
	var given map[string]json.RawMessage
	if json.Unmarshal(body, &given) != nil {
		return nil // not an object: decodeStrict said so already
	}
	for _, f := range []string{"preset", "scenario", "link", "lesson", "exercise"} {
		v, ok := given[f]
		if !ok {
			continue
		}
		var str string
		if raw := strings.TrimSpace(string(v)); raw == "null" || json.Unmarshal(v, &str) == nil && strings.TrimSpace(str) == "" {
			return badRequest(f, "is empty: name what to push, or send {} (the dashboard's Clear) to take the push down")
		}
	}
	return nil
}

// validatePush checks a pushed scenario against the engine, so a learner
// is never offered one that does not run; errors name the field.
func validatePush(in pushRequest) (classroom.Scenario, error) {
	raw := strings.TrimSpace(string(in.Scenario))
	if raw == "null" {
		raw = ""
	}
	n, last := 0, ""
	for _, f := range []struct {
		name string
		set  bool
	}{{"preset", in.Preset != ""}, {"scenario", raw != ""}, {"link", in.Link != ""}, {"lesson", in.Lesson != ""}, {"exercise", in.Exercise != ""}} {
		if f.set {
			n, last = n+1, f.name
		}
	}
	switch {
	case n == 0:
		return classroom.Scenario{}, nil
	case n > 1:
		return classroom.Scenario{}, badRequest(last, "give one of preset, scenario, link, lesson or exercise, not %d of them", n)
	case in.Lesson != "" || in.Exercise != "":
		sc := classroom.Scenario{Lesson: in.Lesson, Exercise: in.Exercise}
		if err := classroom.CheckScenario(sc); err != nil {
			return classroom.Scenario{}, err
		}
		return sc, nil
	case in.Preset != "":
		if _, err := engine.LoadPreset(in.Preset); err != nil {
			return classroom.Scenario{}, badRequest("preset", "%s is not one of the %d presets (GET /api/presets lists them)", excerpt(in.Preset), len(engine.PresetNames()))
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
	// Kind is what was pushed: scenario, lesson or exercise.
	Kind     string    `json:"kind"`
	Label    string    `json:"label"`
	URL      string    `json:"url"`
	PushedAt time.Time `json:"pushed_at"`
	// Lesson is the slug of the lesson pushed, or of the pushed
	// exercise's lesson.
	Lesson string `json:"lesson,omitempty"`
	// Closed says the class's settings keep that lesson closed: a learner
	// who follows the push finds "Not open yet" (the dashboard offers to
	// open it).
	Closed bool `json:"closed,omitempty"`
}

// linkFor turns a push into a link: a lesson's page, an exercise on its
// lesson's page, or a playground link (?preset= for a preset, a share
// link for a document). A lesson or exercise the catalog no longer has
// shows nothing; one the class's settings set keeps closed is marked so.
func (w *classWeb) linkFor(sc *classroom.Scenario, set classroom.Settings) *scenarioLink {
	if sc != nil && w.s.cfg.Lessons != nil {
		cat := w.s.cfg.Lessons
		switch {
		case sc.Lesson != "":
			l, err := cat.Lesson(sc.Lesson)
			if err != nil {
				return nil
			}
			return &scenarioLink{Kind: "lesson", Label: l.Title, URL: "/lessons/" + l.Slug, PushedAt: sc.PushedAt,
				Lesson: l.Slug, Closed: !set.LessonOpen(l.Slug)}
		case sc.Exercise != "":
			ex, err := cat.Exercise(sc.Exercise)
			if err != nil {
				return nil
			}
			// An exercise's title is shown above its form before it is
			// answered, so it gives no prediction away.
			return &scenarioLink{Kind: "exercise", Label: ex.Title, URL: "/lessons/" + ex.Lesson + "#exercise-" + ex.ID, PushedAt: sc.PushedAt,
				Lesson: ex.Lesson, Closed: !set.LessonOpen(ex.Lesson)}
		}
	}
	return linkFor(sc)
}

// linkFor turns a pushed scenario into a playground link: ?preset= for a
// preset, a share link for a document.
func linkFor(sc *classroom.Scenario) *scenarioLink {
	switch {
	case sc == nil:
		return nil
	case sc.Preset != "":
		return &scenarioLink{Kind: "scenario", Label: pushLabel(""), URL: "/playground?preset=" + url.QueryEscape(sc.Preset), PushedAt: sc.PushedAt}
	case sc.JSON != "":
		doc, err := engine.DecodeScenario([]byte(sc.JSON))
		if err != nil {
			return nil
		}
		s, err := EncodeShare(doc)
		if err != nil {
			return nil
		}
		return &scenarioLink{Kind: "scenario", Label: pushLabel(doc.Title), URL: "/playground?s=" + s, PushedAt: sc.PushedAt}
	}
	return nil
}
