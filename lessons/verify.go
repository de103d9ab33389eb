package lessons

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/leaselab/playground/engine"
)

// bareLetterRE finds an option named by a fixed letter in a solution
// ("**b.**", "(c)"), which would be wrong on a shuffled variant.
var bareLetterRE = regexp.MustCompile(`\*\*[a-g](?:[.,:]| and)|\([a-g]\)`)

// VerifyReport is the result of a self-check of the catalog.
type VerifyReport struct {
	Exercises int `json:"exercises"`
	// Variants is the fewest variants any exercise was checked on.
	Variants int `json:"variants"`
	// Distinct counts the variants graded in full: those whose numbers
	// and order of options no earlier variant of the exercise had.
	Distinct int      `json:"distinct"`
	Checks   int      `json:"checks"` // answers graded
	Problems []string `json:"problems"`
}

// OK reports whether the self-check found nothing wrong.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }

// Verify checks the catalog against itself: for many variants of every
// exercise, its own answer must pass and each named wrong answer must fail
// with its own feedback; a prediction's formula must agree with what the
// engine really does; every embedded preset must exist, and every
// playground with an expect condition must show it; nothing a learner sees
// before a prediction may give its outcome away. Exercises that run
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
	for _, p := range c.spoilerProblems() {
		problem("%s", p)
	}
	for i, ex := range c.Exercises() {
		rep.Exercises++
		n := variants
		if ex.Kind == KindPredict || ex.Kind == KindScenario {
			n = engineVariants
		}
		if i == 0 || n < rep.Variants {
			rep.Variants = n
		}
		// A variant is a function of its numbers and its order of
		// options: one whose numbers and order were already checked has
		// the same outcome, so its problems are reported again without
		// running the engine again.
		done := map[string][]string{}
		for v := 0; v < n; v++ {
			if err := ctx.Err(); err != nil {
				problem("stopped: %v", err)
				return rep
			}
			key := ex.variantKey(v)
			errs, seen := done[key]
			if !seen || key == "" {
				var checks int
				checks, errs = c.verifyVariant(ctx, ex, v)
				rep.Checks += checks
				rep.Distinct++
				done[key] = errs
			}
			for _, e := range errs {
				problem("%s (variant %d): %s", ex.ID, v, e)
			}
		}
	}
	return rep
}

// variantKey names what decides a variant's outcome: its numbers and the
// order of its options; "" when the numbers cannot be drawn.
func (ex *Exercise) variantKey(v int) string {
	env, err := ex.params(v)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, k := range sortedKeys(env) {
		fmt.Fprintf(&b, "%s=%v;", k, env[k])
	}
	fmt.Fprint(&b, ex.optionOrder(v))
	return b.String()
}

