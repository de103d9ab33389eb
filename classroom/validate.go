package classroom

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of what a user types. Names are for a dashboard row and a CSV cell;
// an answer is as long as the checker accepts (lessons.MaxAnswerLen).
const (
	MaxNameLen       = 40
	MaxAnswerLen     = 2000
	MaxFeedbackLen   = 4000
	MaxExerciseLen   = 100
	MaxPresetLen     = 100
	MaxScenarioBytes = 64 << 10
)

// CleanName trims a class or learner name and checks it: 1 to MaxNameLen
// characters, valid UTF-8, no control characters. field names the field in
// the error ("name"). The name is kept as typed otherwise: "<script>" is a
// valid name, and escaping it is the job of whatever displays it.
func CleanName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
	if !utf8.ValidString(name) {
		return "", Errorf(EINVALID, "%s: must be valid UTF-8 text", field)
	}
	n := utf8.RuneCountInString(name)
	if n == 0 {
		return "", Errorf(EINVALID, "%s: must not be empty", field)
	}
	if n > MaxNameLen {
		return "", Errorf(EINVALID, "%s: must be at most %d characters (it has %d)", field, MaxNameLen, n)
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return "", Errorf(EINVALID, "%s: must not contain control characters or line breaks", field)
		}
	}
	return name, nil
}

// NameKey returns the form of a cleaned name that must be unique in a
// class: "Ana" and "ana" are the same person on a dashboard.
func NameKey(name string) string { return strings.ToLower(name) }

// CheckAttempt validates an attempt before it is stored and bounds its
// free text. The feedback comes from the checker, not the user, so it is
// cut rather than refused.
func CheckAttempt(a *Attempt) error {
	if a.Exercise == "" || len(a.Exercise) > MaxExerciseLen {
		return Errorf(EINVALID, "exercise: must be 1 to %d characters", MaxExerciseLen)
	}
	if !utf8.ValidString(a.Answer) {
		return Errorf(EINVALID, "answer: must be valid UTF-8 text")
	}
	if n := utf8.RuneCountInString(a.Answer); n > MaxAnswerLen {
		return Errorf(EINVALID, "answer: must be at most %d characters (it has %d)", MaxAnswerLen, n)
	}
	if a.Variant < 0 {
		return Errorf(EINVALID, "variant: must not be negative")
	}
	if a.Correct && !a.Graded {
		return Errorf(EINVALID, "correct: an ungraded attempt cannot be correct")
	}
	if len(a.Feedback) > MaxFeedbackLen {
		a.Feedback = strings.ToValidUTF8(a.Feedback[:MaxFeedbackLen], "")
	}
	return nil
}

// CheckScenario validates a pushed scenario: a preset name or a JSON
// document, not both; both empty clears the push.
func CheckScenario(s Scenario) error {
	switch {
	case s.Preset != "" && s.JSON != "":
		return Errorf(EINVALID, "scenario: give a preset or a scenario document, not both")
	case len(s.Preset) > MaxPresetLen:
		return Errorf(EINVALID, "preset: must be at most %d characters", MaxPresetLen)
	case len(s.JSON) > MaxScenarioBytes:
		return Errorf(EINVALID, "scenario: must be at most %d bytes (it has %d)", MaxScenarioBytes, len(s.JSON))
	case s.JSON != "" && !json.Valid([]byte(s.JSON)):
		return Errorf(EINVALID, "scenario: must be a JSON document")
	}
	for _, r := range s.Preset {
		if !(r == '-' || r == '_' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9') {
			return Errorf(EINVALID, "preset: %q is not a preset name (lower-case letters, digits and dashes)", s.Preset)
		}
	}
	return nil
}
