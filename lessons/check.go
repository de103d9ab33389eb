package lessons

import (
	"context"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/leaselab/playground/engine"
)

// RevealAfter is how many wrong tries earn the answer: after the third,
// the learner sees the value, the run and the worked solution, as after a
// right answer or after asking to be shown (Exercise.Reveal).
const RevealAfter = 3

// Attempt is one answer to one exercise.
type Attempt struct {
	Exercise string `json:"exercise"`
	Answer   string `json:"answer"`
	Variant  int    `json:"variant"`
	// Tries is how many wrong answers the learner gave before this one; it
	// unlocks hints, and a wrong answer with RevealAfter-1 tries before it
	// reveals the answer.
	Tries int `json:"tries"`
	// Earned says the learner already earned the answer (right before,
	// or gave up): then a wrong answer shows it too.
	Earned bool `json:"-"`
	// Withhold keeps the answer back whatever was earned: a class in quiz
	// mode. The verdict, the hints and the feedback on the answer given
	// come back; the expected answer, the worked solution, a model answer
	// and a prediction's run do not, and Revealed stays false.
	Withhold bool `json:"-"`
	// FromLearner says the answer comes from a learner now (a page, the
	// API), not from a kept attempt: an option is then read by its letter,
	// its alias or its served id, never by its file key ("option-b"),
	// which only answers kept from before served ids hold. The right
	// option's key is the same letter in most files, so a learner who
	// could send keys could guess one and be graded right.
	FromLearner bool `json:"-"`
}

// Result is the checker's verdict on an attempt. Its JSON is what the CLI
// prints and the web API returns. Nothing in it gives the answer away
// unless Revealed is set.
type Result struct {
	Exercise string `json:"exercise"`
	Kind     string `json:"kind"`
	Variant  int    `json:"variant"`
	Correct  bool   `json:"correct"`
	// Graded is false for an open (text) answer, which goes to a teacher
	// (Submitted), and for an answer that could not be read (FormatError):
	// nothing was graded.
	Graded bool `json:"graded"`
	// Submitted is set for a text answer: it was taken as it is, to be
	// compared with the model answer by the learner and scored by a
	// teacher. No keyword ever marks it right.
	Submitted bool   `json:"submitted,omitempty"`
	Feedback  string `json:"feedback"`
	// FormatError is set when the answer could not be read ("forty"), or
	// could be read two ways ("42.000", a bare "15" for a time): it says
	// what to write instead. Such an attempt costs no try.
	FormatError string `json:"format_error"`
	// Read is how the answer was understood ("900 s", "b", "Rs 42,000");
	// the same for "4950" and "4,950 runs", so answers group by it.
	Read string `json:"read,omitempty"`
	// Mistake names the misconception a wrong answer shows, the same on
	// every variant ("upside-down", "option-e", "percent-for-count"), or
	// is empty when the answer matches no known mistake. MistakeLabel
	// says it in words for a teacher.
	Mistake string `json:"mistake,omitempty"`
	// Revealed is set once the answer is earned: a right answer, the
	// RevealAfter-th wrong try, or Reveal ("show me"). Only then are
	// Expected, Solution and a prediction's Timeline filled in.
	Revealed bool `json:"revealed"`
	// Expected is the right answer, once Revealed.
	Expected string   `json:"expected,omitempty"`
	Hints    []string `json:"hints,omitempty"`
	// Solution is the worked solution (Markdown) and SolutionHTML the same
	// rendered, once Revealed.
	Solution     string `json:"solution,omitempty"`
	SolutionHTML string `json:"solution_html,omitempty"`
	// ModelAnswer and Rubric answer an open question once it is submitted.
	ModelAnswer string `json:"model_answer,omitempty"`
	// ModelAnswerHTML is ModelAnswer rendered, once, on the server: pages
	// show it as it is rather than rendering the Markdown themselves.
	ModelAnswerHTML string        `json:"model_answer_html,omitempty"`
	Rubric          []RubricPoint `json:"rubric,omitempty"`
	// Timeline is the engine run the answer was graded on: for a
	// scenario the learner's own settings (the shortest failing run, or
	// the first when all passed); for a prediction the real run, once
	// Revealed.
	Timeline *Timeline `json:"timeline,omitempty"`
	// Runs reports each run of a scenario answer.
	Runs []RunReport `json:"runs,omitempty"`

	// Share is the check's own measure of the answer, from 0 to 1 (see
	// Exercise.CreditRule); Score is what the attempt earned, which the
	// server works out from the share and where the learner stood.
	Share float64 `json:"-"`
	Score float64 `json:"score"`
}

