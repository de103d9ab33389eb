package lessons

import (
	"strings"
)

// Standing is what one learner has done on one variant of one exercise
// so far. The server keeps it (the class store, or a practice cookie it
// signs); it decides which hints show and whether the worked solution may
// be given.
type Standing struct {
	// Tries counts graded wrong answers (unreadable ones cost none).
	Tries     int  `json:"tries"`
	Correct   bool `json:"correct"`
	GaveUp    bool `json:"gave_up"`
	Submitted bool `json:"submitted"` // a text answer was sent
}

// Earned reports whether the learner may now see the answer and the
// worked solution: after a right answer, a submitted text answer, giving
// up, or RevealAfter wrong tries.
func (s Standing) Earned() bool {
	return s.Correct || s.Submitted || s.GaveUp || s.Tries >= RevealAfter
}

// Served is an exercise as the API serves it to one learner for one
// variant (GET /api/exercises/{id}): everything needed to answer it and
// nothing that gives the answer away. No answer, key or solution is in it.
type Served struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Title   string `json:"title"`
	Lesson  string `json:"lesson"`
	Variant int    `json:"variant"`
	// Prompt is the question rendered to HTML with this variant's numbers;
	// PromptText is the same in Markdown, for a terminal.
	Prompt     string `json:"prompt"`
	PromptText string `json:"prompt_text"`
	// Unit is what a numeric answer is measured in (count, seconds,
	// rupees, per_second).
	Unit     string `json:"unit,omitempty"`
	Multiple bool   `json:"multiple"`
	// Options are shuffled per variant and lettered after shuffling: Key
	// is the letter shown (a, b, c in order), ID the option's stable id,
	// the same on every variant, which forms send as the answer.
	Options []Option `json:"options"`
	// Fields are what a scenario answer may set, with their ranges.
	Fields []Field `json:"fields"`
	// Preset is the scenario a prediction or scenario exercise runs; a
	// prediction's only once the learner may see its answer.
	Preset string `json:"preset,omitempty"`
	// Hints are those the learner's wrong tries have unlocked.
	Hints []string `json:"hints"`
	Tries int      `json:"tries"`
	// Earned says the solution may be fetched now (Standing.Earned).
	Earned bool `json:"earned"`
}

// Option is one choice as shown to a learner.
type Option struct {
	// Key is the letter this variant shows the option under.
	Key string `json:"key"`
	// ID names the option on every variant (Exercise.PublicOptionID,
	// "option-" and eight hex digits): an answer may give it instead of
	// the letter. It says nothing of the option's key in the file.
	ID   string `json:"id"`
	Text string `json:"text"`
	// Stable is the option's stable id ("option-b"), which the checker
	// reads answers as (Result.Read) and names mistakes by; kept on the
	// server.
	Stable string `json:"-"`
}

// Serve renders the exercise for a variant as one learner stands on it.
func (ex *Exercise) Serve(variant int, st Standing) (Served, error) {
	env, err := ex.params(variant)
	if err != nil {
		return Served{}, err
	}
	text := fill(ex.spec.Prompt, env)
	html, err := renderMarkdown(text)
	if err != nil {
		return Served{}, err
	}
	s := Served{ID: ex.ID, Kind: ex.Kind, Title: ex.Title, Lesson: ex.Lesson, Variant: variant,
		Prompt: html, PromptText: text, Unit: ex.spec.Unit, Multiple: ex.spec.Multiple,
		Options: []Option{}, Fields: []Field{}, Hints: []string{}, Tries: st.Tries, Earned: st.Earned()}
	if ex.Kind == KindNumber || (ex.Kind == KindPredict && len(ex.options) == 0) {
		if s.Unit == "" {
			s.Unit = UnitCount
		}
	}
	for pos, i := range ex.optionOrder(variant) {
		o := ex.options[i]
		s.Options = append(s.Options, Option{Key: letter(pos), ID: ex.PublicOptionID(o.Key), Stable: optionID(o.Key), Text: fill(o.Text, env)})
	}
	if ex.spec.Scenario != nil && (ex.Kind != KindPredict || s.Earned) {
		// A prediction's preset is named once it is earned: a name can
		// state the outcome ("restart-forgets").
		s.Preset = ex.spec.Scenario.Preset
	}
	if ex.Kind == KindScenario {
		if s.Fields, err = ex.fields(env); err != nil {
			return Served{}, err
		}
	}
	if st.Tries > 0 {
		s.Hints = ex.HintsAfter(st.Tries, variant)
	}
	return s, nil
}

// PromptMarkdown is the question for a variant in Markdown, numbers
// filled in: what the command line prints.
func (ex *Exercise) PromptMarkdown(variant int) (string, error) {
	env, err := ex.params(variant)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(fill(ex.spec.Prompt, env)), nil
}

// Varies reports whether the exercise draws its numbers per variant, so
// that practising "with other numbers" means something.
func (ex *Exercise) Varies() bool { return len(ex.spec.Params) > 0 }

// GatesPlayground reports whether a playground of its lesson waits for
// this prediction before it runs.
func (c *Catalog) GatesPlayground(exerciseID string) bool {
	for _, l := range c.lessons {
		for _, pg := range l.Playgrounds {
			if pg.Predict == exerciseID {
				return true
			}
		}
	}
	return false
}
