package lessons

// Credit rules, named as the classroom store applies them
// (classroom.AttemptScore): the lessons say which rule an exercise is
// graded by and how much of an answer was right; the store knows where
// the learner stood.
const (
	creditDeclining    = "declining"
	creditFirstTry     = "first-try"
	creditPartial      = "partial"
	creditAllOrNothing = "all-or-nothing"
	creditTeacher      = "teacher"
)

// CreditRule names how an attempt at this exercise is scored
// (shared/EXERCISES.md, "Credit"): a number or a single choice declines
// with each wrong try ("declining"), a prediction earns its credit at the
// first try only ("first-try"), a choose-several earns the share of it
// that is right ("partial"), a scenario is all or nothing, and an open
// answer is scored by the teacher ("teacher").
func (ex *Exercise) CreditRule() string {
	switch ex.Kind {
	case KindNumber:
		return creditDeclining
	case KindChoice:
		if ex.spec.Multiple {
			return creditPartial
		}
		return creditDeclining
	case KindPredict:
		return creditFirstTry
	case KindText:
		return creditTeacher
	}
	return creditAllOrNothing
}

// Points is what the exercise is worth in a gradebook: a learner's score
// (0 to 1) times it. Every exercise is worth one point.
func (ex *Exercise) Points() float64 { return 1 }

// ExercisePoints is what the exercise with this id is worth in a
// gradebook (Exercise.Points), 1 for one the catalog no longer has: its
// scores are kept, and count as any exercise's do.
func (c *Catalog) ExercisePoints(id string) float64 {
	if c != nil {
		if ex, err := c.Exercise(id); err == nil {
			return ex.Points()
		}
	}
	return 1
}

// share measures how much of a graded answer is right, from 0 to 1: for
// a choose-several, max(0, right chosen - wrong chosen) / right options;
// for a scenario, the share of its runs that pass; otherwise 1 or 0.
func (ex *Exercise) share(r Result, answer string) float64 {
	if r.Correct {
		return 1
	}
	if !r.Graded {
		return 0
	}
	switch {
	case ex.Kind == KindChoice && ex.spec.Multiple:
		// The check read the answer already, by its rules.
		keys, err := ex.parseChoice(answer, ex.lettering(r.Variant), true)
		if err != nil || len(ex.spec.Correct) == 0 {
			return 0
		}
		right, wrong := 0, 0
		for _, k := range keys {
			if contains(ex.spec.Correct, k) {
				right++
			} else {
				wrong++
			}
		}
		return float64(max(0, right-wrong)) / float64(len(ex.spec.Correct))
	case ex.Kind == KindScenario && len(r.Runs) > 0:
		passed := 0
		for _, run := range r.Runs {
			if run.Passed {
				passed++
			}
		}
		return float64(passed) / float64(len(r.Runs))
	}
	return 0
}
