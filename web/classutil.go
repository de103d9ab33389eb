package web

import (
	"strconv"

	"github.com/leaselab/playground/engine"
)

func presetNames() []string { return engine.PresetNames() }

func openWord(open bool) string {
	if open {
		return "open"
	}
	return "closed"
}

func toggleWord(open bool) string {
	if open {
		return "Close joining"
	}
	return "Open joining"
}

func learnersWord(n int) string {
	if n == 1 {
		return "1 learner"
	}
	return strconv.Itoa(n) + " learners"
}

// cellText is a grid cell's words: a mark and the tries, so that the
// colour is never the only sign.
func cellText(c dashCell) string {
	switch {
	case c.Correct:
		return "✓ " + strconv.Itoa(c.Tries)
	case c.Tries > 0:
		return "✗ " + strconv.Itoa(c.Tries)
	}
	return ""
}

func exState(correct bool, tries int) string {
	return dashCell{Tries: tries, Correct: correct}.State()
}

func exMark(correct bool, tries int) string {
	switch {
	case correct:
		return "✓"
	case tries > 0:
		return "…"
	}
	return "○"
}

func exWords(correct bool, tries int) string {
	switch {
	case correct && tries == 1:
		return "solved at the first try"
	case correct:
		return "solved in " + strconv.Itoa(tries) + " tries"
	case tries == 1:
		return "1 try, not solved yet"
	case tries > 0:
		return strconv.Itoa(tries) + " tries, not solved yet"
	}
	return "not tried"
}
