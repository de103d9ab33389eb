package classroom

import (
	"encoding/csv"
	"io"
)

// Gradebook formats (GET /api/classes/{code}/gradebook.csv?format=...).
const (
	// GradebookCanvas is Canvas's gradebook import: Student, ID, SIS User
	// ID, SIS Login ID, Section, then one column per assignment, and a
	// "Points Possible" row under the header.
	GradebookCanvas = "canvas"
	// GradebookMoodle is Moodle's CSV grade import: an "ID number" and an
	// "Email address" column for its "Identify user by" mapping, the name,
	// then one column per grade item.
	GradebookMoodle = "moodle"
	// GradebookPlain is learner, student_id, email, then the items.
	GradebookPlain = "plain"
)

// GradebookFormats lists the formats WriteGradebookCSV knows.
var GradebookFormats = []string{GradebookCanvas, GradebookMoodle, GradebookPlain}

// GradePart is one exercise counted in a gradebook column, with what it is
// worth.
type GradePart struct {
	Exercise string
	Points   float64
}

// GradeItem is one gradebook column: an exercise, or a lesson summing its
// exercises.
type GradeItem struct {
	// Name heads the column (an exercise id or a lesson slug: unique and
	// stable, so a second import updates the same assignment).
	Name  string
	Parts []GradePart
}

// ItemOf is the gradebook column name counting exercises, each worth
// points(id). A lesson's column counts every exercise it lists, open
// answers too (the teacher's score is theirs): the gradebook's lesson
// column and the lesson's line item in a course are this one sum.
func ItemOf(name string, exercises []string, points func(id string) float64) GradeItem {
	it := GradeItem{Name: name, Parts: make([]GradePart, 0, len(exercises))}
	for _, id := range exercises {
		it.Parts = append(it.Parts, GradePart{Exercise: id, Points: points(id)})
	}
	return it
}

// ExerciseItems is one column per exercise, each worth points(id) (1
// each when points is nil).
func ExerciseItems(exercises []string, points func(id string) float64) []GradeItem {
	if points == nil {
		points = func(string) float64 { return 1 }
	}
	items := make([]GradeItem, len(exercises))
	for i, id := range exercises {
		items[i] = ItemOf(id, []string{id}, points)
	}
	return items
}

// Points is what the item is worth: its parts' points summed.
func (it GradeItem) Points() float64 {
	total := 0.0
	for _, p := range it.Parts {
		total += p.Points
	}
	return roundScore(total)
}

// GradeCell is a learner's points on an item: the parts' BestScore times
// their points, summed. ok is false when none of its parts has anything
// to score (not attempted): the cell is left blank, which an import
// reads as "no grade", unlike 0. Each part's score is taken to the
// millionth, as every view writes an exercise's score, before it is
// added: a lesson's column is then the sum of its exercises' columns, and
// a total the same whichever columns it adds (two thirds are 0.666666
// in all of them, not 0.666667 in some).
func GradeCell(idx map[string]*Progress, it GradeItem) (points float64, ok bool) {
	for _, part := range it.Parts {
		p := idx[part.Exercise]
		if p == nil {
			continue
		}
		if sc, scored := BestScore(*p); scored {
			points += roundScore(sc) * part.Points
			ok = true
		}
	}
	return roundScore(points), ok
}

// Totals is a learner's standing over a class's gradebook items: the one
// sum behind the teacher's row for them, their own page and the score
// column of progress-wide.csv.
type Totals struct {
	// Solved counts the exercises that count as solved (Progress.Done:
	// an open answer once the teacher gives it full marks).
	Solved int
	// Points is what the learner earned (GradeCell, summed over the
	// items), Of what the items are worth.
	Points, Of float64
}

// TotalsOf is a learner's Totals over items, from their progress by
// exercise.
func TotalsOf(idx map[string]*Progress, items []GradeItem) Totals {
	var t Totals
	for _, it := range items {
		pts, _ := GradeCell(idx, it)
		t.Points += pts
		t.Of += it.Points()
		for _, part := range it.Parts {
			if p := idx[part.Exercise]; p != nil && p.Done() {
				t.Solved++
			}
		}
	}
	t.Points, t.Of = roundScore(t.Points), roundScore(t.Of)
	return t
}

// Totals is every learner's Totals over items, by learner ID.
func (d *Dashboard) Totals(items []GradeItem) map[int64]Totals {
	idx := d.progressIndex()
	out := make(map[int64]Totals, len(d.Learners))
	for _, l := range d.Learners {
		out[l.ID] = TotalsOf(idx[l.ID], items)
	}
	return out
}

// AwaitsTeacher reports whether the learner's score on the item waits for
// the teacher: a part is an open answer submitted and not scored yet
// (StatusSubmitted), or answered again since it was (StatusResubmitted).
// The score is then partial, and an LMS is told so.
func AwaitsTeacher(idx map[string]*Progress, it GradeItem) bool {
	for _, part := range it.Parts {
		if p := idx[part.Exercise]; p != nil {
			if st := p.Status(); st == StatusSubmitted || st == StatusResubmitted {
				return true
			}
		}
	}
	return false
}

// WriteGradebookCSV writes the class's gradebook in format (one of
// GradebookFormats): one row per learner, in joining order, one column
// per item. section names the class in Canvas's Section column. A
// learner's name, student_id and email are written as cells a
// spreadsheet will not run as formulas.
func WriteGradebookCSV(w io.Writer, d *Dashboard, format string, items []GradeItem, section string) error {
	idx := d.progressIndex()
	cw := csv.NewWriter(w)
	var lead []string
	switch format {
	case GradebookCanvas:
		lead = []string{"Student", "ID", "SIS User ID", "SIS Login ID", "Section"}
	case GradebookMoodle:
		lead = []string{"ID number", "Email address", "Full name"}
	case GradebookPlain:
		lead = []string{"learner", "student_id", "email"}
	default:
		return Errorf(EINVALID, "format: %q is not a gradebook format (canvas, moodle or plain)", Excerpt(format, ExcerptLen))
	}
	header := append([]string(nil), lead...)
	for _, it := range items {
		header = append(header, cell(it.Name))
	}
	cw.Write(header)
	if format == GradebookCanvas {
		// Canvas's own export carries this row, and its import reads the
		// assignments' points from it.
		row := make([]string, len(lead), len(header))
		row[0] = "Points Possible"
		for _, it := range items {
			row = append(row, score(it.Points()))
		}
		cw.Write(row)
	}
	for _, l := range d.Learners {
		var row []string
		switch format {
		case GradebookCanvas:
			// Canvas's own user id is not known here: its import matches by
			// SIS User ID, SIS Login ID or name.
			row = []string{cell(l.Name), "", cell(l.StudentID), cell(l.Email), cell(section)}
		case GradebookMoodle:
			row = []string{cell(l.StudentID), cell(l.Email), cell(l.Name)}
		default:
			row = []string{cell(l.Name), cell(l.StudentID), cell(l.Email)}
		}
		for _, it := range items {
			v := ""
			if pts, ok := GradeCell(idx[l.ID], it); ok {
				v = score(pts)
			}
			row = append(row, v)
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
