package lessons

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"

	"github.com/leaselab/playground/engine"
)

// A prediction is worth something only if nothing on the page has given
// its outcome away before the learner commits. This file finds what a
// learner can read before each prediction: the lesson's title, every
// heading (the table of contents lists them all at the top), the text down
// to the prediction, the prediction's own title and prompt, and the
// locked playground it opens.

var (
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
	spaceRE = regexp.MustCompile(`\s+`)
)

// visibleText turns rendered HTML into the words a reader sees, lower
// case, with typographic quotes and dashes made plain so that a phrase
// written with straight quotes still matches.
func visibleText(h string) string {
	s := html.UnescapeString(tagRE.ReplaceAllString(h, " "))
	s = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u201c", `"`, "\u201d", `"`, "\u2013", "-", "\u2014", "-", "\u00a0", " ").Replace(s)
	return strings.ToLower(strings.TrimSpace(spaceRE.ReplaceAllString(s, " ")))
}

// BeforePrediction is the text a learner can see on a lesson's page
// before answering the prediction exerciseID: the lesson's entry in the
// index (title, question, summary), everything above its form,
// the form's title and prompt, and the locked playground it opens, if it
// opens one. ok is false when the prediction has no place in the lesson.
func (c *Catalog) BeforePrediction(l *Lesson, exerciseID string) (text string, ok bool) {
	var b strings.Builder
	// The title, and the question and summary the lesson index shows.
	b.WriteString(l.Title + "\n" + l.Question + "\n" + l.Summary + "\n")
	for _, h := range l.Headings {
		if h.Level == 2 {
			b.WriteString(h.Text + "\n")
		}
	}
	for i, seg := range l.Segments {
		b.WriteString(seg.HTML)
		if seg.Exercise != exerciseID {
			continue
		}
		if ex, err := c.Exercise(exerciseID); err == nil {
			if sv, err := ex.Serve(0, Standing{}); err == nil {
				b.WriteString("\n" + ex.Title + "\n" + sv.Prompt + "\n")
			}
		}
		// The playground a prediction opens is on screen, locked, beside
		// it; a prediction placed by a marker opens none, and what follows
		// it is read after answering.
		if i+1 < len(l.Segments) && c.GatesPlayground(exerciseID) {
			next := l.Segments[i+1].HTML
			if end := strings.Index(next, "</figure>"); end >= 0 {
				b.WriteString(next[:end])
			}
		}
		return visibleText(b.String()), true
	}
	return "", false
}

// Giveaways are the phrases that would state a prediction's outcome: the
// title of the preset its playground runs (written to say what goes
// wrong) and the phrases its exercise file lists under reveals.
func (c *Catalog) Giveaways(exerciseID string) []string {
	ex, err := c.Exercise(exerciseID)
	if err != nil {
		return nil
	}
	var out []string
	if ex.spec.Scenario != nil {
		if p, err := engine.LoadPreset(ex.spec.Scenario.Preset); err == nil && p.Title != "" {
			out = append(out, p.Title)
		}
	}
	return append(out, ex.spec.Reveals...)
}

// reveals are the phrases an exercise file lists as stating its outcome.
func (c *Catalog) reveals(exerciseID string) []string {
	if ex, err := c.Exercise(exerciseID); err == nil {
		return ex.spec.Reveals
	}
	return nil
}

// spoilerProblems lists every prediction whose outcome is given away by
// the text a learner sees before answering it: those that open a
// playground and those placed in the text by an exercise marker, whose
// form sits just as far down the page.
func (c *Catalog) spoilerProblems() []string {
	var out []string
	for _, l := range c.lessons {
		for _, id := range c.placedPredictions(l) {
			seen, ok := c.BeforePrediction(l, id)
			if !ok {
				continue
			}
			giveaways := c.Giveaways(id)
			if !c.GatesPlayground(id) {
				// A prediction placed by a marker shows no locked playground
				// whose title would sit beside it; its preset may be run
				// earlier in the lesson under that title, as the lesson
				// builds up to it. Its own reveals still count.
				giveaways = c.reveals(id)
			}
			for _, g := range giveaways {
				if strings.Contains(seen, visibleText(g)) {
					out = append(out, fmt.Sprintf("%s: the text before the prediction %s gives it away: it shows %q", l.File, id, g))
				}
			}
		}
	}
	return out
}

// placedPredictions are a lesson's predictions that have a place in its
// text, in page order, each once.
func (c *Catalog) placedPredictions(l *Lesson) []string {
	var ids []string
	for _, id := range l.Inline {
		if ex, err := c.Exercise(id); err == nil && ex.Kind == KindPredict && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, pg := range l.Playgrounds {
		if pg.Predict != "" && !slices.Contains(ids, pg.Predict) {
			ids = append(ids, pg.Predict)
		}
	}
	return ids
}
