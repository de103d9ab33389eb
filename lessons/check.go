package lessons

import (
	"context"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/leaselab/playground/engine"
)

// Attempt is one answer to one exercise.
type Attempt struct {
	Exercise string `json:"exercise"`
	Answer   string `json:"answer"`
	Variant  int    `json:"variant"`
	// Tries is how many wrong answers the learner gave before this one; it
	// unlocks hints.
	Tries int `json:"tries"`
}

// Result is the checker's verdict on an attempt. Its JSON is what the CLI
// prints and the web API returns.
type Result struct {
	Exercise string `json:"exercise"`
	Kind     string `json:"kind"`
	Variant  int    `json:"variant"`
	Correct  bool   `json:"correct"`
	// Graded is false for an open (text) answer: the learner, or a teacher,
	// compares it with the model answer and the rubric. It is false too for
	// an answer that could not be read (FormatError): nothing was graded.
	Graded   bool   `json:"graded"`
	Feedback string `json:"feedback"`
	// FormatError is set when the answer could not be read ("forty"). Such
	// an attempt costs no try: Correct is false but it is not wrong.
	FormatError string `json:"format_error"`
	// Read is how the answer was understood ("900 s", "b").
	Read string `json:"read,omitempty"`
	// Expected is the right answer; it is only filled in once it is no
	// secret: after a correct answer, or for a prediction once the engine
	// has run.
	Expected string   `json:"expected,omitempty"`
	Hints    []string `json:"hints,omitempty"`
	// Solution is the worked solution (Markdown), after a correct answer.
	Solution string `json:"solution,omitempty"`
	// ModelAnswer and Rubric answer an open question.
	ModelAnswer string        `json:"model_answer,omitempty"`
	Rubric      []RubricPoint `json:"rubric,omitempty"`
	// Mentioned lists the rubric points the answer seems to touch on, as a
	// hint for the learner's own judgement.
	Mentioned []string `json:"mentioned,omitempty"`
	// Timeline is the engine run the answer was graded on: the real run of
	// a prediction, or for a scenario the shortest failing run (or the
	// first run when all passed).
	Timeline *Timeline `json:"timeline,omitempty"`
	// Runs reports each run of a scenario answer.
	Runs []RunReport `json:"runs,omitempty"`
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
// unlocks hints.
func (c *Catalog) CheckAttempt(ctx context.Context, a Attempt) (Result, error) {
	ex, err := c.Exercise(a.Exercise)
	if err != nil {
		return Result{}, err
	}
	return ex.Check(ctx, a)
}

// Check grades an attempt at this exercise (see Catalog.Check).
func (ex *Exercise) Check(ctx context.Context, a Attempt) (Result, error) {
	if len(a.Answer) > MaxAnswerLen {
		return Result{}, &InputError{Field: "answer", Msg: fmt.Sprintf("is %d characters long; at most %d are accepted", len(a.Answer), MaxAnswerLen)}
	}
	if !utf8.ValidString(a.Answer) {
		return Result{}, &InputError{Field: "answer", Msg: "is not valid UTF-8 text"}
	}
	if a.Tries < 0 {
		a.Tries = 0
	}
	env, err := ex.params(a.Variant)
	if err != nil {
		return Result{}, err
	}
	r := Result{Exercise: ex.ID, Kind: ex.Kind, Variant: a.Variant, Graded: ex.Kind != KindText}
	switch ex.Kind {
	case KindNumber:
		err = ex.checkNumber(&r, a.Answer, env, nil)
	case KindChoice:
		err = ex.checkChoice(&r, a.Answer, env, nil)
	case KindPredict:
		err = ex.checkPredict(ctx, &r, a.Answer, env)
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
		// right nor wrong, and costs no try.
		r.Graded = false
	}
	switch {
	case r.Correct:
		r.Solution = fill(ex.spec.Solution, env)
	case r.FormatError == "" && r.Graded:
		r.Hints = ex.HintsAfter(a.Tries+1, a.Variant)
	}
	return r, nil
}

// formatProblem fills a result for an answer that could not be read.
func formatProblem(r *Result, err error) error {
	var fe *formatError
	if errors.As(err, &fe) {
		r.FormatError = fe.msg
		r.Feedback = fe.msg
		return nil
	}
	return err
}

// close reports whether got is within the exercise's tolerance of want.
func (ex *Exercise) close(got, want float64) bool {
	tol := math.Max(ex.spec.Tolerance.Abs, ex.spec.Tolerance.Rel*math.Abs(want))
	return math.Abs(got-want) <= tol+1e-9*math.Max(1, math.Abs(want))
}

// nearWrong reports whether got is a named mistake's value, as precisely
// as the learner typed it: whoever types 0.022 for 20/900 made the
// upside-down mistake all the same.
func (ex *Exercise) nearWrong(got parsedNumber, wrong float64) bool {
	return ex.close(got.value, wrong) || math.Abs(got.value-wrong) <= got.step/2+1e-12
}
