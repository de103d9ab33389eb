package classroom_test

import (
	"encoding/json"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// TestAttemptScore: the credit rules of EXERCISES.md, attempt by attempt.
func TestAttemptScore(t *testing.T) {
	type b = classroom.Before
	for _, tc := range []struct {
		name    string
		rule    string
		share   float64
		correct bool
		before  b
		want    float64
	}{
		{"number right at once", classroom.RuleDeclining, 1, true, b{}, 1},
		{"number right after one wrong", classroom.RuleDeclining, 1, true, b{Tries: 1, Wrong: 1}, 0.75},
		{"number right after two wrong", classroom.RuleDeclining, 1, true, b{Tries: 2, Wrong: 2}, 0.5},
		// Three wrong tries show the answer, or in quiz mode end the
		// credit without showing it: guessing on earns nothing.
		{"number right after three wrong, not shown (quiz mode)", classroom.RuleDeclining, 1, true, b{Tries: 3, Wrong: 3}, 0},
		{"choose-several all right after three partial tries (quiz mode)", classroom.RulePartial, 1, true, b{Tries: 3, Wrong: 3}, 0},
		{"number wrong", classroom.RuleDeclining, 0, false, b{}, 0},
		{"number right after the reveal", classroom.RuleDeclining, 1, true, b{Tries: 1, Wrong: 1, Revealed: true}, 0},
		{"prediction right at once", classroom.RuleFirstTry, 1, true, b{}, 1},
		{"prediction right at the second try", classroom.RuleFirstTry, 1, true, b{Tries: 1, Wrong: 1}, 0},
		{"choose-several, two of three right, none wrong", classroom.RulePartial, 2.0 / 3, false, b{}, 2.0 / 3},
		{"choose-several all right after a wrong try", classroom.RulePartial, 1, true, b{Tries: 1, Wrong: 1}, 1},
		{"choose-several share out of range", classroom.RulePartial, 7, false, b{}, 1},
		{"choose-several after the reveal", classroom.RulePartial, 1, true, b{Revealed: true}, 0},
		{"scenario half the runs", classroom.RuleShare, 0.5, false, b{}, 0.5},
		{"scenario all or nothing, half", classroom.RuleAllOrNothing, 0.5, false, b{}, 0},
		{"open answer", classroom.RuleTeacher, 1, false, b{}, 0},
	} {
		if got := classroom.AttemptScore(tc.rule, tc.share, tc.correct, tc.before); got != tc.want {
			t.Errorf("%s: score %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStatusAndBestScore: what every view shows of a learner's progress.
func TestStatusAndBestScore(t *testing.T) {
	full := &classroom.Review{Score: 1}
	for _, tc := range []struct {
		name   string
		p      classroom.Progress
		status string
		score  string
		done   bool
	}{
		{"not tried", classroom.Progress{}, classroom.StatusNone, "", false},
		{"solved", classroom.Progress{Tries: 2, Correct: true, Solved: true, Score: 0.75}, classroom.StatusSolved, "0.75", true},
		{"right only after giving up", classroom.Progress{Tries: 1, Correct: true, GaveUp: true, Revealed: true}, classroom.StatusRevealed, "0", false},
		{"gave up without a try", classroom.Progress{GaveUp: true, Revealed: true}, classroom.StatusRevealed, "0", false},
		{"partly right", classroom.Progress{Tries: 1, Score: 0.5}, classroom.StatusPartial, "0.5", false},
		{"wrong", classroom.Progress{Tries: 2}, classroom.StatusWrong, "0", false},
		{"open, waiting", classroom.Progress{Tries: 1, Open: true, Revealed: true}, classroom.StatusSubmitted, "", false},
		{"open, scored 1", classroom.Progress{Tries: 1, Open: true, Revealed: true, Review: full}, classroom.StatusScored, "1", true},
		{"revealed, then scored by the teacher", classroom.Progress{Tries: 1, Correct: true, GaveUp: true, Revealed: true, Review: &classroom.Review{Score: 0.5}}, classroom.StatusRevealedScored, "0.5", false},
		// Revealed is never solved (EXERCISES.md), whatever the teacher gives.
		{"revealed without a try, scored 1", classroom.Progress{GaveUp: true, Revealed: true, Review: full}, classroom.StatusRevealedScored, "1", false},
		// A regrade found the try before the reveal right: solved, and the
		// review given while it was not stands no more.
		{"scored while revealed, then solved by a regrade", classroom.Progress{Tries: 1, Correct: true, Solved: true, Score: 1, GaveUp: true, Revealed: true, Review: &classroom.Review{Score: 0.25}}, classroom.StatusSolved, "1", true},
	} {
		sc, ok := classroom.BestScore(tc.p)
		got := ""
		if ok {
			got = fmtScore(sc)
		}
		if st := tc.p.Status(); st != tc.status || got != tc.score || tc.p.Done() != tc.done {
			t.Errorf("%s: status %q score %q done %v, want %q %q %v", tc.name, st, got, tc.p.Done(), tc.status, tc.score, tc.done)
		}
	}
}

func fmtScore(v float64) string {
	switch v {
	case 0:
		return "0"
	case 1:
		return "1"
	case 0.75:
		return "0.75"
	case 0.5:
		return "0.5"
	}
	return "?"
}

// TestProgressJSONIsWhatEveryViewShows: the APIs that give a learner's
// progress (/api/me, a learner's progress for the teacher) give the score,
// the status and "solved" the grid and the CSVs show, not the stored
// best attempt alone.
func TestProgressJSONIsWhatEveryViewShows(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      classroom.Progress
		score  float64
		status string
		solved bool
	}{
		{"revealed, then scored 1 by the teacher", classroom.Progress{Tries: 1, Score: 0.5, GaveUp: true, Revealed: true, Review: &classroom.Review{Score: 1}},
			1, classroom.StatusRevealedScored, false},
		{"open, scored 0.75", classroom.Progress{Tries: 1, Open: true, Revealed: true, Review: &classroom.Review{Score: 0.75}},
			0.75, classroom.StatusScored, false},
		{"solved at the second try", classroom.Progress{Tries: 2, Correct: true, Solved: true, Score: 0.75},
			0.75, classroom.StatusSolved, true},
	} {
		b, err := json.Marshal(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Score  float64 `json:"score"`
			Status string  `json:"status"`
			Solved bool    `json:"solved"`
			Tries  int     `json:"tries"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got.Score != tc.score || got.Status != tc.status || got.Solved != tc.solved || got.Tries != tc.p.Tries {
			t.Errorf("%s: %s, want score %v, status %q, solved %v", tc.name, b, tc.score, tc.status, tc.solved)
		}
	}
}
