package web

import (
	"fmt"

	"github.com/leaselab/playground/lessons"
)

// checkLabel is what an exercise's submit button says.
func checkLabel(kind string) string {
	switch kind {
	case lessons.KindPredict:
		return "Commit my prediction"
	case lessons.KindScenario:
		return "Run my settings"
	case lessons.KindText:
		return "Submit my answer"
	}
	return "Check"
}

// triesWords says how far a learner is from being shown the answer.
func triesWords(tries int, kind string) string {
	if tries == 0 || kind == lessons.KindText {
		return ""
	}
	left := lessons.RevealAfter - tries
	if left <= 0 {
		return fmt.Sprintf("%d wrong tries", tries)
	}
	if tries == 1 {
		return fmt.Sprintf("1 wrong try; the answer is shown after %d", lessons.RevealAfter)
	}
	return fmt.Sprintf("%d wrong tries; the answer is shown after %d", tries, lessons.RevealAfter)
}

// hintWord heads the list of hints.
func hintWord(n int) string {
	if n == 1 {
		return "Hint:"
	}
	return "Hints:"
}

// optionType is a choice's input type.
func optionType(multiple bool) string {
	if multiple {
		return "checkbox"
	}
	return "radio"
}

// unitExample is a number field's placeholder: how an answer may look.
func unitExample(unit string) string {
	switch unit {
	case lessons.UnitSeconds:
		return "e.g. 20 s or 15 min"
	case lessons.UnitRupees:
		return "e.g. Rs 42,000"
	case lessons.UnitPerSecond:
		return "e.g. 2,000 writes/s"
	}
	return "e.g. 50 or 45x"
}
