package web_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// classSettings is the settings as POST .../settings answers them.
type classSettings struct {
	ShowMe      bool     `json:"show_me"`
	OpenLessons []string `json:"open_lessons"`
	Deadline    *string  `json:"deadline"`
}

// TestSettingsChangedAtOnceBothCount: two tabs of a teacher (or two
// teachers of one class) that each open a lesson at the same time both
// see it opened, on either store; open_lesson adds to what is open when
// it lands, not to what the sender last saw.
func TestSettingsChangedAtOnceBothCount(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		lessons := catalog(t).Lessons()
		if len(lessons) < 4 {
			t.Fatalf("the catalog has %d lessons, the test needs 4", len(lessons))
		}
		c := createClass(t, base, "Co-taught")
		owner := teacher(t, base, c.TeacherKey)
		settings := "/api/classes/" + c.Code + "/settings"
		wantStatus(t, owner.postJSON(settings, `{"open_lessons":["`+lessons[0].Slug+`"]}`), http.StatusOK, "open the first lesson only")

		var wg sync.WaitGroup
		for _, l := range lessons[1:4] {
			wg.Go(func() {
				a := owner.postJSON(settings, `{"open_lesson":"`+l.Slug+`"}`)
				if a.status != http.StatusOK {
					t.Errorf("open %s: %d %s", l.Slug, a.status, a.body)
				}
			})
		}
		wg.Wait()
		got := openLessonsOf(t, owner, c.Code)
		for _, l := range lessons[:4] {
			if !slices.Contains(got, l.Slug) {
				t.Errorf("%s was opened but the class has %v open", l.Slug, got)
			}
		}
		if len(got) != 4 {
			t.Errorf("open lessons %v, want the four opened", got)
		}

		// Opening a lesson already open changes nothing; with none
		// ticked every lesson is open, and open_lesson leaves it so.
		wantStatus(t, owner.postJSON(settings, `{"open_lesson":"`+lessons[1].Slug+`"}`), http.StatusOK, "open an open lesson")
		if again := openLessonsOf(t, owner, c.Code); !slices.Equal(again, got) {
			t.Errorf("opening an open lesson changed %v to %v", got, again)
		}
		wantStatus(t, owner.postJSON(settings, `{"open_lessons":[]}`), http.StatusOK, "open every lesson")
		wantStatus(t, owner.postJSON(settings, `{"open_lesson":"`+lessons[1].Slug+`"}`), http.StatusOK, "open a lesson with all open")
		if all := openLessonsOf(t, owner, c.Code); len(all) != 0 {
			t.Errorf("open_lesson with every lesson open made the list %v, which closes the others", all)
		}

		for body, field := range map[string]string{
			`{"open_lesson":"no-such-lesson"}`:                   "open_lesson",
			`{"open_lesson":"` + strings.Repeat("a", 101) + `"}`: "open_lesson",
			`{"if_unchanged":{"show_me":"yes"}}`:                 "if_unchanged.show_me",
			`{"if_unchanged":{"deadline":"tomorrow"}}`:           "if_unchanged.deadline",
		} {
			a := owner.postJSON(settings, body)
			wantStatus(t, a, http.StatusBadRequest, body)
			if !strings.Contains(a.body, `"field":"`+field+`"`) {
				t.Errorf("%s: %s does not name %s", body, a.body, field)
			}
		}
		if learner := newPerson(t, base).postJSON(settings, `{"open_lesson":"`+lessons[0].Slug+`"}`); learner.status == http.StatusOK {
			t.Error("open_lesson without the teacher key was taken")
		}
	})
}

