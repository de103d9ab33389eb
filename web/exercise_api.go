package web

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// giveUpRoute is the route pattern of "show me": rate-limited and guarded
// against cross-site requests like a check, since it may run the engine.
const giveUpRoute = "/api/exercises/:id/give-up"

// learnerState is who is asking, read once per request: a class learner
// (their session, class and recorded progress) or an anonymous learner
// (their signed practice cookie).
type learnerState struct {
	token    string
	learner  *classroom.Learner
	class    *classroom.Class
	progress map[string]classroom.Progress

	key      []byte
	practice practiceState
}

func (ls *learnerState) inClass() bool { return ls.learner != nil }

// learnerStateOf reads who asks: the class session when there is one and
// a store, else the practice cookie.
func (s *Server) learnerStateOf(c echo.Context) (*learnerState, error) {
	ctx := c.Request().Context()
	if token := learnerToken(c); token != "" && s.cfg.Classroom != nil {
		l, cl, err := s.cfg.Classroom.Learner(ctx, token)
		if err != nil {
			return nil, err
		}
		prog, err := s.cfg.Classroom.LearnerProgress(ctx, cl.Code, classroom.Credentials{Session: token}, l.ID)
		if err != nil {
			return nil, err
		}
		ls := &learnerState{token: token, learner: l, class: cl, progress: map[string]classroom.Progress{}}
		for _, p := range prog {
			ls.progress[p.Exercise] = p
		}
		return ls, nil
	}
	return s.anonymousState(c)
}

// anonymousState is a learner outside any class: their practice cookie.
func (s *Server) anonymousState(c echo.Context) (*learnerState, error) {
	key, err := s.practiceKey(c.Request().Context())
	if err != nil {
		return nil, err
	}
	return &learnerState{key: key, practice: readPractice(c, key)}, nil
}

// asker is one learner on one exercise: the variant they answer and where
// they stand on it.
type asker struct {
	*learnerState
	ex       *lessons.Exercise
	variant  int
	standing lessons.Standing
	review   *classroom.Review
	// revealed says the store has recorded that the answer was shown to
	// this class learner.
	revealed bool
}

// on places the learner on an exercise. A class learner is held to their
// own variant whatever the request says; anyone else practises the
// variant they ask for (0, the lesson's numbers, by default).
func (ls *learnerState) on(ex *lessons.Exercise, variant int) *asker {
	a := &asker{learnerState: ls, ex: ex, variant: variant}
	if ls.inClass() {
		a.variant = learnerVariant(ls.learner, ls.class)
		if p, ok := ls.progress[ex.ID]; ok {
			a.standing, a.review, a.revealed = classStanding(ex, p), p.Review, p.Revealed
		}
		return a
	}
	a.standing = ls.practice.standing(ex.ID, variant)
	return a
}

// askerFor works out who asks about ex and where they stand on it.
func (s *Server) askerFor(c echo.Context, ex *lessons.Exercise, variant int) (*asker, error) {
	ls, err := s.learnerStateOf(c)
	if err != nil {
		return nil, err
	}
	return ls.on(ex, variant), nil
}

// classStanding reads a learner's recorded progress the way the checker
// needs it. The store counts every recorded try; once one was right the
// answer is earned anyway, so the count stands for the wrong ones.
func classStanding(ex *lessons.Exercise, p classroom.Progress) lessons.Standing {
	st := lessons.Standing{Tries: p.Tries, Correct: p.Correct, GaveUp: p.GaveUp}
	if ex.Kind == lessons.KindText {
		st.Tries, st.Submitted = 0, p.Tries > 0
	}
	return st
}

// queryVariant reads ?variant=N (0 when absent).
func queryVariant(c echo.Context) (int, error) {
	raw := c.QueryParam("variant")
	if raw == "" {
		return 0, nil
	}
	v, err := strconv.Atoi(raw)
	if err != nil {
		v = -1 // not a whole number: refused with the range's words
	}
	return v, checkVariant(v, excerpt(raw))
}

// exerciseByID finds the exercise a route names, or a 404 that says where
// the list is.
func (s *Server) exerciseByID(c echo.Context) (*lessons.Exercise, error) {
	ex, err := s.cfg.Lessons.Exercise(c.Param("id"))
	if err != nil {
		return nil, fmt.Errorf("%w; GET /api/exercises lists them", err)
	}
	return ex, nil
}

// servedExercise is GET /api/exercises/{id}: the exercise as data for
// this learner (lessons.Served), whether they are in a class, and the
// teacher's review of their open answer.
type servedExercise struct {
	lessons.Served
	InClass bool              `json:"in_class"`
	Review  *classroom.Review `json:"review,omitempty"`
}

// apiExercise: GET /api/exercises/{id}?variant=N. The prompt for the
// variant, the options shuffled for it, a scenario's fields, the hints the
// learner's tries have unlocked; never an answer, a key or a solution.
func (s *Server) apiExercise(c echo.Context) error {
	ex, err := s.exerciseByID(c)
	if err != nil {
		return err
	}
	v, err := queryVariant(c)
	if err != nil {
		return err
	}
	a, err := s.askerFor(c, ex, v)
	if err != nil {
		return checkClassError(err)
	}
	served, err := a.serve()
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return writeJSON(c, http.StatusOK, servedExercise{Served: served, InClass: a.inClass(), Review: a.review})
}

