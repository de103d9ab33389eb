package web_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// The import formats the gradebook is written for, as their documentation
// gives them.
//
// Canvas, "How do I import grades in the Gradebook?" and the export it
// mirrors: a header row of Student, ID, SIS User ID, SIS Login ID,
// Section, then one column per assignment; a row for each student, who is
// matched by one of Student, ID or SIS User ID (or SIS Login ID); the
// export carries a "Points Possible" row under the header.
//
//	https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades
//	https://nemogb-dev.github.io/nemogb-r/articles/detailed-canvas-export-info.html
//
// Moodle, "Grade import", CSV: the first row names the columns; on import
// the teacher maps a column to a user field ("Identify user by": Map from
// a column, Map to useridnumber or useremail, i.e. "ID number" or "Email
// address"), and each other column to a grade item.
//
//	https://docs.moodle.org/311/en/Grade_import
var (
	canvasLead = []string{"Student", "ID", "SIS User ID", "SIS Login ID", "Section"}
	moodleIDs  = []string{"ID number", "Email address"}
	plainLead  = []string{"learner", "student_id", "email"}
)

// gradebookClass is a class of four: Ada (student id and email) solved the
// first exercise at her second try (declining: 0.75); Bo (email only) got
// half of the second (0.5); Cy got the first wrong (0); Dee did nothing.
func gradebookClass(t *testing.T, st classroom.Store) (base string, c created, ids []string, srv *web.Server) {
	t.Helper()
	ts, srv := startServer(t, web.Config{Classroom: st})
	base = ts.URL
	ids = catalogIDs(t)
	c = createClass(t, base, "Week 5")
	joinAs := func(body string) *person {
		p := newPerson(t, base)
		wantStatus(t, p.postJSON("/api/classes/"+c.Code+"/join", body), http.StatusCreated, "join "+body)
		return p
	}
	ada := joinAs(`{"name":"Ada","student_id":"s-1815","email":"ada@uni.example.edu"}`)
	bo := joinAs(`{"name":"Bo","email":"bo@uni.example.edu"}`)
	cy := joinAs(`{"name":"Cy"}`)
	joinAs(`{"name":"Dee"}`)
	rec := func(p *person, ex string, correct bool, rule string, share float64) {
		if _, err := st.Record(context.Background(), p.cookie(web.LearnerCookie), classroom.Attempt{
			Exercise: ex, Answer: "x", Correct: correct, Graded: true, Rule: rule, Share: share,
		}); err != nil {
			t.Fatal(err)
		}
	}
	rec(ada, ids[0], false, classroom.RuleDeclining, 0)
	rec(ada, ids[0], true, classroom.RuleDeclining, 1)
	rec(bo, ids[1], false, classroom.RulePartial, 0.5)
	rec(cy, ids[0], false, classroom.RuleDeclining, 0)
	return base, c, ids, srv
}

