package classroom

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"time"
)

// WriteProgressCSV writes the long export (progress.csv): a header, then one
// row per learner and exercise, every learner times every exercise, so a
// row for work never started is there too:
//
//	learner,exercise,attempted,correct,tries,tries_to_correct,first_at,last_at,gave_up,score,comment,revealed,status
//
// exercises gives the columns' order (the catalog's); nil means
// d.Exercises. Times are RFC 3339 in UTC, empty when never attempted.
// correct is 1 once the exercise is solved (Progress.Done: right before
// the answer was shown, or an open answer given full marks); gave_up is 1
// once the learner asked to be shown the answer, revealed once it was
// shown in any way; score is the exercise's score (BestScore: the best
// attempt's, or the teacher's of an open answer), empty when there is
// nothing to score; comment the teacher's; status the word every view
// shows (Progress.Status).
func WriteProgressCSV(w io.Writer, d *Dashboard, exercises []string) error {
	if exercises == nil {
		exercises = d.Exercises
	}
	idx := d.progressIndex()
	cw := csv.NewWriter(w)
	cw.Write([]string{"learner", "exercise", "attempted", "correct", "tries", "tries_to_correct", "first_at", "last_at", "gave_up", "score", "comment", "revealed", "status"})
	for _, l := range d.Learners {
		for _, ex := range exercises {
			row := []string{cell(l.Name), cell(ex), "0", "0", "0", "0", "", "", "0", "", "", "0", ""}
			if p := idx[l.ID][ex]; p != nil {
				row[2] = bit(p.Tries > 0)
				row[3] = bit(p.Done())
				row[4] = strconv.Itoa(p.Tries)
				row[5] = strconv.Itoa(p.TriesToCorrect)
				row[6] = stamp(p.FirstAt)
				row[7] = stamp(p.LastAt)
				row[8] = bit(p.GaveUp)
				if v, ok := BestScore(*p); ok {
					row[9] = score(v)
				}
				if p.Review != nil {
					row[10] = cell(p.Review.Comment)
				}
				// Shown before any right answer, whatever the status puts
				// first ("late" over "revealed"); an open answer's model
				// answer, shown once it is submitted, is not a reveal.
				row[11] = bit(p.Revealed && !p.Solved && !p.Open)
				row[12] = p.Status()
			}
			cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteWideCSV writes the wide export: one row per learner, one column per
// item (an exercise each, GradeItem), and their total. A cell is the
// exercise's score from 0 to 1 (BestScore), 0 when attempted and nothing
// earned, and empty when there is nothing to score (not attempted, or an
// open answer not scored yet); the score column is the learner's points
// (Totals), the cells' sum, as every exercise is worth one point. With
// nil items the columns are the exercises the class has tried:
//
//	learner,ex-a,ex-b,...,score
func WriteWideCSV(w io.Writer, d *Dashboard, items []GradeItem) error {
	if items == nil {
		items = ExerciseItems(d.Exercises, nil)
	}
	idx := d.progressIndex()
	totals := d.Totals(items)
	cw := csv.NewWriter(w)
	header := []string{"learner"}
	for _, it := range items {
		header = append(header, cell(it.Name))
	}
	cw.Write(append(header, "score"))
	for _, l := range d.Learners {
		row := []string{cell(l.Name)}
		for _, it := range items {
			v := ""
			for _, part := range it.Parts {
				if p := idx[l.ID][part.Exercise]; p != nil {
					if sc, ok := BestScore(*p); ok {
						v = score(sc)
					}
				}
			}
			row = append(row, v)
		}
		cw.Write(append(row, score(totals[l.ID].Points)))
	}
	cw.Flush()
	return cw.Error()
}

// WriteAttemptsCSV writes attempts.csv: every attempt, oldest first, with
// the answer as typed and as the checker read it, its result (right,
// partial, wrong, submitted), what it earned, and whether the answer had been
// shown before it, whether it came after the class's deadline, and
// whether the learner had run the prediction's scenario before it
// (Attempt.AfterRun):
//
//	learner,exercise,variant,try,answer,read,result,score,after_reveal,time,late,after_run
func WriteAttemptsCSV(w io.Writer, attempts []ClassAttempt) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"learner", "exercise", "variant", "try", "answer", "read", "result", "score", "after_reveal", "time", "late", "after_run"})
	for _, a := range attempts {
		result, sc := "wrong", score(a.Score)
		switch {
		case !a.Graded:
			result, sc = "submitted", ""
		case a.Correct:
			result = "right"
		case a.Score > 0:
			result = "partial" // some of it right, as the grid says
		}
		cw.Write([]string{cell(a.LearnerName), cell(a.Exercise), strconv.Itoa(a.Variant), strconv.Itoa(a.Try),
			cell(a.Answer), cell(a.Parsed), result, sc, bit(a.AfterReveal), stamp(a.At), bit(a.Late), bit(a.AfterRun)})
	}
	cw.Flush()
	return cw.Error()
}

// roundScore drops the float noise of a sum of scores (0.1 + 0.2).
func roundScore(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// WriteAnswersCSV writes answers.csv: one row per open answer, oldest
// first, with the teacher's score and comment on that learner's answers to
// the exercise, on the answers written before it (empty on those not
// scored yet: before any review, and since the last), and whether the
// answer came after the class's deadline (late, 1 or 0):
//
//	learner,exercise,variant,answer,time,score,comment,late
func WriteAnswersCSV(w io.Writer, answers []TextAnswer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"learner", "exercise", "variant", "answer", "time", "score", "comment", "late"})
	for _, a := range answers {
		row := []string{cell(a.LearnerName), cell(a.Exercise), strconv.Itoa(a.Variant), cell(a.Answer), stamp(a.At), "", "", bit(a.Late)}
		if a.Reviewed() {
			row[5], row[6] = score(a.Review.Score), cell(a.Review.Comment)
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// score writes a review's score as a spreadsheet reads it: 1, 0.5, 0.75.
func score(v float64) string { return strconv.FormatFloat(roundScore(v), 'f', -1, 64) }

// cell neutralises spreadsheet formula injection: a learner named
// "=HYPERLINK(...)" or "@SUM(...)" would otherwise run as a formula when
// the teacher opens the export. A leading apostrophe makes it text, as
// OWASP recommends; quoting of commas and quotes is encoding/csv's job.
func cell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
