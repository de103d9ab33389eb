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
	return numberOptions{unit: ex.spec.Unit, words: ex.spec.UnitWords, bareUnit: ex.spec.BareUnit, ratio: ex.spec.Ratio}
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
	if q := ex.askBack(got, want); q != "" {
		// Right if read another way: asked, not marked (no try).
		return formatProblem(r, formatErrorf("%s", q))
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

// neighbourUnits are, per answer unit, the units a bare number may have
// been meant in, with their factor to the canonical unit.
var neighbourUnits = map[string][]struct {
	name   string
	factor float64
}{
	UnitSeconds:   {{"ms", 0.001}, {"s", 1}, {"min", 60}, {"h", 3600}},
	UnitPerSecond: {{"a second", 1}, {"a minute", 1.0 / 60}, {"an hour", 1.0 / 3600}},
}

// askBack is the question for an answer that would be right if read
// another way, or "": a bare number right in a neighbouring unit of the
// same quantity (30000 where 30 s is right: seconds or milliseconds?), or
// a fraction of whole numbers that may be a count out of a total (2/5
// where a count is asked: 2, or the share 0.4?).
func (ex *Exercise) askBack(got parsedNumber, want float64) string {
	if got.of != nil && (ex.spec.Unit == UnitCount || ex.spec.Unit == "") {
		a, b := got.of[0], got.of[1]
		return fmt.Sprintf("Do you mean %s of %s, the count %s, or the share %s/%s = %s? Give one number.",
			formatNumber(a), formatNumber(b), formatNumber(a), formatNumber(a), formatNumber(b), formatNumber(a/b))
	}
	units := neighbourUnits[ex.spec.Unit]
	if !got.bare || got.isRange() || len(units) == 0 {
		return ""
	}
	bare := 1.0 // the factor the bare number was read with
	if ex.spec.Unit == UnitSeconds {
		bare = timeUnits[ex.spec.BareUnit]
	}
	typed := got.value / bare
	for _, u := range units {
		if u.factor != bare && ex.close(typed*u.factor, want) {
			asRead := "s"
			for _, v := range units {
				if v.factor == bare {
					asRead = v.name
				}
			}
			return fmt.Sprintf("%s %s, or %s %s? Give the unit with the number.", formatNumber(typed), asRead, formatNumber(typed), u.name)
		}
	}
	return ""
}
