package web

import (
	"errors"
	"fmt"
	"net/http"
	"sort"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
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
	Lesson     *lessons.Lesson
	Prev, Next *lessons.Lesson
	Number     int // the lesson's place in the course, from 1
	Count      int
	InClass    bool
	// Body is the lesson's text cut where exercises are placed in it (a
	// prediction before what explains it, or before the playground it
	// opens); Exercises are the lesson's other exercises, after the text.
	Body        []lessonPart
	Exercises   []ExerciseView
	Playgrounds map[string]playgroundView // by figure id, for the page script
}

// lessonPart is a piece of a lesson's text and the exercise placed after
// it, if any.
type lessonPart struct {
	HTML     string
	Exercise *ExerciseView
}

// ExerciseView is one exercise as its form shows it to this learner: the
// exercise served for their variant and standing, nothing that answers
// it. The worked solution is fetched once earned
// (GET /api/exercises/{id}/solution), never put in the page.
type ExerciseView struct {
	Served lessons.Served
	// Varies is set when other numbers can be practised; InClass when
	// the learner's class decides their numbers.
	Varies  bool
	InClass bool
	// Gate is set for a prediction that opens a playground.
	Gate   bool
	Review *classroom.Review
	// ClassRevealed says the learner's teacher showed the class the
	// answer (classroom.Settings.Revealed): the form says answers earn
	// nothing now, before one is typed.
	ClassRevealed bool
}

// playgroundView is an embedded playground as the page script needs it:
// the scenario the lesson sets up and a link that opens it in the full
// playground.
type playgroundView struct {
	// Preset is the preset's name and Title its title, both empty for a
	// playground that waits for a prediction.
	Preset   string          `json:"preset"`
	Title    string          `json:"title"`
	Controls []string        `json:"controls"`
	Scenario engine.Scenario `json:"scenario"`
	Share    string          `json:"share"`
	// Predict is the prediction the playground waits for.
	Predict string `json:"predict,omitempty"`
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
	views, inClass, err := s.exerciseViews(c, l)
	if err != nil {
		return err
	}
	d.InClass = inClass
	placed := map[string]bool{}
	for _, seg := range l.Segments {
		part := lessonPart{HTML: seg.HTML}
		if seg.Exercise != "" {
			v := views[seg.Exercise]
			part.Exercise = &v
			placed[seg.Exercise] = true
		}
		d.Body = append(d.Body, part)
	}
	for _, id := range l.ExerciseIDs {
		if !placed[id] {
			d.Exercises = append(d.Exercises, views[id])
		}
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
	c.Response().Header().Set("Cache-Control", "no-store")
	return s.render(c, http.StatusOK, LessonPage(pg, d))
}

// exerciseViews serves each of a lesson's exercises for whoever asks: a
// class learner on their variant with the store's record of their tries
// (one read for the page), anyone else on the lesson's numbers with their
// practice cookie. A page never fails over a stale class cookie: it
// serves the lesson's numbers, and the checker, which needs the session,
// says what is wrong.
func (s *Server) exerciseViews(c echo.Context, l *lessons.Lesson) (map[string]ExerciseView, bool, error) {
	cat := s.cfg.Lessons
	out := map[string]ExerciseView{}
	ls, err := s.learnerStateOf(c)
	if err != nil && mapError(err).Status == http.StatusUnauthorized {
		ls, err = s.anonymousState(c)
	}
	if err != nil {
		return nil, false, err
	}
	for _, ex := range cat.LessonExercises(l) {
		a := ls.on(ex, 0)
		served, err := a.serve()
		if err != nil {
			return nil, false, fmt.Errorf("exercise %s: %w", ex.ID, err)
		}
		out[ex.ID] = ExerciseView{Served: served, Varies: ex.Varies(), InClass: ls.inClass(),
			Gate: cat.GatesPlayground(ex.ID), Review: a.review,
			ClassRevealed: ls.inClass() && ls.class.Settings.RevealedToClass(ex.ID)}
	}
	return out, ls.inClass(), nil
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
	title, preset := p.Title, pg.Preset
	if pg.Predict != "" {
		// A preset's title says what goes wrong ("A paused holder
		// writes late"), its watch text tells the whole outcome, and its
		// name can say it as plainly ("restart-forgets"): in the page's
		// data, or in a share link a learner decodes, they would answer
		// the prediction. The run and its verdict say it after.
		title, preset = "", ""
		sc.Title, sc.Question, sc.Watch = "", "", ""
	}
	share, err := EncodeShare(sc)
	if err != nil {
		return playgroundView{}, err
	}
	controls := pg.Controls
	if controls == nil {
		controls = []string{}
	}
	return playgroundView{Preset: preset, Title: title, Controls: controls, Scenario: sc, Share: "/playground?s=" + share, Predict: pg.Predict}, nil
}

// lessonPageJSON is the data the lesson page's script starts from.
func lessonPageJSON(d LessonPageData) any {
	return map[string]any{
		"slug":        d.Lesson.Slug,
		"in_class":    d.InClass,
		"playgrounds": d.Playgrounds,
		"backends":    TheCatalog().Backends,
	}
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
