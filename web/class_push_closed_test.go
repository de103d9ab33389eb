package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// pushedLink is the push as the dashboard JSON, /api/me and the push's
// own answer give it: which lesson it is on and whether it is closed.
type pushedLink struct {
	Kind   string `json:"kind"`
	URL    string `json:"url"`
	Lesson string `json:"lesson"`
	Closed bool   `json:"closed"`
}

// TestAPushedLessonTheClassCannotOpenIsMarked: a teacher who pushes a
// lesson (or an exercise of one) that the class's settings keep closed
// sends learners to "Not open yet"; every view of the push says so, in
// either order (push then close, close then push), until the lesson is
// opened; a push of an open lesson, or of a preset, is never marked. An
// archived class's dashboard offers no Open it, and says joining is
// closed whatever its switch holds.
func TestAPushedLessonTheClassCannotOpenIsMarked(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		cat := catalog(t)
		first, second := cat.Lessons()[0], cat.Lessons()[1]
		exShut := cat.LessonExercises(second)[0]
		c := createClass(t, base, "Paced")
		ada, _ := join(t, base, c.Code, "Ada")
		owner := teacher(t, base, c.TeacherKey)
		push := "/api/classes/" + c.Code + "/push"
		settings := "/api/classes/" + c.Code + "/settings"

		// Every view of the push agrees.
		views := func(what string, pushed answer) pushedLink {
			t.Helper()
			var fromPush struct{ Scenario pushedLink }
			pushed.decode(t, &fromPush)
			var dash struct {
				Class struct{ Scenario pushedLink } `json:"class"`
			}
			d := owner.get("/api/classes/" + c.Code + "/dashboard")
			wantStatus(t, d, http.StatusOK, "the dashboard")
			d.decode(t, &dash)
			var me struct {
				Class struct{ Scenario pushedLink } `json:"class"`
			}
			m := ada.get("/api/me")
			wantStatus(t, m, http.StatusOK, "/api/me")
			m.decode(t, &me)
			if dash.Class.Scenario != me.Class.Scenario {
				t.Errorf("%s: the dashboard says %+v, the learner's /api/me %+v", what, dash.Class.Scenario, me.Class.Scenario)
			}
			return dash.Class.Scenario
		}
		noPush := answer{status: http.StatusOK, body: `{}`}

		// Push first, then close: the push is marked closed.
		p := owner.postJSON(push, `{"lesson":"`+second.Slug+`"}`)
		wantStatus(t, p, http.StatusOK, "push the second lesson")
		if got := views("an open class", p); got.Closed || got.Lesson != second.Slug {
			t.Errorf("pushed to a class with every lesson open: %+v, want lesson %s, not closed", got, second.Slug)
		}
		wantStatus(t, owner.postJSON(settings, `{"open_lessons":["`+first.Slug+`"]}`), http.StatusOK, "open the first lesson only")
		if got := views("push, then close", noPush); !got.Closed || got.Lesson != second.Slug {
			t.Errorf("the pushed lesson closed by the settings: %+v, want closed", got)
		}

		// Close first, then push an exercise of the closed lesson: its
		// answer already says so.
		p = owner.postJSON(push, `{"exercise":"`+exShut.ID+`"}`)
		wantStatus(t, p, http.StatusOK, "push an exercise of a closed lesson")
		var ans struct{ Scenario pushedLink }
		p.decode(t, &ans)
		if !ans.Scenario.Closed || ans.Scenario.Lesson != exShut.Lesson {
			t.Errorf("the push of a closed lesson's exercise answers %+v, want closed, lesson %s", ans.Scenario, exShut.Lesson)
		}
		if got := views("close, then push", p); !got.Closed {
			t.Errorf("an exercise of a closed lesson pushed: %+v, want closed", got)
		}
		// The pages as the server makes them say it too, before any script:
		// the dashboard with its one click to open the lesson, the
		// learner's own page beside the push.
		dash := owner.get("/class/" + c.Code + "/teacher").body
		if !strings.Contains(dash, `data-testid="push-closed"`) || !strings.Contains(dash, `data-lesson="`+exShut.Lesson+`"`) {
			t.Errorf("the dashboard page does not say the pushed exercise's lesson is closed, with a button to open %s", exShut.Lesson)
		}
		if me := ada.get("/class/me").body; !strings.Contains(me, `data-closed="true"`) || !strings.Contains(me, "checks wait until your teacher opens it") {
			t.Error("the learner's own page does not say the pushed exercise is not open yet")
		}
		// An archived class takes no changes: its Open it is off.
		archive := "/api/classes/" + c.Code + "/archive"
		wantStatus(t, owner.postJSON(archive, `{"archived":true}`), http.StatusOK, "archive")
		archived := owner.get("/class/" + c.Code + "/teacher").body
		if openIt := regexp.MustCompile(`<button[^>]*data-testid="push-open-it"[^>]*>`).FindString(archived); !strings.Contains(openIt, "disabled") {
			t.Errorf("an archived class's dashboard offers %s", openIt)
		}
		if !strings.Contains(archived, `data-testid="dash-joining">closed<`) {
			t.Error("an archived class's dashboard says joining is open")
		}
		// The live redraw shows the dashboard JSON's one answer.
		joining := func() (joining, switchOn bool) {
			var dash struct {
				Class struct {
					Joining  bool `json:"joining"`
					JoinOpen bool `json:"join_open"`
				} `json:"class"`
			}
			owner.get("/api/classes/"+c.Code+"/dashboard").decode(t, &dash)
			return dash.Class.Joining, dash.Class.JoinOpen
		}
		if j, on := joining(); j || !on {
			t.Errorf("an archived class's dashboard JSON: joining %v with the switch %v, want not joining with the switch on", j, on)
		}
		wantStatus(t, owner.postJSON(archive, `{"archived":false}`), http.StatusOK, "restore")
		if j, _ := joining(); !j {
			t.Error("a restored class's dashboard JSON says nobody can join")
		}

		// Opening the lesson (as the dashboard's "Open it" does) clears it.
		wantStatus(t, owner.postJSON(settings, `{"open_lesson":"`+second.Slug+`"}`), http.StatusOK, "open the second lesson")
		if got := views("opened", noPush); got.Closed {
			t.Errorf("the pushed exercise's lesson opened, still marked: %+v", got)
		}
		if dash := owner.get("/class/" + c.Code + "/teacher").body; strings.Contains(dash, `data-testid="push-closed"`) {
			t.Error("the dashboard page still says the opened lesson is closed")
		}

		// A preset belongs to no lesson: never marked.
		wantStatus(t, owner.postJSON(settings, `{"open_lessons":["`+first.Slug+`"]}`), http.StatusOK, "close the second again")
		p = owner.postJSON(push, `{"preset":"`+presetName(t)+`"}`)
		wantStatus(t, p, http.StatusOK, "push a preset")
		if got := views("a preset", p); got.Closed || got.Lesson != "" || !strings.HasPrefix(got.URL, "/playground?preset=") {
			t.Errorf("a pushed preset: %+v, want no lesson and not closed", got)
		}
	})
}
