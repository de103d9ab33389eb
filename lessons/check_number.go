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
	if spec.BareUnit != "" {
		if _, ok := timeUnits[spec.BareUnit]; !ok || spec.Unit != UnitSeconds {
			l.bad([]string{"bare_unit"}, "bare_unit %q: give a time unit (s, min, h) for an answer in seconds whose question says which unit it wants", spec.BareUnit)
		}
	}
	if spec.Tolerance.Abs < 0 || spec.Tolerance.Rel < 0 || spec.Tolerance.Rel >= 1 {
		l.bad([]string{"tolerance"}, "tolerance: abs must be 0 or more and rel between 0 and 1")
	}
	l.wrongFormulas()
}

// numberOptions says how this exercise's numbers are read.
func (ex *Exercise) numberOptions() numberOptions {
	return numberOptions{unit: ex.spec.Unit, words: ex.spec.UnitWords, bareUnit: ex.spec.BareUnit}
}

// MistakePercent is the mistake of answering a share ("1%") where a count
// is asked.
const MistakePercent = "percent-for-count"

// checkNumber grades a number against the answer formula, or against
// actual when the engine measured it (a prediction). A wrong answer is
// matched against the named mistakes, as precisely as it was typed.
func (ex *Exercise) checkNumber(r *Result, answer string, env map[string]float64, actual *float64) error {
	unit := ex.spec.Unit
	got, err := parseNumber(answer, ex.numberOptions())
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
	if got.isRange() {
		if got.hi-got.lo > 2*ex.tolerance(want) {
			// Whether the range holds the answer is not said: that would
			// answer the question.
			return formatProblem(r, formatErrorf("You gave a range, %s. The answer is one number: which is it?", got.read))
		}
		if ex.close(got.lo, want) && ex.close(got.hi, want) {
			got.value = want
		}
	}
	if !got.percent && ex.close(got.value, want) {
		r.Correct = true
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
			r.Feedback, r.Mistake = fill(w.Feedback, env), w.Name
			return nil
		}
	}
	if got.percent {
		r.Mistake = MistakePercent
		r.Feedback = fmt.Sprintf("%s is a share, not a count. The question asks how many: work out the number that share stands for.", got.read)
		return nil
	}
	switch {
	case actual != nil:
		// A prediction is told it is wrong, not in which direction: the
		// direction would be half the run's value.
		r.Feedback = fmt.Sprintf("Not quite: the run does not end with %s. Go through the prompt's events in order once more.", got.read)
	case got.value > want:
		r.Feedback = fmt.Sprintf("Not quite: %s is too high.", got.read)
	default:
		r.Feedback = fmt.Sprintf("Not quite: %s is too low.", got.read)
	}
	return nil
}
