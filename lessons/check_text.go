package lessons

import (
	"fmt"
	"strings"
)

// text loads an open question: a model answer and a rubric.
func (l *loader) text() {
	spec := l.ex.spec
	if strings.TrimSpace(spec.ModelAnswer) == "" {
		l.bad([]string{"model_answer"}, "a text exercise needs model_answer")
	}
	if len(spec.Rubric) == 0 {
		l.bad([]string{"rubric"}, "a text exercise needs a rubric")
	}
}

// checkText records an open answer and returns the model answer and the
// rubric to compare it with.
func (ex *Exercise) checkText(r *Result, answer string) {
	words := strings.Fields(answer)
	if len(words) < 3 {
		r.FormatError = "Write your answer in a sentence or two first; then you will see the model answer."
		r.Feedback = r.FormatError
		return
	}
	r.ModelAnswer = ex.spec.ModelAnswer
	r.Rubric = ex.spec.Rubric
	low := strings.ToLower(answer)
	for _, p := range ex.spec.Rubric {
		for _, k := range p.Keywords {
			if strings.Contains(low, strings.ToLower(k)) {
				r.Mentioned = append(r.Mentioned, p.Point)
				break
			}
		}
	}
	r.Feedback = fmt.Sprintf("Answer recorded. Compare it with the model answer and the rubric: a good answer covers all %d points.", len(ex.spec.Rubric))
}
