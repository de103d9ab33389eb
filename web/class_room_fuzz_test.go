package web

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leaselab/playground/classroom"
)

// FuzzRoomBodies reads a body, anything at all, as POST .../push or
// .../settings does, with no store: strictly decoded, then checked
// against the bounds and the catalog. Every input is either accepted, and
// then passes the store's own checks (settings also survive the store's
// encoding unchanged), or refused with a 400 naming the field in a short
// message. Cheap per input, so it runs thousands a second.
func FuzzRoomBodies(f *testing.F) {
	s, err := NewServer(Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Shutdown(context.Background()) })
	w := s.newClassWeb()
	slug := s.cfg.Lessons.Lessons()[0].Slug
	ex := s.cfg.Lessons.Exercises()[0].ID
	for _, body := range []string{
		``, `{}`, `{"lesson":"` + slug + `"}`, `{"exercise":"` + ex + `"}`, `{"lesson":"x","exercise":"y"}`, `{"lesson":7}`,
		`{"preset":"paused-holder"}`, `{"link":"?preset=paused-holder"}`, `{"lesson":"` + strings.Repeat("a", 300) + `"}`,
		`{"show_me":false}`, `{"open_lessons":["` + slug + `","` + slug + `"]}`, `{"open_lessons":[]}`, `{"open_lessons":null}`,
		`{"deadline":"2026-12-01T17:00:00+01:00"}`, `{"deadline":null}`, `{"deadline":""}`, `{"deadline":"0000-01-01T00:00:00Z"}`,
		`{"deadline":"2026-13-01T00:00:00Z"}`, `{"show_me":1}`, `{"open_lessons":[1]}`, `[]`, `{"deadline":{}}`,
		`{"open_lesson":"` + slug + `"}`, `{"open_lesson":"nope"}`, `{"open_lesson":""}`,
		`{"if_unchanged":{"show_me":true,"open_lessons":[]},"show_me":false}`, `{"if_unchanged":{"show_me":false}}`,
		`{"if_unchanged":{"deadline":"x"}}`, `{"if_unchanged":{"open_lessons":["` + strings.Repeat("a", 300) + `"]}}`,
	} {
		f.Add(false, []byte(body))
		f.Add(true, []byte(body))
	}
	f.Fuzz(func(t *testing.T, settings bool, body []byte) {
		if settings {
			var in settingsRequest
			err := decodeStrict(body, &in)
			var set classroom.Settings
			if err == nil {
				var ch settingsChange
				if ch, err = w.parseSettings(in); err == nil {
					set, err = ch.apply(classroom.DefaultSettings())
				}
			}
			var ue *userError
			if errors.As(err, &ue) && ue.Code == codeSettingsChanged {
				// Made against other settings than the class's: refused
				// whatever else it says, naming if_unchanged.
				if ue.Status != 409 || ue.Field != "if_unchanged" {
					t.Fatalf("%q: refused as changed with %d naming %q", body, ue.Status, ue.Field)
				}
				return
			}
			if err != nil {
				refusedNamingField(t, string(body), err)
				return
			}
			if err := classroom.CheckSettings(set); err != nil {
				t.Fatalf("%q: accepted %+v, which the store refuses: %v", body, set, err)
			}
			text, err := classroom.EncodeSettings(set)
			if err != nil {
				t.Fatal(err)
			}
			back, err := classroom.DecodeSettings(text)
			if err != nil || !reflect.DeepEqual(normal(back), normal(set)) {
				t.Fatalf("%q: %+v is kept as %q and read back as %+v (%v)", body, set, text, back, err)
			}
			return
		}
		var in pushRequest
		err := decodeStrict(body, &in)
		var sc classroom.Scenario
		if err == nil {
			// A scenario document runs the engine's checks: the engine's
			// own fuzz target covers those, this one the rest of the body.
			if len(in.Scenario) > 0 && string(in.Scenario) != "null" {
				return
			}
			sc, err = validatePush(in)
		}
		if err == nil {
			err = w.checkPushedPage(sc)
		}
		if err != nil {
			refusedNamingField(t, string(body), err)
			return
		}
		if err := classroom.CheckScenario(sc); err != nil {
			t.Fatalf("%q: accepted %+v, which the store refuses: %v", body, sc, err)
		}
	})
}

// normal makes a nil and an empty list of open lessons, and equal
// deadlines in other zones, compare equal.
func normal(s classroom.Settings) classroom.Settings {
	if s.OpenLessons == nil {
		s.OpenLessons = []string{}
	}
	if s.Deadline != nil {
		d := s.Deadline.UTC()
		s.Deadline = &d
	}
	return s
}

// refusedNamingField fails unless err is a user's 400 that names a field
// in a message of at most 400 characters.
func refusedNamingField(t *testing.T, body string, err error) {
	t.Helper()
	var ue *userError
	var ce *classroom.Error
	switch {
	case errors.As(err, &ue):
		// A key "" is named as it is: the empty field.
		unknown := strings.Contains(ue.Msg, "is not a field of this request")
		if ue.Status != 400 && ue.Status != 413 || ue.Field == "" && !unknown {
			t.Fatalf("%q: refused with %d naming %q: %v", body, ue.Status, ue.Field, err)
		}
	case errors.As(err, &ce):
		field, _, ok := strings.Cut(ce.Message, ":")
		if ce.Code != classroom.EINVALID || !ok || field == "" || strings.ContainsAny(field, " \"") {
			t.Fatalf("%q: refused as %s %q, not a field's error", body, ce.Code, ce.Message)
		}
	default:
		t.Fatalf("%q: refused with %T %v, not a user's error", body, err, err)
	}
	if n := utf8.RuneCountInString(err.Error()); n > 400 {
		t.Fatalf("%q: an error of %d characters", body, n)
	}
}
