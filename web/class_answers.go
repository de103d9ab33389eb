package web

import (
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// dashMistakes is how many mistakes per exercise the dashboard shows.
const dashMistakes = 3

// dashMistake is one misconception in a class as the teacher reads it,
// and as GET /api/classes/{code}/mistakes returns it: what it is in
// words, how many learners made it, and each one's own answer and
// variant (their numbers).
type dashMistake struct {
	Exercise string `json:"exercise"`
	// Mistake says it in words ("counted the runs that finish in time");
	// ID is the checker's name for it, empty for unnamed wrong answers,
	// which Value (the answer as read) groups instead.
	Mistake  string                      `json:"mistake"`
	ID       string                      `json:"id"`
	Value    string                      `json:"value,omitempty"`
	Count    int                         `json:"count"`
	Learners []classroom.MistakeInstance `json:"learners"`
}

// mistakeViews labels a class's mistake groups from the catalog.
func (w *classWeb) mistakeViews(groups []classroom.MistakeGroup) []dashMistake {
	out := make([]dashMistake, 0, len(groups))
	for _, g := range groups {
		m := dashMistake{Exercise: g.Exercise, ID: g.Mistake, Value: g.Value, Count: g.Count, Learners: g.Learners}
		switch {
		case g.Mistake == "":
			m.Mistake = "answered " + g.Value
		case w.s.cfg.Lessons != nil:
			m.Mistake = g.Mistake
			if ex, err := w.s.cfg.Lessons.Exercise(g.Exercise); err == nil {
				m.Mistake = ex.MistakeLabel(g.Mistake)
			}
		default:
			m.Mistake = g.Mistake
		}
		out = append(out, m)
	}
	return out
}

// exerciseTitle is an exercise's title and kind from the catalog, or its
// id for one the catalog no longer has.
func (w *classWeb) exerciseTitle(id string) (title, kind string) {
	if w.s.cfg.Lessons != nil {
		if ex, err := w.s.cfg.Lessons.Exercise(id); err == nil && ex.Title != "" {
			return ex.Title, ex.Kind
		}
	}
	return id, ""
}

// dashAnswer is a learner's latest open answer to an exercise, with the
// teacher's review, for the dashboard's list to score.
type dashAnswer struct {
	LearnerID     int64     `json:"learner_id"`
	Learner       string    `json:"learner"`
	Exercise      string    `json:"exercise"`
	ExerciseTitle string    `json:"exercise_title"`
	Variant       int       `json:"variant"`
	Answer        string    `json:"answer"`
	At            time.Time `json:"at"`
	// Earlier counts the learner's earlier answers to the exercise (all
	// are in answers.csv), and EarlierAnswers are the latest of them,
	// newest first, at most maxEarlier.
	Earlier        int             `json:"earlier"`
	EarlierAnswers []earlierAnswer `json:"earlier_answers"`
	// SawModel is set when the learner had seen the model answer (they
	// gave up, or an earlier answer showed it) before writing this one.
	SawModel bool              `json:"saw_model"`
	Review   *classroom.Review `json:"review,omitempty"`
	// Rescore says the teacher scored the learner's earlier answer and
	// this one came since: its score (Review's) stands until the teacher
	// scores this one, and it counts among the answers to mark. Late
	// says it came after the class's deadline.
	Rescore bool `json:"rescore"`
	Late    bool `json:"late"`
}

// earlierAnswer is one of a learner's earlier answers to an open question.
type earlierAnswer struct {
	Answer   string    `json:"answer"`
	At       time.Time `json:"at"`
	SawModel bool      `json:"saw_model"`
}

// maxEarlier bounds the earlier answers a card shows; answers.csv has
// them all.
const maxEarlier = 5

// answerViews keeps each learner's latest answer per exercise, newest
// first.
func (w *classWeb) answerViews(all []classroom.TextAnswer) []dashAnswer {
	type key struct {
		learner  int64
		exercise string
	}
	at := map[key]int{}
	var out []dashAnswer
	for _, a := range all {
		k := key{a.LearnerID, a.Exercise}
		title, _ := w.exerciseTitle(a.Exercise)
		v := dashAnswer{LearnerID: a.LearnerID, Learner: a.LearnerName, Exercise: a.Exercise, ExerciseTitle: title,
			Variant: a.Variant, Answer: a.Answer, At: a.At, Review: a.Review, SawModel: a.AfterReveal,
			Rescore: a.Review != nil && !a.Reviewed(), Late: a.Late, EarlierAnswers: []earlierAnswer{}}
		if i, ok := at[k]; ok {
			prev := out[i]
			v.Earlier = prev.Earlier + 1
			v.EarlierAnswers = append([]earlierAnswer{{Answer: prev.Answer, At: prev.At, SawModel: prev.SawModel}}, prev.EarlierAnswers...)
			if len(v.EarlierAnswers) > maxEarlier {
				v.EarlierAnswers = v.EarlierAnswers[:maxEarlier]
			}
			out[i] = v
			continue
		}
		at[k] = len(out)
		out = append(out, v)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	if out == nil {
		out = []dashAnswer{}
	}
	return out
}

// dashKey is what the teacher marks one open exercise against: its model
// answer and rubric, shown once above the answers to it.
type dashKey struct {
	Exercise string `json:"exercise"`
	Title    string `json:"title"`
	Model    string `json:"model_answer"`
	// ModelHTML is Model rendered by the lessons package: the page shows
	// it as it comes and renders no Markdown itself.
	ModelHTML string   `json:"model_answer_html"`
	Points    []string `json:"rubric"`
}

// answerKeys returns the keys of the exercises the answers are to, in the
// order the exercises first appear among them.
func (w *classWeb) answerKeys(answers []dashAnswer) []dashKey {
	out := []dashKey{}
	if w.s.cfg.Lessons == nil {
		return out
	}
	seen := map[string]bool{}
	for _, a := range answers {
		if seen[a.Exercise] {
			continue
		}
		seen[a.Exercise] = true
		ex, err := w.s.cfg.Lessons.Exercise(a.Exercise)
		if err != nil {
			continue
		}
		model, rubric := ex.AnswerKey()
		if model == "" && len(rubric) == 0 {
			continue
		}
		k := dashKey{Exercise: a.Exercise, Title: a.ExerciseTitle, Model: model, ModelHTML: ex.ModelAnswerHTML(), Points: make([]string, len(rubric))}
		for i, p := range rubric {
			k.Points[i] = p.Point
		}
		out = append(out, k)
	}
	return out
}

// reviewRequest is the body of POST /api/classes/{code}/reviews.
type reviewRequest struct {
	LearnerID int64    `json:"learner_id"`
	Exercise  string   `json:"exercise"`
	Score     *float64 `json:"score"`
	Comment   string   `json:"comment"`
}

// apiReview: POST /api/classes/{code}/reviews {"learner_id", "exercise",
// "score" 0..1, "comment"} with the teacher key. The exercise must be of
// the catalog: an open (text) one, or a checker-graded one the store finds
// revealed to the learner (a revealed exercise scores 0 unless the teacher
// says otherwise); the store checks the learner and that they answered it.
func (w *classWeb) apiReview(c echo.Context) error {
	var in reviewRequest
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	if in.Score == nil {
		return badRequest("score", "is required: a number from 0 (misses the point) to 1 (covers the rubric)")
	}
	graded := false
	if w.s.cfg.Lessons != nil {
		ex, err := w.s.cfg.Lessons.Exercise(in.Exercise)
		if err != nil {
			return badRequest("exercise", "%q is not an exercise of this course", in.Exercise)
		}
		graded = ex.Kind != lessons.KindText
	}
	ctx := c.Request().Context()
	r, err := w.store().Review(ctx, c.Param("code"), teacherKey(c),
		classroom.Review{LearnerID: in.LearnerID, Exercise: in.Exercise, Score: *in.Score, Comment: in.Comment, Graded: graded})
	if err != nil {
		return err
	}
	if cl, err := w.store().Teacher(ctx, c.Param("code"), teacherKey(c)); err == nil {
		prev := 0.0
		if r.Previous != nil {
			prev = *r.Previous
		}
		ch := classroom.ScoreChange{ClassID: cl.ID, ClassCode: cl.Code, LearnerID: r.LearnerID,
			Exercise: r.Exercise, Score: r.Score, Previous: prev, At: r.At}
		if r.Previous == nil || *r.Previous != r.Score {
			w.s.scoreChanged(ctx, ch)
		} else {
			// The same score, of an answer written since the last one
			// perhaps: the course's gradebook was told it awaits grading,
			// and now it does not (the queue sends only what changed).
			w.s.ltiScored(ctx, ch)
		}
	}
	return writeJSON(c, http.StatusOK, r)
}

// apiMistakes: GET /api/classes/{code}/mistakes with the teacher key: per
// exercise, each named mistake with the learners who made it across
// variants, and unnamed wrong answers grouped by their parsed value.
func (w *classWeb) apiMistakes(c echo.Context) error {
	groups, err := w.store().Mistakes(c.Request().Context(), c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, w.mistakeViews(groups))
}

// apiAnswersCSV: GET /api/classes/{code}/answers.csv with the teacher key:
// every open answer with its score and comment.
func (w *classWeb) apiAnswersCSV(c echo.Context) error {
	cl, err := w.store().Teacher(c.Request().Context(), c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	answers, err := w.store().Answers(c.Request().Context(), cl.Code, teacherKey(c))
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-answers.csv"`, cl.Code))
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	return classroom.WriteAnswersCSV(c.Response(), answers)
}

// apiVariants: POST /api/classes/{code}/variants {"variants": "shared" or
// "per-learner"} with the teacher key.
func (w *classWeb) apiVariants(c echo.Context) error {
	var in struct {
		Variants string `json:"variants"`
	}
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	if in.Variants == "" {
		return badRequest("variants", "is required: %q or %q", classroom.VariantsPerLearner, classroom.VariantsShared)
	}
	cl, err := w.store().SetVariants(c.Request().Context(), c.Param("code"), teacherKey(c), in.Variants)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]string{"code": cl.Code, "variants": cl.Variants})
}

// learnerVariant is the variant a class learner's exercises are drawn
// with: their own, from the class's secret (lessons.ClassVariant), or the
// notes' (0) in a class that shares its numbers.
func learnerVariant(l *classroom.Learner, cl *classroom.Class) int {
	if cl != nil && cl.Variants == classroom.VariantsShared {
		return 0
	}
	return lessons.ClassVariant(cl.VariantSecret, l.VariantKey())
}
