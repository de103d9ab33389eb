package lessons

import (
	"fmt"
	"html/template"
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
	for i, p := range spec.Rubric {
		if strings.TrimSpace(p.Point) == "" {
			l.bad([]string{"rubric", fmt.Sprint(i)}, "a rubric point needs point: what a good answer says")
		}
	}
}

// minTextWords is the least an open answer must say to be taken: fewer
// words cannot be compared with a model answer, and sending them would
// show the model answer for nothing.
const minTextWords = 3

// checkText takes an open answer as it is. Nothing in the answer is
// matched against anything: a machine that ticks rubric points for
// keywords ticks them for "banana idempotency key" too. The answer is
// submitted, the learner gets the model answer and the rubric to compare
// with, and in a class the teacher reads and scores it.
func (ex *Exercise) checkText(r *Result, answer string) {
	if len(strings.Fields(answer)) < minTextWords {
		r.FormatError = "Write your answer in a sentence or two first; then you will see the model answer."
		r.Feedback = r.FormatError
		return
	}
	r.Submitted = true
	r.Read = strings.TrimSpace(answer)
	r.ModelAnswer = ex.spec.ModelAnswer
	r.ModelAnswerHTML = modelAnswerHTML(ex.spec.ModelAnswer)
	r.Rubric = ex.spec.Rubric
	r.Feedback = fmt.Sprintf("Answer submitted. Compare it with the model answer and the %d points of the rubric; in a class, your teacher reads it and gives it a score.", len(ex.spec.Rubric))
}

// AnswerKey returns what an open (text) exercise is marked against: its
// model answer and the points of its rubric. It is for whoever marks the
// answers (a class's teacher); learners see it only after submitting.
// Exercises of other kinds have no key and return "" and nil.
func (ex *Exercise) AnswerKey() (model string, rubric []RubricPoint) {
	if ex.Kind != KindText {
		return "", nil
	}
	return ex.spec.ModelAnswer, ex.spec.Rubric
}

// ModelAnswerHTML is an open (text) exercise's model answer rendered to
// HTML, as a check's ModelAnswerHTML carries it: pages show this and never
// render the Markdown themselves. Exercises of other kinds return "".
func (ex *Exercise) ModelAnswerHTML() string {
	model, _ := ex.AnswerKey()
	return modelAnswerHTML(model)
}

// modelAnswerHTML renders a model answer's Markdown; an answer that does
// not render is shown as its text, escaped.
func modelAnswerHTML(md string) string {
	if md == "" {
		return ""
	}
	html, err := renderMarkdown(md)
	if err != nil {
		return "<p>" + template.HTMLEscapeString(md) + "</p>"
	}
	return html
}