// TestASettingsFormSavedOverAnotherTabsChangeIsRefused: a form sends
// the settings it showed as if_unchanged; when another tab saved since,
// the save is refused with settings_changed and nothing is written, so
// the other tab's change stands; sent against the settings as they are,
// it is saved.
func TestASettingsFormSavedOverAnotherTabsChangeIsRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		lessons := catalog(t).Lessons()
		c := createClass(t, base, "Two tabs")
		owner := teacher(t, base, c.TeacherKey)
		settings := "/api/classes/" + c.Code + "/settings"

		shown := `{"show_me":true,"open_lessons":[]}` // what tab one drew
		// Tab two opens the first lesson only.
		wantStatus(t, owner.postJSON(settings, `{"open_lessons":["`+lessons[0].Slug+`"],"if_unchanged":`+shown+`}`), http.StatusOK, "tab two's save")
		// Tab one, still showing every lesson open, switches quiz mode on.
		a := owner.postJSON(settings, `{"show_me":false,"open_lessons":[],"deadline":null,"if_unchanged":`+shown+`}`)
		wantStatus(t, a, http.StatusConflict, "tab one's save over tab two's")
		var refused struct {
			Code  string `json:"code"`
			Field string `json:"field"`
		}
		if err := json.Unmarshal([]byte(a.body), &refused); err != nil || refused.Code != "settings_changed" || refused.Field != "if_unchanged" {
			t.Errorf("the refusal %s, want code settings_changed on if_unchanged", a.body)
		}
		if got := openLessonsOf(t, owner, c.Code); !slices.Equal(got, []string{lessons[0].Slug}) {
			t.Errorf("after the refused save the class has %v open, want tab two's %s", got, lessons[0].Slug)
		}

		// Against the settings as they are now (lessons in another order
		// are the same settings), it saves.
		now := `{"show_me":true,"open_lessons":["` + lessons[0].Slug + `"]}`
		a = owner.postJSON(settings, `{"show_me":false,"if_unchanged":`+now+`}`)
		wantStatus(t, a, http.StatusOK, "tab one's save, redone")
		var saved struct{ Settings classSettings }
		a.decode(t, &saved)
		if saved.Settings.ShowMe || !slices.Equal(saved.Settings.OpenLessons, []string{lessons[0].Slug}) {
			t.Errorf("the redone save gave %+v, want quiz mode and tab two's lesson", saved.Settings)
		}

		// A deadline is the same instant however its zone is written.
		wantStatus(t, owner.postJSON(settings, `{"deadline":"2026-12-01T17:00:00Z"}`), http.StatusOK, "set a deadline")
		seen := `{"show_me":false,"open_lessons":["` + lessons[0].Slug + `"],"deadline":"2026-12-01T18:00:00+01:00"}`
		wantStatus(t, owner.postJSON(settings, `{"show_me":true,"if_unchanged":`+seen+`}`), http.StatusOK, "a save against the deadline written in another zone")
		stale := `{"show_me":true,"open_lessons":["` + lessons[0].Slug + `"],"deadline":null}`
		wantStatus(t, owner.postJSON(settings, `{"show_me":false,"if_unchanged":`+stale+`}`), http.StatusConflict, "a save against settings without the deadline")

		// Refusals are the teacher's, not the store's: an operator's
		// alert on store errors stays quiet.
		if m := newPerson(t, base).get("/metrics").body; regexp.MustCompile(`playground_store_errors_total\{op="set_settings"\} [1-9]`).MatchString(m) {
			t.Errorf("refused settings counted as store errors:\n%s", grepLines(m, "set_settings"))
		}
	})
}

// openLessonsOf is the class's open lessons as its dashboard says.
func openLessonsOf(t *testing.T, owner *person, code string) []string {
	t.Helper()
	d := owner.get("/api/classes/" + code + "/dashboard")
	wantStatus(t, d, http.StatusOK, "the dashboard")
	var dash struct {
		Class struct{ Settings classSettings } `json:"class"`
	}
	d.decode(t, &dash)
	return dash.Class.Settings.OpenLessons
}

// TestLearnersAreToldWhichLessonsAreClosed: a learner's pages get the
// lessons their class keeps closed worked out by the server (the rule
// the checks keep: none ticked opens them all), so they mark exactly
// those.
func TestLearnersAreToldWhichLessonsAreClosed(t *testing.T) {
	base := startClass(t, openSQLite(t))
	lessons := catalog(t).Lessons()
	c := createClass(t, base, "Paced")
	ada, _ := join(t, base, c.Code, "Ada")
	owner := teacher(t, base, c.TeacherKey)
	closedOf := func() []string {
		t.Helper()
		var me struct {
			Class struct {
				Settings struct {
					ClosedLessons []string `json:"closed_lessons"`
				} `json:"settings"`
			} `json:"class"`
		}
		a := ada.get("/api/me")
		wantStatus(t, a, http.StatusOK, "/api/me")
		a.decode(t, &me)
		return me.Class.Settings.ClosedLessons
	}
	if got := closedOf(); got == nil || len(got) != 0 {
		t.Errorf("with every lesson open the learner is told %v are closed", got)
	}
	settings := "/api/classes/" + c.Code + "/settings"
	wantStatus(t, owner.postJSON(settings, `{"open_lessons":["`+lessons[1].Slug+`"]}`), http.StatusOK, "open the second lesson only")
	var want []string
	for i, l := range lessons {
		if i != 1 {
			want = append(want, l.Slug)
		}
	}
	if got := closedOf(); !slices.Equal(got, want) {
		t.Errorf("with only %s open the learner is told %v are closed, want %v", lessons[1].Slug, got, want)
	}
	page := ada.get("/class/me").body
	if n := strings.Count(page, `data-testid="lesson-not-open" hidden`); n != 1 {
		t.Errorf("the learner's page hides the not-open mark on %d lessons, want the one open", n)
	}
}
