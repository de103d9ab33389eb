package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// apiCheck grades one answer: POST /api/exercises/{id}/check with
// {"answer", "variant"}, answered with the lessons.Result.
//
// The server keeps where each learner stands, so a client cannot claim
// tries it did not make: a learner in a class (the session cookie, and a
// class store) is graded on their own variant, whatever the body says,
// with the tries the store counted, and the attempt is recorded with the
// mistake it shows; anyone else is graded on the body's variant with the
// tries their signed practice cookie counts, and the cookie is updated.
// The body's "tries" is accepted for old clients and ignored. Predictions
// and scenario answers run the engine: each of their runs waits for a slot
// of its own on the learner's behalf (see checkRunner), and the check
// answers 503 with Retry-After when the server stays too busy or shuts
// down.
func (s *Server) apiCheck(c echo.Context) error {
	ctx := c.Request().Context()
	ex, err := s.exerciseByID(c)
	if err != nil {
		return err
	}
	a, err := s.readAttempt(c, ex.ID)
	if err != nil {
		return err
	}
	who, err := s.askerFor(c, ex, a.Variant)
	if err != nil {
		return checkClassError(err)
	}
	if who.inClass() {
		// An archived or expired class takes no answers: say so before
		// grading, rather than grade and then refuse to keep it.
		if err := who.class.ClosedError(s.cfg.Class.Clock(), "answers"); err != nil {
			return err
		}
		if err := who.refuseClosedLesson(); err != nil {
			return err
		}
		if err := who.refuseTriesUsed(ex); err != nil {
			return err
		}
	}
	a.Variant, a.Tries, a.Earned = who.variant, who.standing.Tries, who.standing.Earned()
	// Quiz mode: the check keeps the answer back, so nothing is revealed;
	// the wrong try that would have shown it is the last one taken
	// (refuseTriesUsed), as the credit ends there in either mode.
	a.Withhold = who.quizMode()
	a.FromLearner = true

	sctx, stop := s.requestContext(c)
	defer stop()
	cctx, cancel := context.WithTimeout(sctx, s.RequestTimeout())
	defer cancel()
	if runsEngine(ex.Kind) {
		cctx = lessons.WithRunner(cctx, s.checkRunner(c, s.requester(c)))
	}
	res, err := ex.Check(cctx, a)
	if err != nil && (cctx.Err() != nil || s.ctx.Err() != nil) {
		return s.runError(c, err, s.RequestTimeout())
	}
	if err != nil {
		return err
	}

	if !who.inClass() {
		res.Score = practiceScore(ex, who.standing, res)
		if res.Correct && who.standing.Earned() && !who.standing.Correct {
			res.Feedback = practiceNote + " " + res.Feedback
		}
		who.practice.record(ex.ID, who.variant, res, false)
		writePractice(c, who.key, who.practice)
		return writeJSON(c, http.StatusOK, withStates(ex.ForLearner(res)))
	}
	rec, err := s.cfg.Classroom.Record(ctx, who.token, classroom.Attempt{
		Exercise: res.Exercise, Variant: res.Variant, Answer: a.Answer, Correct: res.Correct,
		Graded: res.Graded, Feedback: res.Feedback, FormatError: res.FormatError,
		Mistake: res.Mistake, Parsed: res.Read,
		Rule: ex.CreditRule(), Share: res.Share, Reveals: res.Revealed && res.FormatError == "" && (!res.Correct || who.creditEnded()),
		StopAfterWrong: who.quizTries(ex),
	})
	if errors.Is(err, classroom.ErrTriesUsed) {
		// Checks sent at once all passed refuseTriesUsed; the store let
		// the tries through one by one, and this one is past them: it is
		// refused as refuseTriesUsed refuses, its verdict never sent.
		return triesUsed()
	}
	if err != nil {
		return checkClassError(err)
	}
	res.Score = rec.Score
	switch {
	case rec.Late && res.Graded && !who.progress[ex.ID].LateCredit:
		res.Feedback = lateNote + " " + res.Feedback
	case rec.AfterReveal && res.Correct:
		res.Feedback = practiceNote + " " + res.Feedback
	case who.creditEnded() && res.Correct:
		res.Feedback = creditEndedNote + " " + res.Feedback
	}
	if rec.BestChange != nil {
		ch := *rec.BestChange
		ch.ClassCode = who.class.Code
		s.scoreChanged(ctx, ch)
	} else if !res.Graded || rec.Try == 1 {
		// An open answer has no score until the teacher's: its columns
		// in the course's gradebook now wait for one. A first answer
		// that earned nothing is a 0 where the cell was blank, in the
		// gradebook export and so in the course's.
		s.ltiScored(ctx, classroom.ScoreChange{ClassID: who.class.ID, ClassCode: who.class.Code, LearnerID: who.learner.ID, Exercise: res.Exercise})
	}
	res.Variant = who.shownVariant()
	return writeJSON(c, http.StatusOK, withStates(ex.ForLearner(res)))
}

// sessionEnded is what a learner whose class session is gone (they went
// on in another browser, the teacher removed them, or the cookie names no
// session) is told on a check.
const sessionEnded = "your class session has ended (you went on in another browser, or the teacher removed you), " +
	"so this answer was not recorded: continue here with a device code from that browser to keep your progress, or join the class again"

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
