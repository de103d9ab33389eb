package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// lateCreditRequest is the body of POST /api/classes/{code}/late-credit.
type lateCreditRequest struct {
	LearnerID int64  `json:"learner_id"`
	Exercise  string `json:"exercise"`
	// Credit grants the credit (true, the default) or withdraws it.
	Credit *bool `json:"credit"`
}

// lateCreditBody is what the route answers: the learner's score on the
// exercise now, and before.
type lateCreditBody struct {
	LearnerID int64  `json:"learner_id"`
	Exercise  string `json:"exercise"`
	Credit    bool   `json:"credit"`
	// Changed says the learner's best score changed, from Previous to
	// Score (both left out when it did not).
	Changed  bool     `json:"changed"`
	Score    *float64 `json:"score,omitempty"`
	Previous *float64 `json:"previous,omitempty"`
}

// apiLateCredit: POST /api/classes/{code}/late-credit {"learner_id",
// "exercise", "credit": true|false} with the teacher key. A class with a
// deadline keeps late attempts and gives them nothing; this is the
// teacher's extension for one learner on one exercise: their late
// attempts, still marked late, score as if on time (those made and those
// to come), the store rescores the exercise in try order, and a change of
// the learner's best goes where every change goes (scoreChanged: the LTI
// queue among others). "credit": false withdraws it.
func (w *classWeb) apiLateCredit(c echo.Context) error {
	var in lateCreditRequest
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	ex, err := w.checkLateCredit(in)
	if err != nil {
		return err
	}
	on := in.Credit == nil || *in.Credit
	ctx := c.Request().Context()
	code, key := c.Param("code"), teacherKey(c)
	var verdicts []classroom.Verdict
	if ex.CreditRule() == classroom.RulePartial {
		// A late attempt was kept with score 0, which says nothing of the
		// share of a choose-several it got right: check those again.
		if verdicts, err = w.recheck(c, ex, in.LearnerID); err != nil {
			return err
		}
	}
	ch, err := w.store().CreditLate(ctx, code, key, in.LearnerID, ex.ID, ex.CreditRule(), on, verdicts)
	if err != nil {
		return err
	}
	out := lateCreditBody{LearnerID: in.LearnerID, Exercise: ex.ID, Credit: on}
	if ch != nil {
		w.s.scoreChanged(ctx, *ch)
		out.Score, out.Previous, out.Changed = &ch.Score, &ch.Previous, true
	}
	return writeJSON(c, http.StatusOK, out)
}

// checkLateCredit checks a late-credit body against its bounds and the
// catalog: a 400 naming the field, or the exercise it names.
func (w *classWeb) checkLateCredit(in lateCreditRequest) (*lessons.Exercise, error) {
	if in.LearnerID <= 0 {
		return nil, badRequest("learner_id", "is required: the id of a learner of the class (the dashboard's learners[].id)")
	}
	if in.Exercise == "" {
		return nil, badRequest("exercise", "is required: the id of the exercise whose late work earns credit")
	}
	ex, err := w.s.cfg.Lessons.Exercise(in.Exercise)
	if err != nil {
		return nil, badRequest("exercise", "%s is not an exercise of this course", excerpt(in.Exercise))
	}
	return ex, nil
}

// recheck is the checker's verdict on each graded attempt at a number or
// choice exercise, of one learner or of everyone (learnerID 0), read as
// each was meant (storedAnswer); an answer the checker cannot read keeps
// its verdict. What a regrade and a late credit rescore with.
func (w *classWeb) recheck(c echo.Context, ex *lessons.Exercise, learnerID int64) ([]classroom.Verdict, error) {
	ctx := c.Request().Context()
	all, err := w.store().Attempts(ctx, c.Param("code"), teacherKey(c), ex.ID)
	if err != nil {
		return nil, err
	}
	var out []classroom.Verdict
	for _, a := range all {
		if learnerID != 0 && a.LearnerID != learnerID || !a.Graded {
			continue
		}
		res, err := ex.Check(ctx, lessons.Attempt{Exercise: ex.ID, Answer: storedAnswer(ex, a.Attempt), Variant: a.Variant})
		if err != nil {
			return nil, err
		}
		if res.FormatError != "" {
			// The checker cannot read it now: it stays as it was graded.
			continue
		}
		out = append(out, classroom.Verdict{AttemptID: a.ID, Correct: res.Correct, Share: res.Share,
			Mistake: res.Mistake, Parsed: res.Read})
	}
	return out, nil
}
