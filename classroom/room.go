package classroom

import (
	"encoding/json"
	"slices"
	"time"
	"unicode/utf8"
)

// ChangeSettings follows a change of the class's settings.
const ChangeSettings = "settings"

// Bounds of the settings.
const (
	// MaxOpenLessons bounds open_lessons: more than any course has.
	MaxOpenLessons = 64
	// MaxSlugLen bounds a lesson slug or an exercise id in a push or the
	// settings.
	MaxSlugLen = 100
	// MaxRevealed bounds revealed: more than any course has exercises.
	MaxRevealed = 500
)

// Settings is how a teacher paces a class (POST /api/classes/{code}/settings).
type Settings struct {
	// ShowMe is false in quiz mode: giving up, "show me" and solutions are
	// refused to the class's learners, and the pages hide them.
	ShowMe bool `json:"show_me"`
	// OpenLessons lists the lessons open to the class; empty opens all.
	OpenLessons []string `json:"open_lessons"`
	// Deadline, when set, is after which attempts are kept but marked
	// late and earn nothing.
	Deadline *time.Time `json:"deadline,omitempty"`
	// Revealed lists the exercises whose answer the teacher showed the
	// whole class (the predictions chart's reveal): an attempt at one
	// after that is recorded as after the reveal, and earns nothing, as
	// after "show me".
	Revealed []string `json:"revealed,omitempty"`
}

// RevealedToClass reports whether the teacher showed the whole class the
// answer to exercise (Settings.Revealed).
func (s Settings) RevealedToClass(exercise string) bool { return slices.Contains(s.Revealed, exercise) }

// DefaultSettings are a new class's: everything open, no deadline.
func DefaultSettings() Settings { return Settings{ShowMe: true, OpenLessons: []string{}} }

// LessonOpen reports whether lesson slug is open to the class.
func (s Settings) LessonOpen(slug string) bool {
	if len(s.OpenLessons) == 0 {
		return true
	}
	for _, o := range s.OpenLessons {
		if o == slug {
			return true
		}
	}
	return false
}

// Late reports whether an attempt at t comes after the deadline.
func (s Settings) Late(t time.Time) bool { return s.Deadline != nil && t.After(*s.Deadline) }

// CheckSettings validates settings: bounded, slugs well formed, the
// deadline a real time. Whether a slug names a lesson is the web layer's
// check (it has the catalog).
func CheckSettings(s Settings) error {
	if len(s.OpenLessons) > MaxOpenLessons {
		return Errorf(EINVALID, "open_lessons: at most %d lessons (it has %d)", MaxOpenLessons, len(s.OpenLessons))
	}
	for _, slug := range s.OpenLessons {
		if err := checkSlug("open_lessons", slug); err != nil {
			return err
		}
	}
	if len(s.Revealed) > MaxRevealed {
		return Errorf(EINVALID, "revealed: at most %d exercises (it has %d)", MaxRevealed, len(s.Revealed))
	}
	for _, id := range s.Revealed {
		if err := checkSlug("revealed", id); err != nil {
			return err
		}
	}
	if s.Deadline != nil && (s.Deadline.Year() < 2000 || s.Deadline.Year() > 9999) {
		return Errorf(EINVALID, "deadline: must be between the years 2000 and 9999")
	}
	return nil
}

// checkSlug checks a lesson slug or exercise id: lower-case letters,
// digits, dashes, dots, slashes and underscores, at most MaxSlugLen.
func checkSlug(field, s string) error {
	if s == "" {
		return Errorf(EINVALID, "%s: must not be empty", field)
	}
	if n := utf8.RuneCountInString(s); n > MaxSlugLen {
		return Errorf(EINVALID, "%s: must be at most %d characters (it has %d)", field, MaxSlugLen, n)
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || r == '/' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return Errorf(EINVALID, "%s: %s is not a lesson or exercise id", field, Excerpt(s, ExcerptLen))
		}
	}
	return nil
}

// EncodeSettings is how a store keeps settings: "" for the defaults.
func EncodeSettings(s Settings) (string, error) {
	if s.ShowMe && len(s.OpenLessons) == 0 && s.Deadline == nil && len(s.Revealed) == 0 {
		return "", nil
	}
	b, err := json.Marshal(s)
	return string(b), err
}

// DecodeSettings reads what EncodeSettings wrote.
func DecodeSettings(text string) (Settings, error) {
	s := DefaultSettings()
	if text == "" {
		return s, nil
	}
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return DefaultSettings(), err
	}
	if s.OpenLessons == nil {
		s.OpenLessons = []string{}
	}
	return s, nil
}
