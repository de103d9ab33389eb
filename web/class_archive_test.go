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

// TestClassArchiveAndRestore: the teacher archives the class from the API
// (the dashboard's button sends the same): joins and a learner's checks
// are refused saying why and until when, the pages say so and turn the
// other actions off, exports still work, and restoring opens it again.
func TestClassArchiveAndRestore(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Term 1")
		other := createClass(t, base, "Term 2")
		ana, _ := join(t, base, c.Code, "Ana")
		tch := teacher(t, base, c.TeacherKey)
		path := "/api/classes/" + c.Code + "/archive"

		wantStatus(t, newPerson(t, base).postJSON(path, `{"archived":true}`), http.StatusUnauthorized, "archive without a key")
		wantStatus(t, teacher(t, base, other.TeacherKey).postJSON(path, `{"archived":true}`), http.StatusForbidden, "archive with another class's key")
		a := tch.postJSON(path, `{}`)
		wantStatus(t, a, http.StatusBadRequest, "archive without the field")
		if !strings.Contains(a.body, `"field":"archived"`) {
			t.Errorf("archive without the field: %s", a.body)
		}
		wantStatus(t, tch.do("POST", path, "text/plain", `{"archived":true}`), http.StatusUnsupportedMediaType, "archive as text")

		a = tch.postJSON(path, `{"archived":true}`)
		wantStatus(t, a, http.StatusOK, "archive")
		var lc struct{ Status, Text string }
		a.decode(t, &lc)
		if lc.Status != "archived" || !strings.Contains(lc.Text, "learners can no longer join or answer") {
			t.Errorf("archive answered %+v", lc)
		}

		j := newPerson(t, base).postJSON("/api/classes/"+c.Code+"/join", `{"name":"Bo"}`)
		wantStatus(t, j, http.StatusConflict, "join an archived class")
		chk := ana.postJSON("/api/exercises/outlive-lease/check", `{"answer":"50"}`)
		wantStatus(t, chk, http.StatusConflict, "a check in an archived class")
		for what, body := range map[string]string{"join": j.body, "check": chk.body} {
			if !strings.Contains(body, "archived by its teacher on") || !strings.Contains(body, "unless the teacher restores it") {
				t.Errorf("%s in an archived class: %s", what, body)
			}
		}
		wantStatus(t, tch.postJSON("/api/classes/"+c.Code+"/code", `{}`), http.StatusConflict, "rotate an archived class's code")
		wantStatus(t, tch.get("/api/classes/"+c.Code+"/progress.csv"), http.StatusOK, "export an archived class")

		var me struct {
			Class struct{ Status, Notice string }
		}
		ana.get("/api/me").decode(t, &me)
		if me.Class.Status != "archived" || !strings.Contains(me.Class.Notice, "archived by its teacher") {
			t.Errorf("/api/me of an archived class: %+v", me.Class)
		}
		doc := parseHTML(t, ana.get("/class/me").body)
		if n := text(oneByTestID(t, doc, "class-closed")); !strings.Contains(n, "takes no more answers") {
			t.Errorf("learner page notice %q", n)
		}
		dash := parseHTML(t, tch.get("/class/"+c.Code+"/teacher").body)
		if b := text(oneByTestID(t, dash, "archive-class")); b != "Restore class" {
			t.Errorf("archive button says %q on an archived class", b)
		}
		for _, id := range []string{"toggle-joining", "rotate-code", "push-submit"} {
			if _, off := attr(oneByTestID(t, dash, id), "disabled"); !off {
				t.Errorf("%s is not disabled on an archived class", id)
			}
		}
		if _, hidden := attr(oneByTestID(t, dash, "toggle-joining"), "hidden"); !hidden {
			t.Error("an archived class offers to close joining, beside \"joining is closed\"")
		}
		if s, _ := attr(oneByTestID(t, dash, "dash-lifecycle"), "data-status"); s != "archived" {
			t.Errorf("lifecycle line status %q", s)
		}

		wantStatus(t, tch.postJSON(path, `{"archived":false}`), http.StatusOK, "restore")
		join(t, base, c.Code, "Bo")
		wantStatus(t, ana.postJSON("/api/exercises/outlive-lease/check", `{"answer":"50"}`), http.StatusOK, "a check after the restore")
		dash = parseHTML(t, tch.get("/class/"+c.Code+"/teacher").body)
		if b := text(oneByTestID(t, dash, "archive-class")); b != "Archive class" {
			t.Errorf("archive button says %q on an open class", b)
		}
		if l := text(oneByTestID(t, dash, "dash-lifecycle")); !strings.Contains(l, "If nobody uses it, it expires on") {
			t.Errorf("lifecycle line %q", l)
		}
	})
}

// TestClassExpiredOnThePages runs the store and the pages on one clock
// moved past the retention: the class shows as expired, refuses joins,
// and the teacher's restore revives it.
func TestClassExpiredOnThePages(t *testing.T) {
	clk := newTestClock()
	st, err := sqlite.Open(context.Background(), t.TempDir(), classroom.Options{Now: clk.Now, Retention: 30 * 24 * time.Hour, Grace: 7 * 24 * time.Hour, PurgeEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now}})
	c := createClass(t, ts.URL, "Summer")
	tch := teacher(t, ts.URL, c.TeacherKey)
	clk.Advance(31 * 24 * time.Hour)
	j := newPerson(t, ts.URL).postJSON("/api/classes/"+c.Code+"/join", `{"name":"Late"}`)
	wantStatus(t, j, http.StatusConflict, "join an expired class")
	if !strings.Contains(j.body, "expired on 1 April 2026 after going unused") || !strings.Contains(j.body, "deleted on 8 April 2026") {
		t.Errorf("join an expired class: %s", j.body)
	}
	dash := parseHTML(t, tch.get("/class/"+c.Code+"/teacher").body)
	if l := text(oneByTestID(t, dash, "dash-lifecycle")); !strings.HasPrefix(l, "Expired on 1 April 2026") {
		t.Errorf("lifecycle line %q", l)
	}
	wantStatus(t, tch.postJSON("/api/classes/"+c.Code+"/archive", `{"archived":false}`), http.StatusOK, "restore an expired class")
	join(t, ts.URL, c.Code, "Late")
}
