package web_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
)

// me is what GET /api/me says of the class's push and settings.
type meClass struct {
	Class struct {
		Status   string                             `json:"status"`
		Scenario *struct{ Kind, Label, URL string } `json:"scenario"`
		Settings struct {
			ShowMe      bool     `json:"show_me"`
			OpenLessons []string `json:"open_lessons"`
			Deadline    string   `json:"deadline"`
		} `json:"settings"`
	} `json:"class"`
}

func readMe(t *testing.T, p *person) meClass {
	t.Helper()
	a := p.get("/api/me")
	wantStatus(t, a, http.StatusOK, "/api/me")
	var m meClass
	a.decode(t, &m)
	return m
}

// TestClassPushLessonAndExercise: a pushed lesson or exercise reaches
// every learner as a link to its page, labelled with its title; /push
// and /scenario are one route; what the catalog lacks is refused naming
// the field.
func TestClassPushLessonAndExercise(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		cat := catalog(t)
		l := cat.Lessons()[1]
		ex := cat.LessonExercises(l)[0]
		c := createClass(t, base, "Room")
		ada, _ := join(t, base, c.Code, "Ada")
		bo, _ := join(t, base, c.Code, "Bo")
		owner := teacher(t, base, c.TeacherKey)
		push := "/api/classes/" + c.Code + "/push"

		wantStatus(t, owner.postJSON(push, `{"lesson":"`+l.Slug+`"}`), http.StatusOK, "push a lesson")
		for _, p := range []*person{ada, bo} {
			m := readMe(t, p)
			if sc := m.Class.Scenario; sc == nil || sc.Kind != "lesson" || sc.URL != "/lessons/"+l.Slug || sc.Label != l.Title {
				t.Fatalf("after pushing a lesson the learner sees %+v", sc)
			}
		}
		wantStatus(t, owner.postJSON(push, `{"exercise":"`+ex.ID+`"}`), http.StatusOK, "push an exercise")
		if sc := readMe(t, ada).Class.Scenario; sc == nil || sc.Kind != "exercise" || sc.URL != "/lessons/"+ex.Lesson+"#exercise-"+ex.ID {
			t.Fatalf("after pushing an exercise the learner sees %+v", sc)
		}
		// The dashboard shows the same push.
		d := owner.get("/api/classes/" + c.Code + "/dashboard")
		if !strings.Contains(d.body, `"kind":"exercise"`) {
			t.Errorf("the dashboard does not show the pushed exercise: %.300s", d.body)
		}
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/scenario", `{"preset":"`+presetName(t)+`"}`), http.StatusOK, "push a preset on the old route")
		if sc := readMe(t, bo).Class.Scenario; sc == nil || sc.Kind != "scenario" || !strings.HasPrefix(sc.URL, "/playground?preset=") {
			t.Fatalf("after pushing a preset the learner sees %+v", sc)
		}
		wantStatus(t, owner.postJSON(push, `{}`), http.StatusOK, "clear")
		if sc := readMe(t, bo).Class.Scenario; sc != nil {
			t.Fatalf("after clearing the learner sees %+v", sc)
		}

		for body, field := range map[string]string{
			`{"lesson":"no-such-lesson"}`:                            "lesson",
			`{"exercise":"no-such-exercise"}`:                        "exercise",
			`{"lesson":"` + strings.Repeat("a", 5000) + `"}`:         "lesson",
			`{"lesson":"` + l.Slug + `","exercise":"` + ex.ID + `"}`: "exercise", // the one too many
			`{"lesson":"<b>"}`:                                       "lesson",
			`{"lesson":7}`:                                           "lesson",
		} {
			a := owner.postJSON(push, body)
			var e struct{ Field string }
			a.decode(t, &e)
			if a.status != http.StatusBadRequest || e.Field != field || len(a.body) > 600 {
				t.Errorf("push %.60s: %d %.300s, want 400 naming %s", body, a.status, a.body, field)
			}
		}
		if a := ada.postJSON(push, `{"lesson":"`+l.Slug+`"}`); a.status != http.StatusUnauthorized && a.status != http.StatusForbidden {
			t.Errorf("a learner pushed: %d", a.status)
		}
	})
}