// RunReport is one run of a scenario answer: a fault schedule and a seed.
type RunReport struct {
	Name    string         `json:"name"`
	Seed    int64          `json:"seed"`
	Passed  bool           `json:"passed"`
	Goal    string         `json:"goal"`
	Explain string         `json:"explain"`
	Events  int            `json:"events"`
	Summary engine.Summary `json:"summary"`
}

// Check grades one answer: the whole API a command or a web handler needs.
// The error is an *InputError for a request that cannot be taken (too long,
// variant out of range), wraps ErrUnknown for an unknown exercise, and is
// anything else only when the engine itself failed. An unreadable answer is
// not an error: it comes back with FormatError set.
func (c *Catalog) Check(ctx context.Context, exerciseID, answer string, variant int) (Result, error) {
	return c.CheckAttempt(ctx, Attempt{Exercise: exerciseID, Answer: answer, Variant: variant})
}

// CheckAttempt is Check with the number of earlier wrong tries, which
// unlocks hints and, at RevealAfter, the answer.
func (c *Catalog) CheckAttempt(ctx context.Context, a Attempt) (Result, error) {
	ex, err := c.Exercise(a.Exercise)
	if err != nil {
		return Result{}, err
	}
	return ex.Check(ctx, a)
}

// Check grades an attempt at this exercise (see Catalog.Check).
func (ex *Exercise) Check(ctx context.Context, a Attempt) (Result, error) {
	if !utf8.ValidString(a.Answer) {
		return Result{}, &InputError{Field: "answer", Msg: "is not valid UTF-8 text"}
	}
	// Characters, as the message says and the store counts them, not bytes.
	if n := utf8.RuneCountInString(a.Answer); n > MaxAnswerLen {
		return Result{}, &InputError{Field: "answer", Msg: fmt.Sprintf("is %d characters long; at most %d are accepted", n, MaxAnswerLen)}
	}
	if a.Tries < 0 {
		a.Tries = 0
	}
	env, err := ex.params(a.Variant)
	if err != nil {
		return Result{}, err
	}
	r := Result{Exercise: ex.ID, Kind: ex.Kind, Variant: a.Variant, Graded: ex.Kind != KindText}
	var p *predicted
	switch ex.Kind {
	case KindNumber:
		err = ex.checkNumber(&r, a.Answer, env, nil)
	case KindChoice:
		err = ex.checkChoice(&r, a.Answer, env, nil, a.Variant, !a.FromLearner)
	case KindPredict:
		p, err = ex.checkPredict(ctx, &r, a.Answer, env, a.Variant, !a.FromLearner)
	case KindScenario:
		err = ex.checkScenario(ctx, &r, a.Answer, env)
	case KindText:
		ex.checkText(&r, a.Answer)
	}
	if err != nil {
		return Result{}, err
	}
	if r.FormatError != "" {
		// An answer that could not be read was not graded: it is neither
		// right nor wrong, costs no try, and shows nothing new.
		r.Graded, r.Mistake, r.Timeline, r.Expected = false, "", nil, ""
		return r, nil
	}
	wrong := r.Graded && !r.Correct
	if wrong {
		r.Hints = ex.HintsAfter(a.Tries+1, a.Variant)
	}
	switch {
	case a.Withhold:
		r.Expected, r.Timeline = "", nil
		r.ModelAnswer, r.ModelAnswerHTML, r.Rubric = "", "", nil
		if r.Submitted {
			r.Feedback = "Answer submitted: your teacher reads it and gives it a score. The model answer is shown once your class leaves quiz mode."
		}
		if wrong && !a.Earned && a.Tries+1 >= RevealAfter {
			// Where a reveal would end the credit, quiz mode ends it
			// without one (classroom.CreditTries): no guessing on.
			r.Feedback += fmt.Sprintf(" That was your %s wrong try, the last this exercise takes in quiz mode: your teacher sees your tries, and the answer is shown once your class leaves quiz mode.", ordinal(a.Tries+1))
		}
	case r.Correct, r.Submitted, wrong && (a.Earned || a.Tries+1 >= RevealAfter):
		if err := ex.reveal(&r, env, p, a.Variant); err != nil {
			return Result{}, err
		}
		if wrong && !a.Earned {
			r.Feedback += fmt.Sprintf(" That was your %s wrong try, so here is the answer.", ordinal(a.Tries+1))
		}
	case wrong:
		// Not earned yet: a wrong prediction says why the reasoning fails,
		// never what the run gave.
		r.Expected = ""
		if ex.Kind == KindPredict {
			r.Timeline = nil
		}
	}
	r.Share = ex.share(r, a.Answer)
	return r, nil
}

