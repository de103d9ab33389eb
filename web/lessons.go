package web

import (
	"errors"
	"fmt"
	"net/http"
	"sort"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
)

// lessonRoutes registers the lesson pages, the exercise checker and the
// JSON lists for scripting.
func (s *Server) lessonRoutes(e *echo.Echo) {
	e.GET("/lessons", s.lessonIndex)
	e.GET("/lessons/:slug", s.lessonPage)
	e.GET("/lessons/", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/lessons") })
	e.GET("/api/lessons", s.apiLessons)
	e.GET("/api/exercises", s.apiExercises)
	e.GET("/api/exercises/:id", s.apiExercise)
	e.GET("/api/exercises/:id/solution", s.apiSolution)
	e.POST(checkRoute, s.apiCheck)
	e.POST(giveUpRoute, s.apiGiveUp)
}

// LessonIndexData is what the lesson index shows: every lesson in
// teaching order with its exercises.
type LessonIndexData struct {
	Lessons []LessonEntry
}

// LessonEntry is one lesson of the index.
type LessonEntry struct {
	Lesson    *lessons.Lesson
	Exercises []*lessons.Exercise
}

func (s *Server) lessonIndex(c echo.Context) error {
	return s.render(c, http.StatusOK, LessonIndexPage(s.page("Lessons"), s.lessonEntries()))
}

func (s *Server) lessonEntries() LessonIndexData {
	cat := s.cfg.Lessons
	var d LessonIndexData
	for _, l := range cat.Lessons() {
		d.Lessons = append(d.Lessons, LessonEntry{Lesson: l, Exercises: cat.LessonExercises(l)})
	}
	return d
}

// LessonPageData is everything a lesson page is built from.
type LessonPageData struct {
	Lesson      *lessons.Lesson
	Prev, Next  *lessons.Lesson
	Number      int // the lesson's place in the course, from 1
	Count       int
	Variant     int // the variant its exercises are drawn with
	InClass     bool
	Exercises   []ExerciseView
	Playgrounds map[string]playgroundView // by figure id, for the page script
}

// ExerciseView is one exercise's form and its worked solution, which the
// page offers on request.
type ExerciseView struct {
	Exercise *lessons.Exercise
	Form     templ.Component
	Solution templ.Component
}

// playgroundView is an embedded playground as the page script needs it:
// the scenario the lesson sets up and a link that opens it in the full
// playground.
type playgroundView struct {
	Preset   string          `json:"preset"`
	Title    string          `json:"title"`
	Controls []string        `json:"controls"`
	Scenario engine.Scenario `json:"scenario"`
	Share    string          `json:"share"`
}

func (s *Server) lessonPage(c echo.Context) error {
	cat := s.cfg.Lessons
	l, err := cat.Lesson(c.Param("slug"))
	if errors.Is(err, lessons.ErrUnknown) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("There is no lesson %q. The lesson index lists them all.", c.Param("slug")))
	}
	if err != nil {
		return err
	}
	d := LessonPageData{Lesson: l, Count: len(cat.Lessons()), Playgrounds: map[string]playgroundView{}}
	for i, x := range cat.Lessons() {
		if x == l {
			d.Number = i + 1
			if i > 0 {
				d.Prev = cat.Lessons()[i-1]
			}
			if i+1 < len(cat.Lessons()) {
				d.Next = cat.Lessons()[i+1]
			}
		}
	}
	// A learner in a class gets their own numbers; anyone else the notes'.
	if v, ok := s.classVariant(c); ok {
		d.Variant, d.InClass = v, true
	}
	for _, ex := range cat.LessonExercises(l) {
		form, err := ex.FormHTML(d.Variant)
		if err != nil {
			return fmt.Errorf("exercise %s: %w", ex.ID, err)
		}
		_, sol, err := ex.Solution(d.Variant)
		if err != nil {
			return fmt.Errorf("exercise %s: solution: %w", ex.ID, err)
		}
		d.Exercises = append(d.Exercises, ExerciseView{Exercise: ex, Form: templ.Raw(form), Solution: templ.Raw(sol)})
	}
	for _, pg := range l.Playgrounds {
		v, err := newPlaygroundView(pg)
		if err != nil {
			return fmt.Errorf("lesson %s, %s: %w", l.Slug, pg.ID, err)
		}
		d.Playgrounds[pg.ID] = v
	}
	pg := s.page("Lessons")
	pg.Title = l.Title
	return s.render(c, http.StatusOK, LessonPage(pg, d))
}

