package classroom

import (
	"encoding/json"
	"math"
	"time"
)

// Credit rules: how an attempt's check becomes its score, from 0 to 1
// (shared/EXERCISES.md, "Credit"). The checker names the rule of each
// exercise (lessons.Exercise.CreditRule); AttemptScore applies it.
const (
	// RuleDeclining is a number's (and a single choice's): 1 if right,
	// less 0.25 for each wrong try before it, at least 0.25, so that
	// trying every option in turn is not worth full marks.
	RuleDeclining = "declining"
	// RuleFirstTry is a prediction's: 1 if right at the first try; later
	// tries teach and earn nothing.
	RuleFirstTry = "first-try"
	// RulePartial is a choose-several's: the check's share,
	// max(0, right chosen - wrong chosen) / right options.
	RulePartial = "partial"
	// RuleShare is a scenario's that says partial credit is meaningful:
	// the share of its runs that pass.
	RuleShare = "share"
	// RuleAllOrNothing is 1 if right, 0 otherwise.
	RuleAllOrNothing = "all-or-nothing"
	// RuleTeacher is an open answer's: the teacher's review scores it,
	// and its attempts have no score of their own.
	RuleTeacher = "teacher"
)

// Before is where a learner stood on an exercise just before an attempt.
type Before struct {
	// Tries counts their graded attempts so far, Wrong the wrong ones.
	Tries, Wrong int
	// Revealed is set once the answer was shown to them (they gave up,
	// a wrong try or a submitted open answer showed it, or the teacher
	// showed it to the whole class: Settings.Revealed).
	Revealed bool
	// Late is set for an attempt after the class's deadline that the
	// teacher has not granted credit for (Store.CreditLate).
	Late bool
}

// HeldLate is the deadline rule, the one place it is decided for an
// attempt the store marked late (after the class's deadline by the
// store's clock, Settings.Late): such an attempt is kept and earns
// nothing, unless the teacher credited this learner's late work on the
// exercise (Store.CreditLate). Record, Rescore and CreditLate all read an
// attempt's Before.Late through it.
func HeldLate(marked, credited bool) bool { return marked && !credited }

// Solves reports whether a right attempt solves the exercise: given
// before the answer was shown and not held late. Record, Rescore and
// CreditLate all decide Progress.Solved with it.
func Solves(correct bool, b Before) bool {
	return correct && !b.Revealed && !b.Late && b.Wrong < CreditTries
}

// CreditTries is how many wrong tries end an exercise's credit: the
// tries after which the answer is shown (lessons.RevealAfter). In quiz
// mode the answer is not shown, and the credit ends all the same, so
// that guessing on never earns what a learner who was shown the answer
// cannot.
const CreditTries = 3

// AttemptScore is what one graded attempt earns under rule: share is the
// check's own measure (1 or 0 for right or wrong, a fraction for a
// choose-several or a scenario's runs), correct its verdict. Nothing is
// earned once the answer was revealed (a right answer then is practice),
// after CreditTries wrong tries (revealed or not), nor after the class's
// deadline.
func AttemptScore(rule string, share float64, correct bool, b Before) float64 {
	if b.Revealed || b.Late || b.Wrong >= CreditTries {
		return 0
	}
	if math.IsNaN(share) {
		share = 0
	}
	share = math.Max(0, math.Min(1, share))
	switch rule {
	case RuleTeacher:
		return 0
	case RuleFirstTry:
		if correct && b.Tries == 0 {
			return 1
		}
		return 0
	case RulePartial, RuleShare:
		if correct {
			return 1
		}
		return share
	case RuleDeclining:
		if !correct {
			return 0
		}
		return math.Max(0.25, 1-0.25*float64(b.Wrong))
	}
	if correct {
		return 1
	}
	return 0
}

// Progress statuses, as every view names them (Progress.Status).
const (
	StatusNone      = ""          // not attempted
	StatusSolved    = "solved"    // right before the answer was shown
	StatusRevealed  = "revealed"  // shown the answer before any right answer
	StatusPartial   = "partial"   // some credit (choose-several, scenario runs), not right
	StatusWrong     = "wrong"     // tried, nothing right yet
	StatusSubmitted = "submitted" // an open answer waiting for the teacher
	StatusScored    = "scored"    // an open answer the teacher scored
	// StatusResubmitted is an open answer the teacher scored, answered
	// again since: the score stands until the teacher scores the new one.
	StatusResubmitted = "resubmitted"
	StatusLate        = "late" // tried after the deadline, not solved before it
	// StatusRevealedScored is a checker-graded exercise revealed to the
	// learner and then scored by the teacher, who may give credit the
	// reveal took away.
	StatusRevealedScored = "revealed, scored"
)