// Reveal gives the answer to a learner who asks to be shown it (gives up):
// the expected answer, the worked solution, and for a prediction the real
// run. It runs the engine for a prediction, so it takes a context.
func (ex *Exercise) Reveal(ctx context.Context, variant int) (Result, error) {
	env, err := ex.params(variant)
	if err != nil {
		return Result{}, err
	}
	r := Result{Exercise: ex.ID, Kind: ex.Kind, Variant: variant, Feedback: "Here is the answer."}
	var p *predicted
	if ex.Kind == KindPredict {
		if p, err = ex.predictOutcome(ctx, env); err != nil {
			return Result{}, err
		}
	}
	if ex.Kind == KindText {
		r.ModelAnswer, r.Rubric = ex.spec.ModelAnswer, ex.spec.Rubric
		r.ModelAnswerHTML = modelAnswerHTML(ex.spec.ModelAnswer)
	}
	return r, ex.reveal(&r, env, p, variant)
}

// reveal fills in what an earned answer shows: the expected answer, the
// worked solution, and a prediction's real run.
func (ex *Exercise) reveal(r *Result, env map[string]float64, p *predicted, variant int) error {
	r.Revealed = true
	switch ex.Kind {
	case KindNumber:
		want, err := ex.answer.value(env)
		if err != nil {
			return err
		}
		r.Expected = formatIn(want, ex.spec.Unit)
	case KindChoice:
		r.Expected = ex.lettering(variant).letters(ex.spec.Correct)
	case KindPredict:
		if p != nil {
			r.Expected, r.Timeline = p.expected, p.tl
			if len(ex.options) > 0 {
				r.Expected = ex.lettering(variant).letters(p.correct)
			}
			if r.Feedback != "" && !r.Correct {
				r.Feedback += " The run gave " + r.Expected + "."
			}
			r.Feedback += " " + p.tl.Verdict
		}
	case KindScenario:
		r.Expected = fill(ex.spec.SolutionAnswer, env)
	}
	md, html, err := ex.solutionText(env, variant)
	if err != nil {
		return err
	}
	r.Solution, r.SolutionHTML = md, html
	return nil
}

// ordinal writes 3 as "third".
func ordinal(n int) string {
	switch n {
	case 1:
		return "first"
	case 2:
		return "second"
	case 3:
		return "third"
	}
	return fmt.Sprintf("%dth", n)
}

// formatProblem fills a result for an answer that could not be read.
func formatProblem(r *Result, err error) error {
	var fe *formatError
	if errors.As(err, &fe) {
		// The message is given once, in FormatError: it may quote what
		// was sent, and a result repeats nothing of an answer.
		r.FormatError = fe.msg
		r.Feedback = "Not read, so no try was used."
		return nil
	}
	return err
}

// close reports whether got is within the exercise's tolerance of want.
func (ex *Exercise) close(got, want float64) bool {
	tol := ex.tolerance(want)
	return math.Abs(got-want) <= tol+1e-9*math.Max(1, math.Abs(want))
}

// tolerance is how far from want an answer may be and still be right.
func (ex *Exercise) tolerance(want float64) float64 {
	return math.Max(ex.spec.Tolerance.Abs, ex.spec.Tolerance.Rel*math.Abs(want))
}

// nearWrong reports whether got is a named mistake's value, as precisely
// as the learner typed it: whoever types 0.022 for 20/900 made the
// upside-down mistake all the same.
func (ex *Exercise) nearWrong(got parsedNumber, wrong float64) bool {
	return ex.close(got.value, wrong) || math.Abs(got.value-wrong) <= got.step/2+1e-12
}