// newPlaygroundView applies a marker's settings to its preset, the way
// the lessons package checks them at load time.
func newPlaygroundView(pg lessons.Playground) (playgroundView, error) {
	p, err := engine.LoadPreset(pg.Preset)
	if err != nil {
		return playgroundView{}, err
	}
	sc := p.Scenario
	keys := make([]string, 0, len(pg.Set))
	for k := range pg.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if sc, err = engine.SetField(sc, k, pg.Set[k]); err != nil {
			return playgroundView{}, fmt.Errorf("set %s: %w", k, err)
		}
	}
	share, err := EncodeShare(sc)
	if err != nil {
		return playgroundView{}, err
	}
	controls := pg.Controls
	if controls == nil {
		controls = []string{}
	}
	return playgroundView{Preset: pg.Preset, Title: p.Title, Controls: controls, Scenario: sc, Share: "/playground?s=" + share}, nil
}

// lessonPageJSON is the data the lesson page's script starts from.
func lessonPageJSON(d LessonPageData) any {
	return map[string]any{
		"slug":        d.Lesson.Slug,
		"variant":     d.Variant,
		"in_class":    d.InClass,
		"playgrounds": d.Playgrounds,
		"backends":    TheCatalog().Backends,
	}
}

// classVariant is the variant of the learner whose class session the
// request carries, if there is a class store and the session is valid.
// A page never fails over a stale cookie: it falls back to variant 0, and
// the checker, which does need the session, says what is wrong.
func (s *Server) classVariant(c echo.Context) (int, bool) {
	token := learnerToken(c)
	if token == "" || s.cfg.Classroom == nil {
		return 0, false
	}
	l, _, err := s.cfg.Classroom.Learner(c.Request().Context(), token)
	if err != nil {
		return 0, false
	}
	return lessons.VariantFor(l.VariantKey()), true
}

// lessonSummary is one lesson in GET /api/lessons.
type lessonSummary struct {
	Slug      string   `json:"slug"`
	Title     string   `json:"title"`
	Order     int      `json:"order"`
	Summary   string   `json:"summary"`
	Question  string   `json:"question"`
	URL       string   `json:"url"`
	Exercises []string `json:"exercises"`
	Presets   []string `json:"presets"`
}

func (s *Server) apiLessons(c echo.Context) error {
	out := []lessonSummary{}
	for _, l := range s.cfg.Lessons.Lessons() {
		ids := l.ExerciseIDs
		if ids == nil {
			ids = []string{}
		}
		out = append(out, lessonSummary{Slug: l.Slug, Title: l.Title, Order: l.Order, Summary: l.Summary,
			Question: l.Question, URL: "/lessons/" + l.Slug, Exercises: ids, Presets: l.Presets})
	}
	return writeJSON(c, http.StatusOK, out)
}

// exerciseSummary is one exercise in GET /api/exercises.
type exerciseSummary struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Title  string `json:"title"`
	Lesson string `json:"lesson"`
	URL    string `json:"url"`
	Check  string `json:"check"`
}

func (s *Server) apiExercises(c echo.Context) error {
	out := []exerciseSummary{}
	for _, ex := range s.cfg.Lessons.Exercises() {
		out = append(out, exerciseSummary{ID: ex.ID, Kind: ex.Kind, Title: ex.Title, Lesson: ex.Lesson,
			URL: "/lessons/" + ex.Lesson + "#exercise-" + ex.ID, Check: "/api/exercises/" + ex.ID + "/check"})
	}
	return writeJSON(c, http.StatusOK, out)
}
