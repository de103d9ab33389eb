package classroom

import (
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Review is a teacher's score on a learner's open answer to an exercise,
// or on an exercise whose answer was revealed to them:
// a score from 0 to 1 and a comment, one per learner and exercise (a new
// one replaces the old).
type Review struct {
	LearnerID int64     `json:"learner_id"`
	Exercise  string    `json:"exercise"`
	Score     float64   `json:"score"`
	Comment   string    `json:"comment"`
	At        time.Time `json:"at"`
	// Previous is the score this review replaced: nil for a first one of
	// an open answer, the attempts' best for a first one of a revealed
	// exercise. Store.Review sets it, so that a change of score can be
	// sent on.
	Previous *float64 `json:"-"`
	// Graded is set by the caller for an exercise the checker grades: the
	// store then accepts the review only once the answer was revealed to
	// the learner (shared/EXERCISES.md, "Credit": a revealed exercise
	// scores 0 unless the teacher says otherwise).
	Graded bool `json:"-"`
}

// MaxCommentLen bounds a review's comment, in characters.
const MaxCommentLen = 2000

// CheckReview validates a review: an exercise, a score from 0 to 1, a
// comment of at most MaxCommentLen characters.
func CheckReview(r *Review) error {
	switch {
	case r.LearnerID <= 0:
		return Errorf(EINVALID, "learner_id: must be a learner's id, a positive number")
	case r.Exercise == "" || len(r.Exercise) > MaxExerciseLen:
		return Errorf(EINVALID, "exercise: must be 1 to %d characters", MaxExerciseLen)
	case math.IsNaN(r.Score) || r.Score < 0 || r.Score > 1:
		return Errorf(EINVALID, "score: must be from 0 to 1, not %v", r.Score)
	case !utf8.ValidString(r.Comment):
		return Errorf(EINVALID, "comment: must be valid UTF-8 text")
	}
	r.Comment = strings.TrimSpace(r.Comment)
	if n := utf8.RuneCountInString(r.Comment); n > MaxCommentLen {
		return Errorf(EINVALID, "comment: must be at most %d characters (it has %d)", MaxCommentLen, n)
	}
	return nil
}

// TextAnswer is one open answer a learner submitted, with the teacher's
// review of that learner's answers to the exercise, if any: a row of
// answers.csv and of the dashboard's list to score.
type TextAnswer struct {
	LearnerID   int64     `json:"learner_id"`
	LearnerName string    `json:"learner"`
	Exercise    string    `json:"exercise"`
	Variant     int       `json:"variant"`
	Answer      string    `json:"answer"`
	At          time.Time `json:"at"`
	// AfterReveal is set when the learner had seen the model answer (by
	// giving up, or after an earlier submission) before writing this one.
	AfterReveal bool `json:"after_reveal"`
	// Late is set when it came after the class's deadline.
	Late   bool    `json:"late"`
	Review *Review `json:"review,omitempty"`
}

// Reviewed reports whether the teacher's review (of the learner's answers
// to the exercise) was given after this answer: false for an answer
// written since, which the teacher has not scored.
func (a TextAnswer) Reviewed() bool {
	return a.Review != nil && !a.At.After(a.Review.At)
}

// MistakeGroup is one misconception in a class: a named mistake of an
// exercise, counted across variants, or the unnamed wrong answers that
// read as one value. Count is how many learners made it; each is listed
// once, with the last answer they gave in the group.
type MistakeGroup struct {
	Exercise string `json:"exercise"`
	// Mistake is the checker's name for it; empty for unnamed answers,
	// which Value (the answer as the checker read it) groups instead.
	Mistake  string            `json:"mistake"`
	Value    string            `json:"value,omitempty"`
	Count    int               `json:"count"`
	Learners []MistakeInstance `json:"learners"`
}

// MistakeInstance is one learner's answer in a MistakeGroup.
type MistakeInstance struct {
	LearnerID int64  `json:"id"`
	Name      string `json:"name"`
	Answer    string `json:"answer"`
	Variant   int    `json:"variant"`
}

// WrongAttempt is one graded wrong attempt as GroupMistakes reads it.
type WrongAttempt struct {
	Exercise, Mistake, Parsed string
	LearnerID                 int64
	LearnerName, Answer       string
	Variant                   int
}

// GroupMistakes groups wrong attempts, given oldest first: by exercise and
// named mistake, or by exercise and parsed value for unnamed ones. A
// learner counts once per group, with their last answer in it. Groups come
// in exercise order, then most learners first, named before unnamed, then
// by name or value.
func GroupMistakes(wrong []WrongAttempt) []MistakeGroup {
	type key struct{ exercise, mistake, value string }
	groups := map[key]*MistakeGroup{}
	at := map[key]map[int64]int{} // learner -> index in Learners
	for _, w := range wrong {
		k := key{w.Exercise, w.Mistake, ""}
		if w.Mistake == "" {
			k.value = w.Parsed
			if k.value == "" {
				k.value = strings.TrimSpace(w.Answer)
			}
		}
		g := groups[k]
		if g == nil {
			g = &MistakeGroup{Exercise: k.exercise, Mistake: k.mistake, Value: k.value, Learners: []MistakeInstance{}}
			groups[k], at[k] = g, map[int64]int{}
		}
		in := MistakeInstance{LearnerID: w.LearnerID, Name: w.LearnerName, Answer: w.Answer, Variant: w.Variant}
		if i, ok := at[k][w.LearnerID]; ok {
			g.Learners[i] = in
			continue
		}
		at[k][w.LearnerID] = len(g.Learners)
		g.Learners = append(g.Learners, in)
		g.Count++
	}
	out := make([]MistakeGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Exercise != b.Exercise:
			return a.Exercise < b.Exercise
		case a.Count != b.Count:
			return a.Count > b.Count
		case (a.Mistake == "") != (b.Mistake == ""):
			return a.Mistake != ""
		case a.Mistake != b.Mistake:
			return a.Mistake < b.Mistake
		}
		return a.Value < b.Value
	})
	return out
}

// MaxMistakeLen bounds a recorded mistake name and parsed answer.
const MaxMistakeLen = 200

// CheckMistake bounds what an attempt says about its mistake, clipping
// rather than refusing: it comes from the checker, not the learner.
func CheckMistake(a *Attempt) error {
	if len(a.Mistake) > MaxMistakeLen {
		a.Mistake = strings.ToValidUTF8(a.Mistake[:MaxMistakeLen], "")
	}
	if len(a.Parsed) > MaxMistakeLen {
		a.Parsed = strings.ToValidUTF8(a.Parsed[:MaxMistakeLen], "")
	}
	return nil
}

// CheckVariants validates a class's variants setting; empty means
// VariantsPerLearner.
func CheckVariants(mode string) (string, error) {
	switch mode {
	case "", VariantsPerLearner:
		return VariantsPerLearner, nil
	case VariantsShared:
		return VariantsShared, nil
	}
	return "", Errorf(EINVALID, "variants: must be %q (each learner their own numbers) or %q (everyone the notes' numbers), not %q", VariantsPerLearner, VariantsShared, mode)
}
