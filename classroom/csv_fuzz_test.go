package classroom

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzCSVWriters writes a class whose learner's name, exercise, answer
// and review comment are anything at all through the three CSV writers,
// and reads each file back with encoding/csv: the header and one row per
// learner (and exercise, for the long form) come back, every cell as
// written, and none starts with a character a spreadsheet would run as a
// formula.
func FuzzCSVWriters(f *testing.F) {
	for _, s := range [][3]string{
		{"Ana", "outlive-lease", "50"}, {"=HYPERLINK(\"x\")", "ex", "@SUM(A1)"}, {"a,b", "\"q\"", "line\nbreak"},
		{"-1", "+2", "\ttab"}, {"", "", ""}, {"\r\n", "é", "\x00"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, name, exercise, text string) {
		if !utf8.ValidString(name + exercise + text) {
			return // names and answers are checked as UTF-8 before they are stored
		}
		d := &Dashboard{
			Class:     &Class{Name: "C"},
			Learners:  []Learner{{ID: 1, Name: name}, {ID: 2, Name: "Bo"}},
			Exercises: []string{exercise},
			Progress:  []Progress{{LearnerID: 1, Exercise: exercise, Tries: 2, Correct: true, FirstAt: at, LastAt: at, Review: &Review{Score: 0.5, Comment: text}}},
		}
		answers := []TextAnswer{{LearnerID: 1, LearnerName: name, Exercise: exercise, Answer: text, At: at, Review: &Review{Score: 1, Comment: text}}}
		for _, w := range []struct {
			what string
			rows int
			fn   func(*bytes.Buffer) error
		}{
			{"progress", 1 + 2, func(b *bytes.Buffer) error { return WriteProgressCSV(b, d, nil) }},
			{"wide", 1 + 2, func(b *bytes.Buffer) error { return WriteWideCSV(b, d, nil) }},
			{"answers", 1 + 1, func(b *bytes.Buffer) error { return WriteAnswersCSV(b, answers) }},
		} {
			var buf bytes.Buffer
			if err := w.fn(&buf); err != nil {
				t.Fatalf("%s: %v", w.what, err)
			}
			rows, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
			if err != nil {
				t.Fatalf("%s: the file does not read back: %v\n%q", w.what, err, buf.String())
			}
			if len(rows) != w.rows {
				t.Fatalf("%s: %d rows, want %d\n%q", w.what, len(rows), w.rows, buf.String())
			}
			// encoding/csv writes \r\n inside a quoted cell and reads it
			// back as \n: compare as a spreadsheet would see the text.
			want := strings.ReplaceAll(cell(name), "\r\n", "\n")
			if got := rows[1][0]; got != want {
				t.Fatalf("%s: the name came back as %q, want %q", w.what, got, want)
			}
			for _, row := range rows[1:] {
				for _, c := range row {
					if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
						t.Fatalf("%s: a cell starts with %q: %q", w.what, c[0], c)
					}
				}
			}
		}
	})
}
