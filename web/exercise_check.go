package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// apiCheck grades one answer: POST /api/exercises/{id}/check with
// {"answer", "variant", "tries"}, answered with the lessons.Result.
//
// A learner in a class (the session cookie, and a class store) is graded
// on their own variant, whatever the body says, and the attempt is
// recorded; anyone else is graded on the body's variant and nothing is
// kept. Predictions and scenario answers run the engine, so they take a
// live-run slot like POST /api/run, and are told "busy" past the cap.
func (s *Server) apiCheck(c echo.Context) error {
	ctx := c.Request().Context()
	id := c.Param("id")
	ex, err := s.cfg.Lessons.Exercise(id)
	if err != nil {
		return fmt.Errorf("%w; GET /api/exercises lists them", err)
	}
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	a, err := lessons.DecodeAttempt(id, bytes.NewReader(body))
	if err != nil {
		return err
	}

	token := learnerToken(c)
	record := token != "" && s.cfg.Classroom != nil
	if record {
		l, cl, err := s.cfg.Classroom.Learner(ctx, token)
		if err != nil {
			return checkClassError(err)
		}
		// An archived or expired class takes no answers: say so before
		// grading, rather than grade and then refuse to keep it.
		if err := cl.ClosedError(s.cfg.Class.Clock(), "answers"); err != nil {
			return err
		}
		a.Variant = lessons.VariantFor(l.VariantKey())
	}

	if runsEngine(ex.Kind) {
		if !s.runs.tryAcquire() {
			return errBusy
		}
		defer s.runs.release()
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.RunTimeout)
	defer cancel()
	res, err := ex.Check(cctx, a)
	if errors.Is(err, context.DeadlineExceeded) {
		return &userError{Status: http.StatusServiceUnavailable, Msg: "checking took longer than " + s.cfg.RunTimeout.String() + "; the server may be busy, try again"}
	}
	if err != nil {
		return err
	}

	if record {
		att, err := s.cfg.Classroom.Record(ctx, token, classroom.Attempt{
			Exercise: res.Exercise, Variant: res.Variant, Answer: a.Answer, Correct: res.Correct,
			Graded: res.Graded, Feedback: res.Feedback, FormatError: res.FormatError,
		})
		if err != nil {
			return checkClassError(err)
		}
		// The store counts a class learner's tries, whatever browser they
		// answer from: its count unlocks the hints.
		if att.Try > 0 && res.Graded && !res.Correct {
			res.Hints = ex.HintsAfter(att.Try, res.Variant)
		}
	}
	return writeJSON(c, http.StatusOK, res)
}

// sessionEnded is what a learner whose class session is gone (the teacher
// removed them, or the cookie names no session) is told on a check.
const sessionEnded = "your class session has ended, perhaps because the teacher removed you, " +
	"so this answer was not recorded: join the class again to keep your progress"

// checkClassError leaves a store error met while checking as the class
// APIs see it, except that a session the store no longer knows gets one
// sentence that says what happened to the answer and what to do.
func checkClassError(err error) error {
	if mapError(err).Status == http.StatusUnauthorized {
		return &userError{Status: http.StatusUnauthorized, Msg: sessionEnded}
	}
	return err
}

// runsEngine reports whether checking this kind of exercise runs the
// engine, and so takes a live-run slot.
func runsEngine(kind string) bool {
	return kind == lessons.KindPredict || kind == lessons.KindScenario
}
