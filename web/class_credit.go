package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// Credit on the web side (shared/EXERCISES.md, "Credit"): the store
// scores each attempt (classroom.AttemptScore) and keeps the best; these
// are the places a best score changes, and the teacher's exports of it.
//
// For other work to build on:
//   - classroom.BestScore(p) is a learner's score on an exercise (0 to 1)
//     from their Progress, and lessons.Exercise.Points what the exercise
//     is worth; Server.ExercisePoints reads the points by id.
//   - Config.OnScoreChange is called, through Server.scoreChanged, every
//     time a best score changes: after a check (apiCheck), a teacher's
//     score of an open answer (apiReview) and a regrade (apiRegrade).

// scoreChanged passes a change of a learner's best score on to
// Config.OnScoreChange: the one place where that happens.
func (s *Server) scoreChanged(ctx context.Context, ch classroom.ScoreChange) {
	s.ltiScored(ctx, ch)
	if s.cfg.OnScoreChange != nil {
		s.cfg.OnScoreChange(ctx, ch)
	}
}

// ExercisePoints is what an exercise is worth in a gradebook
// (lessons.Exercise.Points), 1 for one the catalog no longer has.
func (s *Server) ExercisePoints(id string) float64 {
	return s.cfg.Lessons.ExercisePoints(id)
}

// shownVariant is the variant a response may name to this learner: a
// class learner's own stays on the server (its numbers are in the
// prompt; the number itself would only help someone else ask for them),
// so it shows as 0, and a class learner's requests are graded on their
// own whatever variant they name.
func (a *asker) shownVariant() int {
	if lessons.IsClassVariant(a.variant) {
		return 0
	}
	return a.variant
}

// hideClassVariants blanks the class variants in a learner's own
// progress, for the same reason.
func hideClassVariants(prog []classroom.Progress) {
	for i := range prog {
		if lessons.IsClassVariant(prog[i].LastVariant) {
			prog[i].LastVariant = 0
		}
	}
}

// practiceScore is what an attempt outside a class earns, from where the
// practice cookie says the learner stood: the same rules, kept nowhere.
func practiceScore(ex *lessons.Exercise, st lessons.Standing, res lessons.Result) float64 {
	if !res.Graded {
		return 0
	}
	revealed := st.GaveUp || st.Submitted || st.Tries >= lessons.RevealAfter
	tries := st.Tries
	if st.Correct {
		tries++
	}
	return classroom.AttemptScore(ex.CreditRule(), res.Share, res.Correct,
		classroom.Before{Tries: tries, Wrong: st.Tries, Revealed: revealed})
}

// practiceNote is what a right answer after the answer was shown says.
const practiceNote = "Right, after the answer was shown: this is practice and earns no credit."

// creditEndedNote is what a right answer after classroom.CreditTries
// wrong tries that showed no answer (the class was in quiz mode) says.
const creditEndedNote = "Right, after three wrong tries: like an answer after the answer was shown, this earns no credit."

// lateNote is what an answer after the class's deadline says first: it is
// kept, and earns nothing unless the teacher credits it.
const lateNote = "After the class's deadline: this answer is kept for your teacher, marked late, and earns nothing unless they credit it."

// apiAttemptsCSV: GET /api/classes/{code}/attempts.csv with the teacher
// key: every attempt, as typed and as read, its result and score.
func (w *classWeb) apiAttemptsCSV(c echo.Context) error {
	ctx := c.Request().Context()
	cl, err := w.store().Teacher(ctx, c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	all, err := w.store().Attempts(ctx, cl.Code, teacherKey(c), "")
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-attempts.csv"`, cl.Code))
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	return classroom.WriteAttemptsCSV(c.Response(), all)
}

// regradeBody is what POST /api/classes/{code}/regrade answers.
type regradeBody struct {
	Exercise string `json:"exercise"`
	// Attempts counts the attempts rechecked, Changed the learners whose
	// score on the exercise changed.
	Attempts int                     `json:"attempts"`
	Changed  []classroom.ScoreChange `json:"changed"`
}

// apiRegrade: POST /api/classes/{code}/regrade {"exercise": ID} with the
// teacher key. After an exercise's key was fixed (a new binary or
// lessons folder), every kept attempt at it is checked again on its own
// variant, read as it was meant (storedAnswer), and rescored in try
// order; learners whose best score changed are passed on (scoreChanged). Numbers and choices only: a prediction
// or a scenario is graded by the engine's run, not a key, and an open
// answer by the teacher.
func (w *classWeb) apiRegrade(c echo.Context) error {
	ctx := c.Request().Context()
	var in struct {
		Exercise string `json:"exercise"`
	}
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	if in.Exercise == "" {
		return badRequest("exercise", "is required: the id of the exercise whose key was fixed")
	}
	ex, err := w.s.cfg.Lessons.Exercise(in.Exercise)
	if err != nil {
		return badRequest("exercise", "%s is not an exercise of this course", excerpt(in.Exercise))
	}
	if ex.Kind != lessons.KindNumber && ex.Kind != lessons.KindChoice {
		return badRequest("exercise", "%s is a %s exercise: only numbers and choices have a key to fix and regrade", ex.ID, ex.Kind)
	}
	verdicts, err := w.recheck(c, ex, 0)
	if err != nil {
		return err
	}
	changes, err := w.store().Rescore(ctx, c.Param("code"), teacherKey(c), ex.ID, ex.CreditRule(), nil, verdicts)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		w.s.scoreChanged(ctx, ch)
	}
	if changes == nil {
		changes = []classroom.ScoreChange{}
	}
	return writeJSON(c, http.StatusOK, regradeBody{Exercise: ex.ID, Attempts: len(verdicts), Changed: changes})
}

// storedAnswer is a kept attempt's answer as the checker reads it today.
// Letters are not stable: a variant letters its options after shuffling,
// and the shuffle places the right option, so fixing a key can move every
// letter. A choice attempt kept before the shuffle
// (classroom.AnswerKeyLetters) named options by their own keys ("b" was
// option b on every variant), and is rewritten into stable ids; one
// recorded since is read by the stable ids its letters named when it was
// checked (Attempt.Parsed, "option-b"). Anything else is read as typed.
func storedAnswer(ex *lessons.Exercise, a classroom.Attempt) string {
	if ex.Kind != lessons.KindChoice && ex.Kind != lessons.KindPredict {
		return a.Answer
	}
	if a.AnswerFormat == classroom.AnswerKeyLetters {
		return ex.LegacyChoiceAnswer(a.Answer)
	}
	if strings.HasPrefix(a.Parsed, lessons.OptionIDPrefix) {
		return a.Parsed
	}
	return a.Answer
}

// storedRead is what the checker read of a kept attempt, in today's
// terms: a choice read before options were lettered after shuffling
// (classroom.AnswerKeyLetters) was written as the options' own keys
// ("b, d"), and reads as their stable ids ("option-b, option-d"), so it
// counts with the answers given since.
func storedRead(ex *lessons.Exercise, a classroom.Attempt) string {
	if a.AnswerFormat == classroom.AnswerKeyLetters && (ex.Kind == lessons.KindChoice || ex.Kind == lessons.KindPredict) {
		return ex.LegacyChoiceAnswer(a.Parsed)
	}
	return a.Parsed
}
