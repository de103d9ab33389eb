package web_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// TestRunningAPredictionAgainAndAgainKeepsOneRow: a learner (a script
// with her cookie) who runs a prediction's very scenario over and over,
// by the API and by its share link's history, leaves one noted run of it
// in the database, not one per run.
func TestRunningAPredictionAgainAndAgainKeepsOneRow(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), dir, classroom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	base := startClass(t, st)
	var pred *lessons.Exercise
	for _, ex := range catalog(t).Exercises() {
		if ex.Kind == lessons.KindPredict {
			pred = ex
			break
		}
	}
	c := createClass(t, base, "Again")
	wantStatus(t, teacher(t, base, c.TeacherKey).postJSON("/api/classes/"+c.Code+"/variants", `{"variants":"shared"}`), http.StatusOK, "shared variants")
	sc, err := pred.PredictionScenario(0)
	if err != nil {
		t.Fatal(err)
	}
	scenario, _ := json.Marshal(sc)
	share, err := web.EncodeShare(sc)
	if err != nil {
		t.Fatal(err)
	}
	ada, _ := join(t, base, c.Code, "Ada")

	const runs, histories = 5, 200
	for range runs {
		wantStatus(t, ada.postJSON("/api/run", string(scenario)), http.StatusOK, "Ada's run")
	}
	for range histories {
		wantStatus(t, ada.get("/api/history?s="+share), http.StatusOK, "Ada's history")
	}

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows int
	if err := db.QueryRow(`SELECT COUNT(*) FROM scenario_runs`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 1 {
		t.Errorf("%d runs and %d histories of one prediction's scenario left %d noted runs, want 1", runs, histories, rows)
	}
}
