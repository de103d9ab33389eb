package web

import (
	"math"
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

// scoreWord writes a score as the CSVs do: 1, 0.75, 0.5.
func scoreWord(v float64) string {
	// To the millionth, as the gradebook writes points: 1/3 reads
	// 0.333333 in every view.
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

// triesWord is "3 tries · " for a tooltip, "" for none.
func triesWord(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "1 try · "
	}
	return strconv.Itoa(n) + " tries · "
}

// statusWord says a classroom.Progress.Status in words.
func statusWord(status string) string {
	switch status {
	case classroom.StatusSolved:
		return "solved"
	case classroom.StatusRevealed:
		return "revealed: the answer was shown before a right answer; answers after it earn nothing"
	case classroom.StatusPartial:
		return "partly right"
	case classroom.StatusLate:
		return "late: tried after the deadline; those tries earn nothing"
	case classroom.StatusWrong:
		return "not right yet"
	case classroom.StatusSubmitted:
		return "answered, waiting for a score"
	case classroom.StatusScored:
		return "scored by the teacher"
	case classroom.StatusResubmitted:
		return "answered again since you scored it: the score stands until you score the new answer"
	case classroom.StatusRevealedScored:
		return "revealed, then scored by the teacher"
	}
	return "not tried"
}

// learnerMark is the mark beside an exercise on the learner's page.
func learnerMark(status string) string {
	switch status {
	case classroom.StatusSolved:
		return "✓"
	case classroom.StatusPartial:
		return "◐"
	case classroom.StatusWrong:
		return "…"
	case classroom.StatusRevealed, classroom.StatusRevealedScored:
		return "↺"
	case classroom.StatusLate:
		return "⏰"
	case classroom.StatusSubmitted, classroom.StatusScored, classroom.StatusResubmitted:
		return "✎"
	}
	return "○"
}

// learnerCount sums a learner's page up: the exercises solved, the open
// questions answered, and the score over every exercise, as the
// teacher's row for them counts them (classroom.Totals).
func learnerCount(d LearnerData) string {
	out := strconv.Itoa(d.Totals.Solved) + " of " + strconv.Itoa(d.Exercises) + " exercises solved"
	if d.Open > 0 {
		out += " (an open question counts as solved when your teacher gives it full marks). " +
			strconv.Itoa(d.Answered) + " of " + strconv.Itoa(d.Open) + " open questions answered"
	}
	return out + ". Your score: " + scoreWord(d.Totals.Points) + " of " + scoreWord(d.Totals.Of) + "."
}

// learnerWords says where the learner stands on an exercise, with its
// score: the same status and score as the teacher's grid and exports.
func learnerWords(ex learnerExercise) string {
	score := ""
	if ex.Score != "" {
		score = " · score " + ex.Score
	}
	if ex.LateCredit {
		score += " · late, counted by your teacher"
	}
	switch ex.Status {
	case classroom.StatusSolved:
		if ex.TriesToCorrect == 1 {
			return "solved at the first try" + score
		}
		return "solved in " + strconv.Itoa(ex.TriesToCorrect) + " tries" + score
	case classroom.StatusRevealed:
		if ex.ClassRevealed {
			// The line beside it (classRevealedWords) says why.
			return "revealed" + score
		}
		return "revealed: you saw the answer first, so answering it is practice" + score
	case classroom.StatusPartial:
		return "partly right" + score
	case classroom.StatusLate:
		return "late: answered after the deadline, so those answers earn nothing" + score
	case classroom.StatusWrong:
		if ex.Tries == 1 {
			return "1 try, not solved yet" + score
		}
		return strconv.Itoa(ex.Tries) + " tries, not solved yet" + score
	case classroom.StatusSubmitted:
		return "answered; waiting for your teacher"
	case classroom.StatusScored:
		return "answered; scored by your teacher" + score
	case classroom.StatusResubmitted:
		return "answered again; your teacher's score is for your earlier answer until they score this one" + score
	case classroom.StatusRevealedScored:
		return "revealed, then scored by your teacher" + score
	}
	if ex.Open {
		return "not answered"
	}
	return "not tried"
}

// classRevealedWords tell a learner, where an exercise is listed and
// where it is answered, that the teacher showed the class its answer:
// before they type one, not after it earned nothing.
const classRevealedWords = "Your teacher showed the answer in class: answers now earn nothing (what you earned before stands)."

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
	return scoreWord(r.Score)
}

// reviewComment is a review's comment, "" without one.
func reviewComment(r *classroom.Review) string {
	if r == nil {
		return ""
	}
	return r.Comment
}

// reviewState says whether an answer was scored.
func reviewState(a dashAnswer) string {
	switch {
	case a.Review == nil:
		return "not scored yet"
	case a.Rescore:
		return "not scored yet: " + reviewScore(a.Review) + " was for an earlier answer"
	}
	return "scored " + reviewScore(a.Review)
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

// gradebookLink is one of the dashboard's gradebook downloads: the query
// of gradebook.csv and what it is for.
type gradebookLink struct{ Query, Label, TestID string }

// gradebookLinks are the gradebook's formats, by exercise and by lesson,
// as the dashboard's Gradebook menu offers them (teacher.js keeps their
// addresses when the join code changes).
var gradebookLinks = []gradebookLink{
	{"format=canvas", "Canvas, a column per exercise", "gradebook-canvas"},
	{"format=canvas&by=lesson", "Canvas, a column per lesson", "gradebook-canvas-lessons"},
	{"format=moodle", "Moodle, a column per exercise", "gradebook-moodle"},
	{"format=moodle&by=lesson", "Moodle, a column per lesson", "gradebook-moodle-lessons"},
	{"format=plain", "Plain CSV, a column per exercise", "gradebook-plain"},
	{"format=plain&by=lesson", "Plain CSV, a column per lesson", "gradebook-plain-lessons"},
}

// gradebookHref is the address of a class's gradebook in one format.
func gradebookHref(code, query string) string {
	return "/api/classes/" + code + "/gradebook.csv?" + query
}
