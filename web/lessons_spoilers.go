package web

import "github.com/leaselab/playground/engine"

// neutralScenarioLabel is how a learner's banner names a scenario their
// teacher pushed when its own title would say what goes wrong.
const neutralScenarioLabel = "a scenario from your teacher"

// pushLabel is the label a learner sees for a pushed scenario titled
// title. A preset's title states its outcome ("A paused holder writes
// late"), and a class may be about to predict it, so no preset's title is
// shown; a title of the teacher's own is.
func pushLabel(title string) string {
	if title == "" {
		return neutralScenarioLabel
	}
	for _, name := range engine.PresetNames() {
		if p, err := engine.LoadPreset(name); err == nil && p.Title == title {
			return neutralScenarioLabel
		}
	}
	return title
}