func TestGradebookFormats(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base, c, ids, _ := gradebookClass(t, st)
		owner := teacher(t, base, c.TeacherKey)
		get := func(q string) [][]string {
			t.Helper()
			a := owner.get("/api/classes/" + c.Code + "/gradebook.csv" + q)
			wantStatus(t, a, http.StatusOK, "gradebook.csv"+q)
			if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
				t.Errorf("%s: Content-Type %q", q, ct)
			}
			return readCSV(t, a.body)
		}

		t.Run("canvas", func(t *testing.T) {
			rows := get("?format=canvas")
			if got := rows[0][:5]; !slices.Equal(got, canvasLead) {
				t.Fatalf("Canvas header starts %q, want %q", got, canvasLead)
			}
			if !slices.Equal(rows[0][5:], ids) {
				t.Errorf("Canvas assignments %q, want the exercises %q", rows[0][5:], ids)
			}
			if rows[1][0] != "Points Possible" {
				t.Fatalf("second row %q, want Points Possible", rows[1])
			}
			for i, v := range rows[1][5:] {
				if v != "1" {
					t.Errorf("points possible of %s: %q, want 1", ids[i], v)
				}
			}
			if len(rows) != 2+4 {
				t.Fatalf("%d rows, want header, points and four learners", len(rows))
			}
			// Every learner is matchable: Student is always there.
			want := [][]string{
				{"Ada", "", "s-1815", "ada@uni.example.edu", "Week 5", "0.75", ""},
				{"Bo", "", "", "bo@uni.example.edu", "Week 5", "", "0.5"},
				{"Cy", "", "", "", "Week 5", "0", ""},
				{"Dee", "", "", "", "Week 5", "", ""},
			}
			for i, w := range want {
				if got := rows[2+i][:7]; !slices.Equal(got, w) {
					t.Errorf("Canvas row %d: %q, want %q", i, got, w)
				}
			}
		})

		t.Run("moodle", func(t *testing.T) {
			rows := get("?format=moodle")
			for _, col := range moodleIDs {
				if !slices.Contains(rows[0], col) {
					t.Fatalf("Moodle header %q lacks %q, a column its import maps users by", rows[0], col)
				}
			}
			idn, em := slices.Index(rows[0], "ID number"), slices.Index(rows[0], "Email address")
			if rows[1][idn] != "s-1815" || rows[1][em] != "ada@uni.example.edu" || rows[2][em] != "bo@uni.example.edu" {
				t.Errorf("Moodle identifiers: %q, %q", rows[1], rows[2])
			}
			if !slices.Equal(rows[0][len(rows[0])-len(ids):], ids) || len(rows) != 1+4 {
				t.Errorf("Moodle items %q in %d rows", rows[0], len(rows))
			}
		})

		t.Run("plain", func(t *testing.T) {
			for _, q := range []string{"?format=plain", ""} {
				rows := get(q)
				if !slices.Equal(rows[0], append(slices.Clone(plainLead), ids...)) {
					t.Fatalf("%q: plain header %q", q, rows[0])
				}
				if got := rows[1][:5]; !slices.Equal(got, []string{"Ada", "s-1815", "ada@uni.example.edu", "0.75", ""}) {
					t.Errorf("%q: Ada's row %q", q, got)
				}
			}
		})

		t.Run("by lesson", func(t *testing.T) {
			cat, err := lessons.Default()
			if err != nil {
				t.Fatal(err)
			}
			rows := get("?format=plain&by=lesson")
			var slugs []string
			lessonOf := map[string]string{}
			for _, l := range cat.Lessons() {
				if len(l.ExerciseIDs) > 0 {
					slugs = append(slugs, l.Slug)
				}
				for _, id := range l.ExerciseIDs {
					lessonOf[id] = l.Slug
				}
			}
			if !slices.Equal(rows[0][3:], slugs) {
				t.Fatalf("by lesson: columns %q, want %q", rows[0][3:], slugs)
			}
			col := 3 + slices.Index(slugs, lessonOf[ids[0]])
			if rows[1][col] != "0.75" || rows[3][col] != "0" || rows[4][col] != "" {
				t.Errorf("lesson %s: Ada %q, Cy %q, Dee %q", slugs[col-3], rows[1][col], rows[3][col], rows[4][col])
			}
		})
	})
}

// TestGradebookAgreesWithWideCSV: for every learner and exercise, each
// format's cell is progress-wide.csv's score times the exercise's points,
// and blank exactly where the wide export is blank.
func TestGradebookAgreesWithWideCSV(t *testing.T) {
	st := openSQLite(t)
	base, c, _, s := gradebookClass(t, st)
	owner := teacher(t, base, c.TeacherKey)
	wide := readCSV(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body)
	for format, skip := range map[string]int{"canvas": 1, "moodle": 0, "plain": 0} {
		rows := readCSV(t, owner.get("/api/classes/"+c.Code+"/gradebook.csv?format="+format).body)
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		body := rows[1+skip:]
		if len(body) != len(wide)-1 {
			t.Fatalf("%s: %d learners, progress-wide.csv has %d", format, len(body), len(wide)-1)
		}
		for r, wrow := range wide[1:] {
			for i, ex := range wide[0][1 : len(wide[0])-1] {
				w, g := wrow[1+i], body[r][col[ex]]
				if (w == "") != (g == "") {
					t.Errorf("%s: %s on %s is %q, progress-wide.csv says %q", format, wrow[0], ex, g, w)
					continue
				}
				if w == "" {
					continue
				}
				ws, _ := strconv.ParseFloat(w, 64)
				gs, _ := strconv.ParseFloat(g, 64)
				if gs != ws*s.ExercisePoints(ex) {
					t.Errorf("%s: %s on %s is %v points, want %v x %v", format, wrow[0], ex, gs, ws, s.ExercisePoints(ex))
				}
			}
		}
	}
}

func TestGradebookBadQuery(t *testing.T) {
	st := openSQLite(t)
	base, c, _, _ := gradebookClass(t, st)
	owner := teacher(t, base, c.TeacherKey)
	for q, field := range map[string]string{
		"?format=excel":                        "format",
		"?format=" + strings.Repeat("x", 5000): "format",
		"?format=canvas&by=week":               "by",
	} {
		a := owner.get("/api/classes/" + c.Code + "/gradebook.csv" + q)
		var e struct{ Field string }
		a.decode(t, &e)
		if a.status != http.StatusBadRequest || e.Field != field || len(a.body) > 600 {
			t.Errorf("%.40s: %d %.300s, want 400 naming %s, short", q, a.status, a.body, field)
		}
	}
	if a := newPerson(t, base).get("/api/classes/" + c.Code + "/gradebook.csv"); a.status != http.StatusUnauthorized && a.status != http.StatusForbidden {
		t.Errorf("without the teacher key: %d", a.status)
	}
}
