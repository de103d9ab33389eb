package lessons

import (
	"fmt"
	"html"
	"strings"
)

// FormHTML renders an exercise as an HTML form for a variant: the prompt,
// the inputs its kind needs, a Check button and an empty live region for
// the feedback. The form posts {"answer", "variant"} to
// /api/exercises/{id}/check; script on the page sends it as JSON. The
// elements carry data-testid attributes for tests to find them.
func (ex *Exercise) FormHTML(variant int) (string, error) {
	p, err := ex.Serve(variant, Standing{})
	if err != nil {
		return "", err
	}
	id := html.EscapeString(ex.ID)
	var b strings.Builder
	fmt.Fprintf(&b, `<form class="exercise" id="exercise-%s" data-testid="exercise" data-exercise="%s" data-kind="%s" data-variant="%d" method="post" action="/api/exercises/%s/check">`+"\n",
		id, id, ex.Kind, variant, id)
	fmt.Fprintf(&b, `<h3 class="exercise-title">%s</h3>`+"\n", html.EscapeString(ex.Title))
	fmt.Fprintf(&b, `<div class="exercise-prompt">%s</div>`+"\n", p.Prompt)
	fmt.Fprintf(&b, `<input type="hidden" name="variant" value="%d">`+"\n", variant)
	switch {
	case len(p.Options) > 0:
		typ := "radio"
		if p.Multiple {
			typ = "checkbox"
		}
		fmt.Fprintf(&b, `<fieldset class="exercise-options"><legend>%s</legend>`+"\n", map[bool]string{true: "Choose all that apply", false: "Choose one"}[p.Multiple])
		for _, o := range p.Options {
			fmt.Fprintf(&b, `<label><input type="%s" name="answer" value="%s" data-testid="option-%s"> (%s) %s</label>`+"\n",
				typ, o.Key, o.Key, o.Key, html.EscapeString(o.Text))
		}
		b.WriteString("</fieldset>\n")
	case ex.Kind == KindScenario:
		b.WriteString(`<fieldset class="exercise-settings"><legend>Your settings</legend>` + "\n")
		for _, f := range p.Fields {
			fmt.Fprintf(&b, `<label>%s <input type="text" name="setting" data-path="%s" value="%s" maxlength="100" data-testid="setting"></label>`+"\n",
				html.EscapeString(f.Path), html.EscapeString(f.Path), html.EscapeString(f.Default))
		}
		b.WriteString("</fieldset>\n")
		fmt.Fprintf(&b, `<label>Or as JSON <textarea name="answer" rows="3" maxlength="%d" data-testid="answer">%s</textarea></label>`+"\n",
			MaxAnswerLen, html.EscapeString(defaultSettingsJSON(p)))
	case ex.Kind == KindText:
		fmt.Fprintf(&b, `<label>Your answer <textarea name="answer" rows="6" maxlength="%d" data-testid="answer"></textarea></label>`+"\n", MaxAnswerLen)
	default:
		fmt.Fprintf(&b, `<label>Your answer <input type="text" name="answer" autocomplete="off" maxlength="%d" data-testid="answer" data-unit="%s"></label>`+"\n",
			MaxAnswerLen, p.Unit)
	}
	label := "Check"
	switch ex.Kind {
	case KindPredict:
		label = "Commit my prediction and run it"
	case KindScenario:
		label = "Run my settings"
	case KindText:
		label = "Commit my answer"
	}
	fmt.Fprintf(&b, `<button type="submit" data-testid="check">%s</button>`+"\n", label)
	b.WriteString(`<output class="exercise-feedback" aria-live="polite" data-testid="feedback"></output>` + "\n")
	b.WriteString("</form>\n")
	return b.String(), nil
}

// defaultSettingsJSON is the starting JSON of a scenario form.
func defaultSettingsJSON(p Served) string {
	var parts []string
	for _, f := range p.Fields {
		k, v := f.Path, f.Default
		if v == "" {
			continue
		}
		if v == "true" || v == "false" || (v != "" && strings.Trim(v, "0123456789") == "") {
			parts = append(parts, fmt.Sprintf("%q: %s", k, v))
		} else {
			parts = append(parts, fmt.Sprintf("%q: %q", k, v))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// PageHTML renders a whole lesson for a variant: the body with its
// playgrounds, then an "Exercises" section with one form per exercise.
func (c *Catalog) PageHTML(l *Lesson, variant int) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, `<article class="lesson" data-testid="lesson" data-slug="%s">`+"\n", html.EscapeString(l.Slug))
	fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(l.Title))
	b.WriteString(l.HTML)
	if len(l.ExerciseIDs) > 0 {
		b.WriteString(`<section class="exercises" id="exercises"><h2>Exercises</h2>` + "\n")
		for _, ex := range c.LessonExercises(l) {
			f, err := ex.FormHTML(variant)
			if err != nil {
				return "", err
			}
			b.WriteString(f)
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</article>\n")
	return b.String(), nil
}
