package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/web"
)

// TestARevealOnAClosedClassSaysWhy: the class's reveal posted to an
// archived or an expired class records nothing, and says so (409, naming
// why, as every other change of a closed class does), rather than
// "revealed" for a reveal the predictions chart and the credit never saw.
// Restored, the class takes it.
func TestARevealOnAClosedClassSaysWhy(t *testing.T) {
	clk := newTestClock()
	st, err := sqlite.Open(context.Background(), t.TempDir(), classroom.Options{Now: clk.Now, Retention: 30 * 24 * time.Hour, Grace: 7 * 24 * time.Hour, PurgeEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now}})
	c := createClass(t, ts.URL, "Week 9")
	owner := teacher(t, ts.URL, c.TeacherKey)
	reveal := func(ex string) answer {
		return owner.postJSON("/api/classes/"+c.Code+"/reveal", `{"exercise":"`+ex+`"}`)
	}
	classRevealed := func(ex string) bool {
		t.Helper()
		var p struct {
			ClassRevealed bool `json:"class_revealed"`
		}
		r := owner.get("/api/classes/" + c.Code + "/predictions?exercise=" + ex)
		wantStatus(t, r, http.StatusOK, "the predictions of "+ex)
		r.decode(t, &p)
		return p.ClassRevealed
	}

	archive := "/api/classes/" + c.Code + "/archive"
	wantStatus(t, owner.postJSON(archive, `{"archived":true}`), http.StatusOK, "archive")
	r := reveal("outlive-lease")
	wantStatus(t, r, http.StatusConflict, "a reveal on an archived class")
	if !strings.Contains(r.body, "was archived by its teacher") || !strings.Contains(r.body, "takes no more changes") {
		t.Errorf("a reveal on an archived class answered %s; want why nothing changed", r.body)
	}
	if classRevealed("outlive-lease") {
		t.Error("the archived class's chart says the exercise was revealed")
	}
	wantStatus(t, owner.postJSON(archive, `{"archived":false}`), http.StatusOK, "restore")
	wantStatus(t, reveal("outlive-lease"), http.StatusOK, "a reveal on the restored class")
	if !classRevealed("outlive-lease") {
		t.Error("the restored class's reveal was not recorded")
	}

	clk.Advance(31 * 24 * time.Hour)
	r = reveal("fence-refuses")
	wantStatus(t, r, http.StatusConflict, "a reveal on an expired class")
	if !strings.Contains(r.body, "expired on") || !strings.Contains(r.body, "takes no more changes") {
		t.Errorf("a reveal on an expired class answered %s; want why nothing changed", r.body)
	}
	// An exercise revealed before the class closed is still revealed:
	// posting it again changes nothing, and says so, as on an open class.
	wantStatus(t, reveal("outlive-lease"), http.StatusOK, "the reveal again of an exercise revealed before the class expired")
}
