package lessons

import (
	"context"
	"fmt"
	"strings"

	"github.com/leaselab/playground/engine"
)

// VerifyReport is the result of a self-check of the catalog.
type VerifyReport struct {
	Exercises int      `json:"exercises"`
	Checks    int      `json:"checks"` // answers graded
	Problems  []string `json:"problems"`
}

// OK reports whether the self-check found nothing wrong.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }

// Verify checks the catalog against itself: for many variants of every
// exercise, its own answer must pass and each named wrong answer must fail
// with its own feedback; a prediction's formula must agree with what the
// engine really does; every embedded preset must exist, and every
// playground with an expect condition must show it. Exercises that run
// the engine are checked on fewer variants (engineVariants), since each
// costs real runs.
func (c *Catalog) Verify(ctx context.Context, variants, engineVariants int) VerifyReport {
	var rep VerifyReport
	problem := func(format string, args ...any) {
		rep.Problems = append(rep.Problems, fmt.Sprintf(format, args...))
	}
	for _, l := range c.lessons {
		for _, p := range l.Presets {
			if _, err := engine.LoadPreset(p); err != nil {
				problem("%s: preset %q: %v", l.File, p, err)
			}
		}
		for _, pg := range l.Playgrounds {
			if pg.Expect == "" {
				continue
			}
			if _, err := pg.CheckExpect(ctx); err != nil {
				problem("%s: %s (%s): %v", l.File, pg.ID, pg.Preset, err)
			}
		}
	}
	for _, ex := range c.Exercises() {
		rep.Exercises++
		n := variants
		if ex.Kind == KindPredict || ex.Kind == KindScenario {
			n = engineVariants
		}
		for v := 0; v < n; v++ {
			if err := ctx.Err(); err != nil {
				problem("stopped: %v", err)
				return rep
			}
			checks, errs := c.verifyVariant(ctx, ex, v)
			rep.Checks += checks
			for _, e := range errs {
				problem("%s (variant %d): %s", ex.ID, v, e)
			}
		}
	}
	return rep
}

func (c *Catalog) verifyVariant(ctx context.Context, ex *Exercise, v int) (int, []string) {
	var errs []string
	p, err := ex.Prompt(v)
	if err != nil {
		return 0, []string{err.Error()}
	}
	if m := placeholderRE.FindString(p.Text); m != "" {
		errs = append(errs, "the prompt still has "+m)
	}
	if _, err := ex.FormHTML(v); err != nil {
		errs = append(errs, "form: "+err.Error())
	}
	env, _ := ex.params(v)
	checks := 0
	grade := func(answer string) (Result, bool) {
		checks++
		r, err := ex.Check(ctx, Attempt{Exercise: ex.ID, Answer: answer, Variant: v})
		if err != nil {
			errs = append(errs, fmt.Sprintf("checking %q: %v", answer, err))
			return r, false
		}
		if r.FormatError != "" {
			errs = append(errs, fmt.Sprintf("its own answer %q is unreadable: %s", answer, r.FormatError))
			return r, false
		}
		return r, true
	}
	mustPass := func(answer string) {
		if r, ok := grade(answer); ok && !r.Correct {
			errs = append(errs, fmt.Sprintf("its own answer %q is graded wrong: %s", answer, r.Feedback))
		}
	}
	switch ex.Kind {
	case KindNumber, KindPredict:
		if len(ex.options) > 0 {
			// A choice prediction: exactly one option holds on the run and
			// choosing it passes.
			r, ok := grade(ex.options[0].Key)
			if ok && r.Expected == "" {
				errs = append(errs, "the run did not single out an option")
			} else if ok {
				mustPass(r.Expected)
				for _, o := range ex.options {
					if o.Key != r.Expected {
						if r2, ok := grade(o.Key); ok && r2.Correct {
							errs = append(errs, fmt.Sprintf("the wrong option %q passes", o.Key))
						}
					}
				}
			}
			break
		}
		want, err := ex.answer.value(env)
		if err != nil {
			errs = append(errs, err.Error())
			break
		}
		if ex.Kind == KindPredict {
			// The formula must say what the engine does, or the prompt lies.
			tl, m, err := ex.predictRun(ctx, env)
			if err != nil {
				errs = append(errs, err.Error())
				break
			}
			actual, err := ex.measure.value(m)
			if err != nil {
				errs = append(errs, err.Error())
				break
			}
			if !ex.close(actual, want) {
				errs = append(errs, fmt.Sprintf("the answer formula gives %s but the engine measured %s (%s)", formatNumber(want), formatNumber(actual), tl.Verdict))
			}
		}
		mustPass(formatIn(want, ex.spec.Unit))
		for _, w := range ex.wrong {
			wv, err := w.f.value(env)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			if ex.close(wv, want) {
				if v == 0 {
					errs = append(errs, fmt.Sprintf("the wrong answer %q equals the right one in the notes' variant", w.Answer))
				}
				continue
			}
			if r, ok := grade(formatIn(wv, ex.spec.Unit)); ok {
				if r.Correct {
					errs = append(errs, fmt.Sprintf("the wrong answer %q passes", w.Answer))
				} else if !strings.Contains(r.Feedback, fill(w.Feedback, env)) {
					errs = append(errs, fmt.Sprintf("the wrong answer %q does not get its feedback", w.Answer))
				}
			}
		}
	case KindChoice:
		mustPass(strings.Join(ex.spec.Correct, ", "))
		for _, o := range ex.options {
			if !contains(ex.spec.Correct, o.Key) {
				if r, ok := grade(o.Key); ok && r.Correct {
					errs = append(errs, fmt.Sprintf("the wrong option %q passes", o.Key))
				}
			}
		}
	case KindScenario:
		mustPass(fill(ex.spec.SolutionAnswer, env))
		for _, w := range ex.wrong {
			if r, ok := grade(fill(w.Answer, env)); ok && r.Correct {
				errs = append(errs, fmt.Sprintf("the wrong settings %s pass", fill(w.Answer, env)))
			}
		}
	case KindText:
		checks++
		r, err := ex.Check(ctx, Attempt{Exercise: ex.ID, Answer: ex.spec.ModelAnswer, Variant: v})
		switch {
		case err != nil:
			errs = append(errs, err.Error())
		case r.ModelAnswer == "" || len(r.Mentioned) != len(ex.spec.Rubric):
			errs = append(errs, fmt.Sprintf("the model answer touches %d of %d rubric points", len(r.Mentioned), len(ex.spec.Rubric)))
		}
	}
	return checks, errs
}