// TestClassSettings: quiz mode refuses give-up and solutions, closed
// lessons refuse checks, the learner's /api/me carries the settings, and
// bad values are refused naming the field.
func TestClassSettings(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		cat := catalog(t)
		first, second := cat.Lessons()[0], cat.Lessons()[1]
		exOpen := cat.LessonExercises(first)[0]
		exShut := cat.LessonExercises(second)[0]
		c := createClass(t, base, "Quiz")
		ada, _ := join(t, base, c.Code, "Ada")
		owner := teacher(t, base, c.TeacherKey)
		settings := "/api/classes/" + c.Code + "/settings"

		if m := readMe(t, ada); !m.Class.Settings.ShowMe || len(m.Class.Settings.OpenLessons) != 0 {
			t.Fatalf("a new class's settings: %+v", m.Class.Settings)
		}
		// Before quiz mode, give-up answers.
		wantStatus(t, ada.postJSON("/api/exercises/"+exOpen.ID+"/give-up", `{"variant":0}`), http.StatusOK, "give up before quiz mode")

		wantStatus(t, owner.postJSON(settings, `{"show_me":false,"open_lessons":["`+first.Slug+`"],"deadline":"2031-05-01T17:00:00+02:00"}`), http.StatusOK, "settings")
		m := readMe(t, ada)
		if m.Class.Settings.ShowMe || strings.Join(m.Class.Settings.OpenLessons, ",") != first.Slug || m.Class.Settings.Deadline != "2031-05-01T15:00:00Z" {
			t.Fatalf("the learner's settings: %+v", m.Class.Settings)
		}
		if d := owner.get("/api/classes/" + c.Code + "/dashboard"); !strings.Contains(d.body, `"settings":{"show_me":false,"open_lessons":["`+first.Slug+`"],"deadline":"2031-05-01T15:00:00Z"}`) {
			t.Errorf("the dashboard JSON lacks the settings: %.500s", d.body)
		}
		if page := ada.get("/class/me"); !strings.Contains(page.body, "not open yet") || !strings.Contains(page.body, "Quiz mode") {
			t.Errorf("the learner's page does not say quiz mode and which lessons are not open yet")
		}
		refused := func(a answer, code, what string) {
			t.Helper()
			var e struct{ Code, Field string }
			a.decode(t, &e)
			if a.status != http.StatusForbidden || e.Code != code {
				t.Errorf("%s: %d %.300s, want 403 %s", what, a.status, a.body, code)
			}
		}
		refused(ada.postJSON("/api/exercises/"+exShut.ID+"/give-up", `{"variant":0}`), "not_open_yet", "give up in a closed lesson")
		refused(ada.postJSON("/api/exercises/"+exOpen.ID+"/give-up", `{"variant":0}`), "quiz_mode", "give up in quiz mode")
		refused(ada.get("/api/exercises/"+exOpen.ID+"/solution?variant=0"), "quiz_mode", "a solution in quiz mode")
		refused(ada.postJSON("/api/exercises/"+exShut.ID+"/check", `{"answer":"1"}`), "not_open_yet", "a check in a closed lesson")
		// Someone outside the class is not held to it.
		if a := newPerson(t, base).postJSON("/api/exercises/"+exShut.ID+"/give-up", `{"variant":0}`); a.status != http.StatusOK {
			t.Errorf("practice give-up: %d %.200s", a.status, a.body)
		}
		// A field left out keeps its value; [] opens every lesson, null clears the deadline.
		wantStatus(t, owner.postJSON(settings, `{"open_lessons":[],"deadline":null}`), http.StatusOK, "open all")
		m = readMe(t, ada)
		if m.Class.Settings.ShowMe || len(m.Class.Settings.OpenLessons) != 0 || m.Class.Settings.Deadline != "" {
			t.Fatalf("after opening all: %+v", m.Class.Settings)
		}
		if a := ada.postJSON("/api/exercises/"+exShut.ID+"/check", `{"answer":"1"}`); a.status != http.StatusOK {
			t.Errorf("a check once its lesson is open: %d %.200s", a.status, a.body)
		}

		many := `["` + strings.Repeat(first.Slug+`","`, 70) + first.Slug + `"]`
		for body, field := range map[string]string{
			`{"show_me":"no"}`:                                "show_me",
			`{"open_lessons":["no-such-lesson"]}`:             "open_lessons",
			`{"open_lessons":` + many + `}`:                   "open_lessons",
			`{"open_lessons":"` + first.Slug + `"}`:           "open_lessons",
			`{"deadline":"tomorrow"}`:                         "deadline",
			`{"deadline":"` + strings.Repeat("9", 200) + `"}`: "deadline",
			`{"deadline":5}`:                                  "deadline",
			`{"deadline":"0001-01-01T00:00:00Z"}`:             "deadline",
			`{"speed":2}`:                                     "speed",
		} {
			a := owner.postJSON(settings, body)
			var e struct{ Field string }
			a.decode(t, &e)
			if a.status != http.StatusBadRequest || e.Field != field || len(a.body) > 600 {
				t.Errorf("settings %.60s: %d %.300s, want 400 naming %s", body, a.status, a.body, field)
			}
		}
		if a := ada.postJSON(settings, `{"show_me":true}`); a.status != http.StatusUnauthorized && a.status != http.StatusForbidden {
			t.Errorf("a learner changed the settings: %d", a.status)
		}
	})
}

