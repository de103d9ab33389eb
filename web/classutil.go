package web

import (
	"strconv"

	"github.com/leaselab/playground/classroom"
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

// learnerCount sums a learner's page up: the graded exercises solved and
// the open questions answered.
func learnerCount(d LearnerData) string {
	out := strconv.Itoa(d.Done) + " of " + strconv.Itoa(d.Total) + " exercises solved"
	if d.Open > 0 {
		out += "; " + strconv.Itoa(d.Answered) + " of " + strconv.Itoa(d.Open) + " open questions answered"
	}
	return out + "."
}

// openMark is an open question's mark: answered (whether scored yet or
// not, the words say) or not.
func openMark(tries int) string {
	if tries > 0 {
		return "✎"
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

// openWords says where an open answer stands: it is submitted and read by
// the teacher, never "solved".
func openWords(tries int, reviewed bool) string {
	switch {
	case tries == 0:
		return "not answered"
	case reviewed:
		return "answered; scored by your teacher"
	}
	return "answered; waiting for your teacher"
}

// variantsWord says how a class's learners get their numbers.
func variantsWord(mode string) string {
	if mode == "shared" {
		return "everyone has the lesson's numbers"
	}
	return "each learner has their own numbers"
}

// reviewScore is a review's score for a number input, "" without one.
func reviewScore(r *classroom.Review) string {
	if r == nil {
		return ""
	}
	return strconv.FormatFloat(r.Score, 'f', -1, 64)
}

// reviewComment is a review's comment, "" without one.
func reviewComment(r *classroom.Review) string {
	if r == nil {
		return ""
	}
	return r.Comment
}

// reviewState says whether an answer was scored.
func reviewState(r *classroom.Review) string {
	if r == nil {
		return "not scored yet"
	}
	return "scored " + reviewScore(r)
}

// untriedWord is the folded line of the exercises nobody has tried yet.
func untriedWord(n int) string {
	if n == 1 {
		return "1 exercise not tried yet"
	}
	return strconv.Itoa(n) + " exercises not tried yet"
}

// toMarkWord is the header's link to the open answers not scored yet.
func toMarkWord(n int) string {
	switch n {
	case 0:
		return "No answers to mark"
	case 1:
		return "1 answer to mark"
	}
	return strconv.Itoa(n) + " answers to mark"
}
