package web_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestDashboardSendsUntriedCellsEmpty: the dashboard is sent whole to
// every stream on each change, and most of a class's grid is exercises a
// learner has not reached, so an untried cell goes as {} and a tried one
// leaves out what is empty (no late flags on work on time). A class of
// 200 who tried 10 exercises each was sent 1.15 MB a change; now 0.36.
func TestDashboardSendsUntriedCellsEmpty(t *testing.T) {
	st := openSQLite(t)
	base := startClass(t, st)
	ids := catalogIDs(t)
	c := createClass(t, base, "Weight")
	owner := teacher(t, base, c.TeacherKey)
	p, _ := join(t, base, c.Code, "Ada")
	record(t, st, p, ids[0], "1", true)

	a := owner.get("/api/classes/" + c.Code + "/dashboard")
	wantStatus(t, a, http.StatusOK, "dashboard")
	var v struct {
		Exercises []struct {
			ID string `json:"id"`
		} `json:"exercises"`
		Learners []struct {
			Cells []json.RawMessage `json:"cells"`
		} `json:"learners"`
	}
	a.decode(t, &v)
	if len(v.Learners) != 1 || len(v.Learners[0].Cells) != len(v.Exercises) {
		t.Fatalf("%d learners; cells do not follow the %d exercises", len(v.Learners), len(v.Exercises))
	}
	for i, cell := range v.Learners[0].Cells {
		id := v.Exercises[i].ID
		if id == ids[0] {
			if want := `{"tries":1,"correct":true,"status":"solved","score":"1","text":"✓ 1","state":"correct","title":"1 try · solved"}`; string(cell) != want {
				t.Errorf("the solved cell is sent as %s, want %s", cell, want)
			}
			continue
		}
		if string(cell) != "{}" {
			t.Errorf("untried %s is sent as %s, want {}", id, cell)
		}
	}

	// What the page draws from it: the grid's solved cell, and nothing
	// drawn for the untried ones (teacher.js fills their blanks).
	d := readDashboard(t, owner, c.Code)
	if cell := d.cells[[2]string{"Ada", ids[0]}]; cell["text"] != "✓ 1" || cell["late"] != false {
		t.Errorf("Ada's solved cell reads %v", cell)
	}
}