// errNotEarned is the 403 for a solution asked for too soon.
func errNotEarned(ex *lessons.Exercise) error {
	return &userError{Status: http.StatusForbidden, Msg: fmt.Sprintf(
		"the worked solution of %s opens after a right answer, %d tries, or giving up (POST /api/exercises/%s/give-up)",
		ex.ID, lessons.RevealAfter, ex.ID)}
}

// solutionBody is GET /api/exercises/{id}/solution.
type solutionBody struct {
	Exercise string `json:"exercise"`
	Variant  int    `json:"variant"`
	Solution string `json:"solution"` // rendered HTML
	// Caption is the caption of the playground this prediction opens, if
	// it opens one: it tells what the run shows, so it waits too.
	Caption string `json:"caption,omitempty"`
}

// apiSolution: GET /api/exercises/{id}/solution?variant=N, 403 until this
// learner earned it (lessons.Standing.Earned).
func (s *Server) apiSolution(c echo.Context) error {
	ex, err := s.exerciseByID(c)
	if err != nil {
		return err
	}
	v, err := queryVariant(c)
	if err != nil {
		return err
	}
	a, err := s.askerFor(c, ex, v)
	if err != nil {
		return checkClassError(err)
	}
	if err := a.refuseShowMe(); err != nil {
		return err
	}
	if !a.standing.Earned() {
		return errNotEarned(ex)
	}
	_, html, err := ex.Solution(a.variant)
	if err != nil {
		return err
	}
	if a.inClass() && !a.standing.Correct && !a.revealed && ex.Kind != lessons.KindText &&
		a.class.ClosedError(s.cfg.Class.Clock(), "answers") == nil {
		// A solution shown before a right answer ends the credit, like
		// "show me" (only a class from before scores were kept can get
		// here: every other way of earning it was recorded as a reveal).
		if _, err := s.cfg.Classroom.GiveUp(c.Request().Context(), a.token, ex.ID, a.variant); err != nil {
			return checkClassError(err)
		}
		a.revealedToLMS(c.Request().Context(), s)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return writeJSON(c, http.StatusOK, solutionBody{Exercise: ex.ID, Variant: a.shownVariant(), Solution: html,
		Caption: s.cfg.Lessons.GateCaption(ex.ID)})
}

// revealedToLMS passes the learner's standing on the exercise to the
// course's gradebook after its answer was shown to them: an exercise
// never answered then scores 0, where its cell was blank (the gradebook
// export says 0 too), and the queue sends only what changed.
func (a *asker) revealedToLMS(ctx context.Context, s *Server) {
	s.ltiScored(ctx, classroom.ScoreChange{ClassID: a.class.ID, ClassCode: a.class.Code, LearnerID: a.learner.ID, Exercise: a.ex.ID})
}

// apiGiveUp: POST /api/exercises/{id}/give-up {"variant": N}: "show me".
// It records that this learner gave up (in the class store, or in their
// practice cookie), which earns the solution, and answers like a check
// that revealed everything: the expected answer, the worked solution and,
// for a prediction, the real run. It costs no try.
func (s *Server) apiGiveUp(c echo.Context) error {
	ctx := c.Request().Context()
	ex, err := s.exerciseByID(c)
	if err != nil {
		return err
	}
	var in struct {
		Variant int `json:"variant"`
	}
	if err := s.readJSON(c, &in); err != nil {
		return err
	}
	if err := checkVariant(in.Variant, strconv.Itoa(in.Variant)); err != nil {
		return err
	}
	a, err := s.askerFor(c, ex, in.Variant)
	if err != nil {
		return checkClassError(err)
	}
	if err := a.refuseClosedLesson(); err != nil {
		return err
	}
	if err := a.refuseShowMe(); err != nil {
		return err
	}

	// A prediction's reveal runs the engine, so its runs wait for slots
	// like a check's (see apiCheck).
	sctx, stop := s.requestContext(c)
	defer stop()
	cctx, cancel := context.WithTimeout(sctx, s.RequestTimeout())
	defer cancel()
	if runsEngine(ex.Kind) {
		cctx = lessons.WithRunner(cctx, s.checkRunner(c, s.requester(c)))
	}
	res, err := ex.Reveal(cctx, a.variant)
	if err != nil && (cctx.Err() != nil || s.ctx.Err() != nil) {
		return s.runError(c, err, s.RequestTimeout())
	}
	if err != nil {
		return err
	}

	if a.inClass() {
		if _, err := s.cfg.Classroom.GiveUp(ctx, a.token, ex.ID, a.variant); err != nil {
			return checkClassError(err)
		}
		a.revealedToLMS(ctx, s)
	} else {
		a.practice.record(ex.ID, a.variant, res, true)
		writePractice(c, a.key, a.practice)
	}
	res.Variant = a.shownVariant()
	return writeJSON(c, http.StatusOK, withStates(res))
}