// Status is where the learner stands on the exercise, the one word every
// view (grid, learner page, CSVs) shows: a revealed answer is never
// "solved", and an open answer is "scored" once the teacher scored it
// (a revealed graded exercise "revealed, scored").
func (p *Progress) Status() string {
	switch {
	case p.reviewCounts() && !p.Open:
		return StatusRevealedScored
	case p.AnsweredSinceReview():
		return StatusResubmitted
	case p.reviewCounts():
		return StatusScored
	case p.Open && p.Tries > 0:
		return StatusSubmitted
	case p.Solved:
		return StatusSolved
	case p.Late && !p.LateCredit:
		return StatusLate
	case p.Revealed:
		return StatusRevealed
	case p.Score > 0:
		return StatusPartial
	case p.Tries > 0:
		return StatusWrong
	}
	return StatusNone
}

// AnsweredSinceReview reports whether the learner answered an open
// question again after the teacher scored it: the teacher's score stands
// (it was earned), and the new answer waits to be scored.
func (p *Progress) AnsweredSinceReview() bool {
	return p.Open && p.Review != nil && p.LastAt.After(p.Review.At)
}

// Done reports whether the exercise counts as solved: right before the
// answer was shown, or an open answer the teacher gave full marks. What
// "Solved" counts on the dashboard and the learner's page. A revealed
// exercise the teacher scored is never solved, whatever the score.
func (p *Progress) Done() bool {
	if p.Open {
		return p.Review != nil && p.Review.Score >= 1
	}
	return p.Solved
}

// reviewCounts says whether the teacher's score is the exercise's: always
// for an open answer; for a checker-graded exercise only while its answer
// is revealed and it is not solved, which is when a review is taken. A
// regrade that finds an attempt from before the reveal right solves it,
// and the checker's score stands again.
func (p *Progress) reviewCounts() bool {
	return p.Review != nil && (p.Open || p.Revealed && !p.Solved)
}

// BestScore is a learner's score on an exercise: the best attempt's (0 to
// 1), or the teacher's score of an open answer or of a revealed one. ok is false when there is
// nothing to score yet: no attempt, or an open answer not scored yet (a
// gradebook leaves those blank). Multiply by the exercise's points
// (lessons.Exercise.Points) for a gradebook.
func BestScore(p Progress) (score float64, ok bool) {
	switch {
	case p.reviewCounts():
		return p.Review.Score, true
	case p.Open:
		return 0, false
	case p.Tries > 0 || p.GaveUp || p.Revealed:
		return p.Score, true
	}
	return 0, false
}

// ScoreChange says that a learner's best score on an exercise changed: a
// better attempt, a teacher's score of an open answer, or a regrade. It is
// what a gradebook passback sends on.
type ScoreChange struct {
	ClassID   int64  `json:"class_id"`
	ClassCode string `json:"class_code"`
	LearnerID int64  `json:"learner_id"`
	Exercise  string `json:"exercise"`
	// Score is the new best, from 0 to 1; Previous the one before (0 when
	// there was none).
	Score    float64   `json:"score"`
	Previous float64   `json:"previous"`
	At       time.Time `json:"at"`
}

// ClassAttempt is a recorded attempt with its learner's name: a row of
// attempts.csv.
type ClassAttempt struct {
	Attempt
	LearnerName string `json:"learner"`
}

// Verdict is the checker's new verdict on a recorded attempt, for
// Store.Rescore.
type Verdict struct {
	AttemptID int64
	Correct   bool
	// Share is the check's own measure (see AttemptScore).
	Share   float64
	Mistake string
	Parsed  string
}

// MaxRescoreVerdicts bounds one Rescore: every attempt of a full class
// at one exercise.
const MaxRescoreVerdicts = 500 * 200

// CheckRule validates a credit rule name.
func CheckRule(rule string) error {
	switch rule {
	case RuleDeclining, RuleFirstTry, RulePartial, RuleShare, RuleAllOrNothing, RuleTeacher:
		return nil
	}
	return Errorf(EINVALID, "rule: %q is not a credit rule", Excerpt(rule, ExcerptLen))
}

// MarshalJSON writes the progress as the APIs give it (/api/me, a
// learner's progress): its fields, with score the exercise's score as
// every view shows it (BestScore: a teacher's score where it counts)
// rather than the best attempt's alone, status the one word every view
// shows (Status), and solved whether it counts as solved (Done).
func (p Progress) MarshalJSON() ([]byte, error) {
	type fields Progress // without this method
	shown := fields(p)
	shown.Score, _ = BestScore(p)
	shown.Solved = p.Done()
	return json.Marshal(struct {
		fields
		Status string `json:"status"`
	}{shown, p.Status()})
}
