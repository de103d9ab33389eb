package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
)

// TestClassStoreFailureIs503WithAReason takes the database away from
// under a running server (its connection pool closed, as a crashed or
// unreachable database would leave it): every class request, and a class
// learner's check, answers 503 saying the class database could not do
// its part and to try again, never a 500 or its cause.
func TestClassStoreFailureIs503WithAReason(t *testing.T) {
	st, err := sqlite.Open(context.Background(), t.TempDir(), classroom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	base := startClass(t, st)
	c := createClass(t, base, "Failing")
	ana, _ := join(t, base, c.Code, "Ana")
	tch := teacher(t, base, c.TeacherKey)

	st.SQL().Close()

	for _, tc := range []struct {
		what string
		a    answer
	}{
		{"create a class", newPerson(t, base).postJSON("/api/classes", `{"name":"x"}`)},
		{"join", newPerson(t, base).postJSON("/api/classes/"+c.Code+"/join", `{"name":"Bo"}`)},
		{"dashboard", tch.get("/api/classes/" + c.Code + "/dashboard")},
		{"rotate the code", tch.postJSON("/api/classes/"+c.Code+"/code", `{}`)},
		{"export", tch.get("/api/classes/" + c.Code + "/progress.csv")},
		{"the learner's own view", ana.get("/api/me")},
		{"a check", ana.postJSON("/api/exercises/outlive-lease/check", `{"answer":"50"}`)},
	} {
		wantStatus(t, tc.a, http.StatusServiceUnavailable, tc.what)
		var e struct{ Error, Code string }
		tc.a.decode(t, &e)
		if e.Code != "unavailable" || !strings.Contains(e.Error, "the class database could not") ||
			!strings.Contains(e.Error, "try again") || strings.Contains(e.Error, "sql") {
			t.Errorf("%s: %+v; want the reason and \"try again\", without the cause", tc.what, e)
		}
		if tc.a.header.Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", tc.what)
		}
	}
	// A page says the same in HTML.
	page := newPerson(t, base).postForm("/class/join", url.Values{"code": {c.Code}, "name": {"Cy"}})
	if page.status == http.StatusInternalServerError || !strings.Contains(page.body, "try again") {
		t.Errorf("join form: %d %.300s", page.status, page.body)
	}
}
