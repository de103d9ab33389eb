package lessons

import (
	"fmt"
)

// number loads a number exercise: an answer formula, a tolerance, a unit
// and named mistakes.
func (l *loader) number() {
	l.numberAnswer()
}

// numberAnswer checks the fields a numeric answer needs, for number
// exercises and numeric predictions alike.
func (l *loader) numberAnswer() {
	spec := l.ex.spec
	switch spec.Unit {
	case "", UnitCount, UnitSeconds, UnitRupees, UnitPerSecond:
	default:
		l.bad([]string{"unit"}, "unit %q: use count, seconds, rupees or per_second", spec.Unit)
	}
	if spec.Answer == "" {
		l.bad([]string{"answer"}, "answer: the formula of the right answer is required")
	} else {
		l.ex.answer = l.value([]string{"answer"}, spec.Answer, l.names)
	}
	if spec.Tolerance.Abs < 0 || spec.Tolerance.Rel < 0 || spec.Tolerance.Rel >= 1 {
		l.bad([]string{"tolerance"}, "tolerance: abs must be 0 or more and rel between 0 and 1")
	}
	l.wrongFormulas()
}

// checkNumber grades a number against the answer formula, or against
// actual when the engine measured it (a prediction).
func (ex *Exercise) checkNumber(r *Result, answer string, env map[string]float64, actual *float64) error {
	unit := ex.spec.Unit
	got, err := parseNumber(answer, unit, ex.spec.UnitWords)
	if err != nil {
		return formatProblem(r, err)
	}
	r.Read = got.read
	want, err := ex.answer.value(env)
	if err != nil {
		return err
	}
	if actual != nil {
		want = *actual
	}
	if ex.close(got.value, want) {
		r.Correct = true
		r.Expected = formatIn(want, unit)
		r.Feedback = "Right: " + formatIn(want, unit) + "."
		if ex.spec.Success != "" {
			r.Feedback += " " + fill(ex.spec.Success, env)
		}
		return nil
	}
	for _, w := range ex.wrong {
		v, err := w.f.value(env)
		if err != nil {
			return err
		}
		if ex.close(v, want) {
			continue // this mistake gives the right number in this variant
		}
		if ex.nearWrong(got, v) {
			r.Feedback = fill(w.Feedback, env)
			return nil
		}
	}
	if got.value > want {
		r.Feedback = fmt.Sprintf("Not quite: %s is too high.", got.read)
	} else {
		r.Feedback = fmt.Sprintf("Not quite: %s is too low.", got.read)
	}
	return nil
}