func (c *Catalog) verifyVariant(ctx context.Context, ex *Exercise, v int) (int, []string) {
	var errs []string
	p, err := ex.Serve(v, Standing{})
	if err != nil {
		return 0, []string{err.Error()}
	}
	if m := placeholderRE.FindString(p.PromptText); m != "" {
		errs = append(errs, "the prompt still has "+m)
	}
	env, _ := ex.params(v)
	if md, _, err := ex.solutionText(env, v); err != nil {
		errs = append(errs, "solution: "+err.Error())
	} else if len(ex.options) > 0 && (strings.Contains(md, "{@") || bareLetterRE.MatchString(ex.spec.Solution)) {
		// Letters change with the variant: a solution names an option as
		// {@b}, which becomes the letter shown.
		errs = append(errs, "the solution names an option by a fixed letter; write {@key}")
	} else if raw, _ := json.Marshal(p); len(md) > 40 && strings.Contains(string(raw), md[:40]) {
		errs = append(errs, "the served exercise carries its solution")
	}
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
		if r, ok := grade(answer); ok && (!r.Correct || !r.Revealed || r.Solution == "") {
			errs = append(errs, fmt.Sprintf("its own answer %q is graded wrong, or shows no solution: %s", answer, r.Feedback))
		}
	}
	// mustFail grades a known mistake: wrong, named, and with nothing of
	// the answer in it on a first try.
	mustFail := func(answer, mistake, feedback string) {
		r, ok := grade(answer)
		switch {
		case !ok:
		case r.Correct:
			errs = append(errs, fmt.Sprintf("the wrong answer %q passes", answer))
		case r.Revealed || r.Solution != "" || r.Expected != "" || ex.Kind == KindPredict && r.Timeline != nil:
			errs = append(errs, fmt.Sprintf("the wrong answer %q gives the answer away on a first try", answer))
		case r.Mistake != mistake:
			errs = append(errs, fmt.Sprintf("the wrong answer %q is named %q, not %q", answer, r.Mistake, mistake))
		case feedback != "" && !strings.Contains(r.Feedback, feedback):
			errs = append(errs, fmt.Sprintf("the wrong answer %q does not get its feedback", answer))
		}
	}
	switch ex.Kind {
	case KindPredict, KindNumber:
		if len(ex.options) > 0 {
			// A choice prediction: exactly one option holds on the run,
			// choosing it passes, and every other fails named by itself.
			out, err := ex.predictOutcome(ctx, env)
			if err != nil {
				errs = append(errs, err.Error())
				break
			}
			if len(ex.spec.Correct) > 0 && joinKeys(ex.spec.Correct) != joinKeys(out.correct) {
				errs = append(errs, fmt.Sprintf("the file says option %s is right, but the run makes %s right", joinKeys(ex.spec.Correct), joinKeys(out.correct)))
			}
			lt := ex.lettering(v)
			mustPass(lt.letters(out.correct))
			mustPass(ids(out.correct))
			for _, o := range ex.options {
				if !contains(out.correct, o.Key) {
					mustFail(lt.toLetter[o.Key], optionID(o.Key), fill(o.Feedback, env))
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
			out, err := ex.predictOutcome(ctx, env)
			if err != nil {
				errs = append(errs, err.Error())
				break
			}
			if !ex.close(out.actual, want) {
				errs = append(errs, fmt.Sprintf("the answer formula gives %s but the engine measured %s (%s)", formatNumber(want), formatNumber(out.actual), out.tl.Verdict))
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
				// On any variant: a learner who uses the right method
				// would be told it is this mistake, or one who uses the
				// wrong method would be told it is right.
				errs = append(errs, fmt.Sprintf("the wrong answer %q equals the right one (%s)", w.Answer, formatIn(want, ex.spec.Unit)))
				continue
			}
			mustFail(formatIn(wv, ex.spec.Unit), w.Name, fill(w.Feedback, env))
		}
	case KindChoice:
		// By this variant's letters, as a learner types them, and by
		// stable ids, as a form sends them.
		lt := ex.lettering(v)
		mustPass(lt.letters(ex.spec.Correct))
		mustPass(ids(ex.spec.Correct))
		for _, o := range ex.options {
			if !contains(ex.spec.Correct, o.Key) {
				if !ex.spec.Multiple {
					mustFail(lt.toLetter[o.Key], optionID(o.Key), fill(o.Feedback, env))
				} else if r, ok := grade(lt.toLetter[o.Key]); ok && r.Correct {
					errs = append(errs, fmt.Sprintf("the wrong option %q passes", lt.toLetter[o.Key]))
				}
			}
		}
	case KindScenario:
		mustPass(fill(ex.spec.SolutionAnswer, env))
		for _, w := range ex.wrong {
			mustFail(fill(w.Answer, env), w.Name, "")
		}
	case KindText:
		checks++
		r, err := ex.Check(ctx, Attempt{Exercise: ex.ID, Answer: ex.spec.ModelAnswer, Variant: v})
		switch {
		case err != nil:
			errs = append(errs, err.Error())
		case !r.Submitted || r.Graded || r.Correct || r.ModelAnswer == "" || len(r.Rubric) != len(ex.spec.Rubric):
			errs = append(errs, "an open answer is not simply submitted with the model answer and the rubric")
		}
	}
	return checks, errs
}