// TestClassDeadline: an attempt after the deadline is kept, marked late,
// and earns nothing in every export and view; once the deadline moves,
// a new right answer earns its credit.
func TestClassDeadline(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		ids := catalogIDs(t)
		c := createClass(t, base, "Late")
		ada, _ := join(t, base, c.Code, "Ada")
		owner := teacher(t, base, c.TeacherKey)
		settings := "/api/classes/" + c.Code + "/settings"
		wantStatus(t, owner.postJSON(settings, `{"deadline":"2001-01-01T00:00:00Z"}`), http.StatusOK, "a past deadline")
		record(t, st, ada, ids[0], "8", true)

		long := readCSV(t, owner.get("/api/classes/"+c.Code+"/progress.csv").body)
		if r := long[1]; r[1] != ids[0] || r[3] != "0" || r[9] != "0" || r[12] != "late" {
			t.Errorf("progress.csv after a late right answer: %q", r)
		}
		wide := readCSV(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body)
		if wide[1][1] != "0" {
			t.Errorf("progress-wide.csv: %q, want 0", wide[1][1])
		}
		gb := readCSV(t, owner.get("/api/classes/"+c.Code+"/gradebook.csv?format=canvas").body)
		if gb[2][5] != "0" {
			t.Errorf("gradebook: %q, want 0", gb[2][5])
		}
		att := readCSV(t, owner.get("/api/classes/"+c.Code+"/attempts.csv").body)
		if last := att[1]; last[6] != "right" || last[7] != "0" || last[10] != "1" {
			t.Errorf("attempts.csv: %q, want right, 0, late", last)
		}
		if me := ada.get("/api/me"); !strings.Contains(me.body, `"late":true`) {
			t.Errorf("the learner's progress does not say late: %.400s", me.body)
		}
		if page := ada.get("/class/me"); !strings.Contains(page.body, "late: answered after the deadline") {
			t.Errorf("the learner's page does not say late")
		}
		if d := owner.get("/api/classes/" + c.Code + "/dashboard"); !strings.Contains(d.body, `"text":"late"`) {
			t.Errorf("the dashboard does not say late: %.600s", d.body)
		}

		wantStatus(t, owner.postJSON(settings, `{"deadline":"2999-01-01T00:00:00Z"}`), http.StatusOK, "a later deadline")
		record(t, st, ada, ids[0], "8", true)
		wide = readCSV(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body)
		if wide[1][1] != "1" {
			t.Errorf("a right answer before the new deadline: %q, want 1", wide[1][1])
		}
	})
}

// TestDashboardWhoIsStuck: each learner carries last_active and current
// (the exercise they answered last); one with three failed tries on it is
// flagged and listed first.
func TestDashboardWhoIsStuck(t *testing.T) {
	// A clock a second on at each reading, so that "last" is never a tie.
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	st, err := sqlite.Open(context.Background(), t.TempDir(), classroom.Options{Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	base := startClass(t, st)
	ids := catalogIDs(t)
	c := createClass(t, base, "Stuck")
	ada, _ := join(t, base, c.Code, "Ada")
	bo, _ := join(t, base, c.Code, "Bo")
	join(t, base, c.Code, "Cy")
	record(t, st, ada, ids[0], "8", true)
	for range 3 {
		record(t, st, bo, ids[1], "x", false)
	}
	record(t, st, ada, ids[1], "x", false)
	var d struct {
		Learners []struct {
			Name       string `json:"name"`
			LastActive string `json:"last_active"`
			Current    string `json:"current"`
			Stuck      bool   `json:"stuck"`
		} `json:"learners"`
	}
	teacher(t, base, c.TeacherKey).get("/api/classes/"+c.Code+"/dashboard").decode(t, &d)
	if len(d.Learners) != 3 || d.Learners[0].Name != "Bo" || !d.Learners[0].Stuck || d.Learners[0].Current != ids[1] {
		t.Fatalf("Bo (three wrong tries) is not first and flagged: %+v", d.Learners)
	}
	if d.Learners[1].Name != "Ada" || d.Learners[1].Stuck || d.Learners[1].Current != ids[1] || d.Learners[2].Current != "" {
		t.Errorf("Ada then Cy, unflagged, Ada on her last exercise: %+v", d.Learners[1:])
	}
	for _, l := range d.Learners {
		if l.LastActive == "" || strings.HasPrefix(l.LastActive, "0001") {
			t.Errorf("%s has no last_active", l.Name)
		}
	}
}
