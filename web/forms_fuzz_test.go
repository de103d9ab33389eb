package web_test

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/web"
)

// FuzzClassForms posts the /class/new and /class/join forms with fields
// that are anything at all (raw form bodies, so broken encodings too), on
// a server with a real SQLite store: the answer is a page (the class, or
// the form again with its error) or a redirect, never a 500.
func FuzzClassForms(f *testing.F) {
	clk := &minuteClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	srv, err := web.NewServer(web.Config{Classroom: openSQLite(f), Class: web.ClassConfig{Clock: clk.Now}})
	if err != nil {
		f.Fatal(err)
	}
	h := srv.Handler()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/api/classes", strings.NewReader(`{"name":"Forms"}`))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	var c struct{ Code string }
	if err := json.Unmarshal(rec.Body.Bytes(), &c); err != nil || c.Code == "" {
		f.Fatalf("create: %d %s", rec.Code, rec.Body.String())
	}
	for _, s := range []string{
		"class_name=Week+5&variants=per-learner", "class_name=&variants=shared", "class_name=%zz", "variants=everyone",
		"code=" + c.Code + "&name=Ana", "code=ZZZZ&name=Bo", "code=" + c.Code + "&name=%E2%80%AEana", "name=" + url.QueryEscape(strings.Repeat("x", 200)),
		"", "&&&=", "code=" + c.Code + "&code=X&name=Cy",
	} {
		f.Add(false, s)
		f.Add(true, s)
	}
	f.Fuzz(func(t *testing.T, join bool, body string) {
		path := "/class/new"
		if join {
			path = "/class/join"
		}
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %.200q: %d %.300s", path, body, rec.Code, rec.Body.String())
		}
	})
}

// FuzzTeacherBodies sends a body, anything at all, to the teacher's
// review and variants APIs, on a real SQLite store with a learner who has
// answered an open exercise: a result or a user's error naming what is
// wrong, never a 500.
func FuzzTeacherBodies(f *testing.F) {
	clk := &minuteClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	srv, err := web.NewServer(web.Config{Classroom: openSQLite(f), Class: web.ClassConfig{Clock: clk.Now}})
	if err != nil {
		f.Fatal(err)
	}
	h := srv.Handler()
	post := func(path, key, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	var c struct{ Code, TeacherKey string }
	json.Unmarshal(post("/api/classes", "", `{"name":"Reviews"}`).Body.Bytes(), &c)
	if c.Code == "" {
		f.Fatal("no class")
	}
	routes := []string{"/api/classes/" + c.Code + "/reviews", "/api/classes/" + c.Code + "/variants"}
	for _, s := range []string{
		`{"learner_id":1,"exercise":"why-fencing","score":0.5,"comment":"good"}`, `{"learner_id":1,"exercise":"why-fencing","score":2}`,
		`{"learner_id":-1,"exercise":"outlive-lease","score":1}`, `{"score":null}`, `{"variants":"shared"}`, `{"variants":"per-learner"}`,
		`{"variants":"everyone"}`, `{"variants":1}`, `{}`, ``, `[]`, `{"score":"NaN"}`, `{"learner_id":1e30,"score":1}`,
	} {
		f.Add(uint8(0), []byte(s))
		f.Add(uint8(1), []byte(s))
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		path := routes[int(route)%len(routes)]
		checkProblem(t, path+" "+string(body), post(path, c.TeacherKey, string(body)))
	})
}
