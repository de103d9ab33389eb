package web

import (
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// predictionCount is one answer the class gave first, and how many did.
type predictionCount struct {
	Answer string `json:"answer"`
	// Label is a chosen option's text (several joined by " + "), so the
	// chart reads as the question did; empty for a number.
	Label string `json:"label,omitempty"`
	Count int    `json:"count"`
	// RanFirst counts those of Count who had run the prediction's very
	// scenario before answering (classroom.Attempt.AfterRun).
	RanFirst int `json:"ran_first,omitempty"`
	// Right is there only once the teacher reveals it, so a projected
	// chart does not give the answer away before the class has discussed.
	Right *bool `json:"right,omitempty"`
}

// predictionsBody is GET /api/classes/{code}/predictions.
type predictionsBody struct {
	Exercise string            `json:"exercise"`
	Title    string            `json:"title"`
	Answers  []predictionCount `json:"answers"`
	Total    int               `json:"total"`
	// RanFirst counts the learners of Total whose first answer came after
	// they had run the prediction's very scenario in the playground (on
	// the home page's advice, a shared link, or to peek): the teacher
	// reads the chart knowing it. Nothing is scored by it.
	RanFirst int  `json:"ran_first"`
	Revealed bool `json:"revealed"`
	// ClassRevealed is whether the teacher has revealed the exercise to
	// the class (classroom.Settings.Revealed): its credit has ended, and
	// the dashboard shows the answer again without asking.
	ClassRevealed bool `json:"class_revealed"`
}

// apiPredictions: GET /api/classes/{code}/predictions?exercise=ID[&reveal=1]
// with the teacher key: the class's first answers to a predict or choice
// exercise, grouped by what the checker read (the value, or the options),
// most given first. A learner's later tries are left out: peer
// instruction counts what each thought before discussing. reveal=1 marks
// the right answer and changes nothing: the class's reveal, which ends
// the exercise's credit, is a POST (apiReveal). class_revealed says
// whether that POST was made.
func (w *classWeb) apiPredictions(c echo.Context) error {
	reveal := false
	switch c.QueryParam("reveal") {
	case "", "0":
	case "1":
		reveal = true
	default:
		return badRequest("reveal", "must be 1 or 0 (got %s)", excerpt(c.QueryParam("reveal")))
	}
	ex, err := w.chartExercise(c.QueryParam("exercise"))
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	all, err := w.store().Attempts(ctx, c.Param("code"), teacherKey(c), ex.ID)
	if err != nil {
		return err
	}
	cl, err := w.store().Teacher(ctx, c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	body := countFirst(ex, all, reveal)
	body.ClassRevealed = cl.Settings.RevealedToClass(ex.ID)
	c.Response().Header().Set("Cache-Control", "no-store")
	return writeJSON(c, http.StatusOK, body)
}

// apiReveal: POST /api/classes/{code}/reveal {"exercise": ID} with the
// teacher key: the teacher shows the class the right answer on the
// predictions chart (revealToClass). A POST, refused cross-site like every
// class write: a GET a link or a prefetch can send must not end a class's
// credit. Posting it again for an exercise already revealed answers
// "already": true and changes nothing; posting it to an archived or
// expired class answers 409, saying why, and changes nothing either.
func (w *classWeb) apiReveal(c echo.Context) error {
	var in struct {
		Exercise string `json:"exercise"`
	}
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	ex, err := w.chartExercise(in.Exercise)
	if err != nil {
		return err
	}
	already, err := w.revealToClass(c, ex.ID)
	if err != nil {
		return err
	}
	body := map[string]any{"exercise": ex.ID, "revealed": true}
	if already {
		body["already"] = true
		body["message"] = "already revealed to the class: nothing changed"
	}
	return writeJSON(c, http.StatusOK, body)
}

// chartExercise is the exercise the predictions chart counts and the
// class's reveal ends the credit of, by its id: a prediction, a choice or
// a number. Any other kind has no answer the chart can show, so it can be
// neither counted nor revealed (400, naming the field).
func (w *classWeb) chartExercise(id string) (*lessons.Exercise, error) {
	if id == "" {
		return nil, badRequest("exercise", "is required: the id of a predict, choice or number exercise")
	}
	if len(id) > classroom.MaxExerciseLen {
		return nil, badRequest("exercise", "must be at most %d characters (it has %d)", classroom.MaxExerciseLen, len(id))
	}
	if w.s.cfg.Lessons == nil {
		return nil, badRequest("exercise", "this server has no lessons")
	}
	ex, err := w.s.cfg.Lessons.Exercise(id)
	if err != nil {
		return nil, badRequest("exercise", "%s is not an exercise of this course", excerpt(id))
	}
	if ex.Kind != lessons.KindPredict && ex.Kind != lessons.KindChoice && ex.Kind != lessons.KindNumber {
		return nil, badRequest("exercise", "%s is a %s exercise: only predictions, choices and numbers are counted and revealed", ex.ID, ex.Kind)
	}
	return ex, nil
}

// revealToClass records that the teacher showed the class the answer to
// an exercise (classroom.Settings.Revealed): the chart on the projector
// says which answer is right, so an answer given after it earns nothing,
// as after "show me". An archived or expired class takes no answers, and
// records nothing: its error (409) says why, as every other change of a
// closed class does. Revealing again an exercise already revealed writes
// nothing and queues nothing, and says so (already): a reveal the score
// queue gave up passing on to a course is sent again by the teacher's
// "Send again" (apiGradesRetry), not by a second reveal.
func (w *classWeb) revealToClass(c echo.Context, exercise string) (already bool, err error) {
	ctx := c.Request().Context()
	cl, err := w.store().Teacher(ctx, c.Param("code"), teacherKey(c))
	if err != nil {
		return false, err
	}
	if cl.Settings.RevealedToClass(exercise) {
		return true, nil
	}
	if err := cl.ClosedError(w.s.cfg.Class.Clock(), "changes"); err != nil {
		return false, err
	}
	was := false
	if _, err = w.store().UpdateSettings(ctx, cl.Code, teacherKey(c), func(cur classroom.Settings) (classroom.Settings, error) {
		if cur.RevealedToClass(exercise) {
			// Revealed meanwhile (another tab): nothing to write.
			was = true
			return cur, errRevealedMeanwhile
		}
		cur.Revealed = append(slices.Clone(cur.Revealed), exercise)
		return cur, nil
	}); was {
		return true, nil
	} else if err != nil {
		return false, err
	}
	// A class of a course: the store queued the reveal for its gradebook
	// with the settings, and the queue's worker passes it on to every
	// learner who came by a launch (lti.Tool.QueueReveals), so that the
	// teacher does not wait for a whole course.
	if w.s.cfg.LTI != nil {
		w.s.cfg.LTI.Wake()
	}
	return false, nil
}

// errRevealedMeanwhile stops the settings' write of a reveal another
// request made first: the write would change nothing.
var errRevealedMeanwhile = errors.New("revealed meanwhile")

// countFirst counts each learner's first graded attempt by what the
// checker read, unless it came after the answer was shown to them.
func countFirst(ex *lessons.Exercise, all []classroom.ClassAttempt, reveal bool) predictionsBody {
	out := predictionsBody{Exercise: ex.ID, Title: ex.Title, Answers: []predictionCount{}, Revealed: reveal}
	seen := map[int64]bool{}
	at := map[string]int{}
	right := map[string]bool{}
	for _, a := range all {
		if !a.Graded || seen[a.LearnerID] {
			continue
		}
		seen[a.LearnerID] = true
		if a.AfterReveal {
			// Given after the answer was shown (on the chart, or by "show
			// me"): not what they thought before.
			continue
		}
		key := strings.TrimSpace(storedRead(ex, a.Attempt))
		if key == "" {
			key = strings.TrimSpace(a.Answer)
		}
		i, ok := at[key]
		if !ok {
			i = len(out.Answers)
			at[key] = i
			out.Answers = append(out.Answers, predictionCount{Answer: key})
		}
		out.Answers[i].Count++
		right[key] = right[key] || a.Correct
		out.Total++
		if a.AfterRun {
			out.Answers[i].RanFirst++
			out.RanFirst++
		}
	}
	texts := map[string]string{}
	if sv, err := ex.Serve(0, lessons.Standing{}); err == nil {
		for _, o := range sv.Options {
			// Answers are counted as the checker read them (the stable id),
			// or as sent when it read nothing (the id a form sends).
			texts[o.Stable], texts[o.ID] = o.Text, o.Text
		}
	}
	for i := range out.Answers {
		var parts []string
		for _, id := range strings.Split(out.Answers[i].Answer, ", ") {
			if t, ok := texts[id]; ok {
				parts = append(parts, t)
			}
		}
		out.Answers[i].Label = strings.Join(parts, " + ")
	}
	sort.SliceStable(out.Answers, func(i, j int) bool { return out.Answers[i].Count > out.Answers[j].Count })
	if reveal {
		for i := range out.Answers {
			r := right[out.Answers[i].Answer]
			out.Answers[i].Right = &r
		}
	}
	return out
}
