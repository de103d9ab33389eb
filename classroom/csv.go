package classroom

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"
)

// WriteProgressCSV writes the long export (progress.csv): a header, then one
// row per learner and exercise, every learner times every exercise, so a
// row for work never started is there too:
//
//	learner,exercise,attempted,correct,tries,tries_to_correct,first_at,last_at,gave_up,score,comment
//
// exercises gives the columns' order (the catalog's); nil means
// d.Exercises. Times are RFC 3339 in UTC, empty when never attempted.
// gave_up is 1 once the learner asked to be shown the answer; score and
// comment are the teacher's review of an open answer, empty without one.
func WriteProgressCSV(w io.Writer, d *Dashboard, exercises []string) error {
	if exercises == nil {
		exercises = d.Exercises
	}
	idx := d.progressIndex()
	cw := csv.NewWriter(w)
	cw.Write([]string{"learner", "exercise", "attempted", "correct", "tries", "tries_to_correct", "first_at", "last_at", "gave_up", "score", "comment"})
	for _, l := range d.Learners {
		for _, ex := range exercises {
			row := []string{cell(l.Name), cell(ex), "0", "0", "0", "0", "", "", "0", "", ""}
			if p := idx[l.ID][ex]; p != nil {
				row[2] = bit(p.Tries > 0)
				row[3] = bit(p.Correct)
				row[4] = strconv.Itoa(p.Tries)
				row[5] = strconv.Itoa(p.TriesToCorrect)
				row[6] = stamp(p.FirstAt)
				row[7] = stamp(p.LastAt)
				row[8] = bit(p.GaveUp)
				if p.Review != nil {
					row[9] = score(p.Review.Score)
					row[10] = cell(p.Review.Comment)
				}
			}
			cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteWideCSV writes the wide export: one row per learner, one column per
// exercise, and a total. A cell is 1 for correct, 0 for attempted but not
// (yet) correct, and empty for not attempted, so a spreadsheet can sum
// the columns:
//
//	learner,ex-a,ex-b,...,correct
func WriteWideCSV(w io.Writer, d *Dashboard, exercises []string) error {
	if exercises == nil {
		exercises = d.Exercises
	}
	idx := d.progressIndex()
	cw := csv.NewWriter(w)
	header := []string{"learner"}
	for _, ex := range exercises {
		header = append(header, cell(ex))
	}
	cw.Write(append(header, "correct"))
	for _, l := range d.Learners {
		row := []string{cell(l.Name)}
		total := 0
		for _, ex := range exercises {
			v := ""
			if p := idx[l.ID][ex]; p != nil && (p.Tries > 0 || p.Correct) {
				v = bit(p.Correct)
				if p.Correct {
					total++
				}
			}
			row = append(row, v)
		}
		cw.Write(append(row, strconv.Itoa(total)))
	}
	cw.Flush()
	return cw.Error()
}

// WriteAnswersCSV writes answers.csv: one row per open answer, oldest
// first, with the teacher's score and comment on that learner's answers to
// the exercise (empty until reviewed):
//
//	learner,exercise,variant,answer,time,score,comment
func WriteAnswersCSV(w io.Writer, answers []TextAnswer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"learner", "exercise", "variant", "answer", "time", "score", "comment"})
	for _, a := range answers {
		row := []string{cell(a.LearnerName), cell(a.Exercise), strconv.Itoa(a.Variant), cell(a.Answer), stamp(a.At), "", ""}
		if a.Review != nil {
			row[5], row[6] = score(a.Review.Score), cell(a.Review.Comment)
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// score writes a review's score as a spreadsheet reads it: 1, 0.5, 0.75.
func score(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

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
