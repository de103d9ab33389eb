package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// testExport checks both CSV exports of a real class: quoting of commas
// and quotes, and names that a spreadsheet would run as formulas.
func testExport(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{Now: NewClock().Now})
	nc := mustCreate(t, s, "Export") // 09:00:01
	var toks []string
	for _, name := range []string{"Smith, Ann", `"Q" Quote`, `=HYPERLINK("http://x")`, "@SUM(A1)", "+cmd", "-2"} {
		toks = append(toks, mustJoin(t, s, nc.Class.Code, name).Token) // 09:00:02 to :07
	}
	dec := classroom.RuleDeclining
	mustRecord(t, s, toks[0], classroom.Attempt{Exercise: "a", Answer: "1", Graded: true, Rule: dec})                // :08
	mustRecord(t, s, toks[0], classroom.Attempt{Exercise: "a", Answer: "2", Graded: true, Correct: true, Rule: dec}) // :09
	mustRecord(t, s, toks[1], classroom.Attempt{Exercise: "b", Answer: "=1+1", Graded: true, Rule: dec})             // :10
	d, err := s.Dashboard(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	var long strings.Builder
	if err := classroom.WriteProgressCSV(&long, d, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	wantLong := `learner,exercise,attempted,correct,tries,tries_to_correct,first_at,last_at,gave_up,score,comment,revealed,status
"Smith, Ann",a,1,1,2,2,2026-03-02T09:00:08Z,2026-03-02T09:00:09Z,0,0.75,,0,solved
"Smith, Ann",b,0,0,0,0,,,0,,,0,
"""Q"" Quote",a,0,0,0,0,,,0,,,0,
"""Q"" Quote",b,1,0,1,0,2026-03-02T09:00:10Z,2026-03-02T09:00:10Z,0,0,,0,wrong
"'=HYPERLINK(""http://x"")",a,0,0,0,0,,,0,,,0,
"'=HYPERLINK(""http://x"")",b,0,0,0,0,,,0,,,0,
'@SUM(A1),a,0,0,0,0,,,0,,,0,
'@SUM(A1),b,0,0,0,0,,,0,,,0,
'+cmd,a,0,0,0,0,,,0,,,0,
'+cmd,b,0,0,0,0,,,0,,,0,
'-2,a,0,0,0,0,,,0,,,0,
'-2,b,0,0,0,0,,,0,,,0,
`
	if long.String() != wantLong {
		t.Errorf("progress.csv:\n%s\nwant:\n%s", long.String(), wantLong)
	}
	var wide strings.Builder
	if err := classroom.WriteWideCSV(&wide, d, classroom.ExerciseItems([]string{"a", "b"}, nil)); err != nil {
		t.Fatal(err)
	}
	wantWide := `learner,a,b,score
"Smith, Ann",0.75,,0.75
"""Q"" Quote",,0,0
"'=HYPERLINK(""http://x"")",,,0
'@SUM(A1),,,0
'+cmd,,,0
'-2,,,0
`
	if wide.String() != wantWide {
		t.Errorf("wide CSV:\n%s\nwant:\n%s", wide.String(), wantWide)
	}
}
