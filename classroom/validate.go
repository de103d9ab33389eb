package classroom

import (
	"encoding/json"
	"strings"
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
	// MaxNotedRuns bounds the exercises one Store.NoteRun names: a run is
	// one scenario, and only a few predictions share one.
	MaxNotedRuns = 64
)

// CheckNotedRuns validates the exercises of a Store.NoteRun.
func CheckNotedRuns(exercises []string) error {
	if len(exercises) > MaxNotedRuns {
		return Errorf(EINVALID, "exercises: at most %d (got %d)", MaxNotedRuns, len(exercises))
	}
	for _, ex := range exercises {
		if n := utf8.RuneCountInString(ex); n == 0 || n > MaxExerciseLen {
			return Errorf(EINVALID, "exercises: each must be 1 to %d characters (one has %d)", MaxExerciseLen, n)
		}
	}
	return nil
}

// CheckAttempt validates an attempt before it is stored and bounds its
// free text. The feedback comes from the checker, not the user, so it is
// cut rather than refused.
func CheckAttempt(a *Attempt) error {
	if n := utf8.RuneCountInString(a.Exercise); n == 0 || n > MaxExerciseLen {
		return Errorf(EINVALID, "exercise: must be 1 to %d characters (it has %d)", MaxExerciseLen, n)
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
	if a.Rule != "" {
		if err := CheckRule(a.Rule); err != nil {
			return err
		}
	}
	if len(a.Feedback) > MaxFeedbackLen {
		a.Feedback = strings.ToValidUTF8(a.Feedback[:MaxFeedbackLen], "")
	}
	return nil
}

// CheckScenario validates a pushed scenario: a preset name or a JSON
// document, not both; both empty clears the push.
func CheckScenario(s Scenario) error {
	n := 0
	for _, v := range []string{s.Preset, s.JSON, s.Lesson, s.Exercise} {
		if v != "" {
			n++
		}
	}
	if s.Lesson != "" {
		if err := checkSlug("lesson", s.Lesson); err != nil {
			return err
		}
	}
	if s.Exercise != "" {
		if err := checkSlug("exercise", s.Exercise); err != nil {
			return err
		}
	}
	switch {
	case n > 1:
		return Errorf(EINVALID, "scenario: give one of a preset, a scenario document, a lesson or an exercise, not %d", n)
	case utf8.RuneCountInString(s.Preset) > MaxPresetLen:
		return Errorf(EINVALID, "preset: must be at most %d characters (it has %d)", MaxPresetLen, utf8.RuneCountInString(s.Preset))
	case len(s.JSON) > MaxScenarioBytes:
		return Errorf(EINVALID, "scenario: must be at most %d bytes (it has %d)", MaxScenarioBytes, len(s.JSON))
	case s.JSON != "" && !json.Valid([]byte(s.JSON)):
		return Errorf(EINVALID, "scenario: must be a JSON document")
	}
	for _, r := range s.Preset {
		if !(r == '-' || r == '_' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9') {
			return Errorf(EINVALID, "preset: %s is not a preset name (lower-case letters, digits and dashes)", Excerpt(s.Preset, ExcerptLen))
		}
	}
	return nil
}
