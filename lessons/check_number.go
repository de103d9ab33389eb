package lessons

import (
	"fmt"
)

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
