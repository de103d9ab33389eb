package web_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// minuteClock moves a minute on each reading, so the per-IP limits refill
// between fuzz inputs and every input reaches its handler.
type minuteClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *minuteClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Minute)
	return c.t
}

// checkProblem holds an HTTP answer to the error contract: never a 500,
// and an error body that is JSON, says what is wrong, and is short.
func checkProblem(tb testing.TB, what string, rec *httptest.ResponseRecorder) {
	tb.Helper()
	if rec.Code >= 500 {
		tb.Fatalf("%s: %d %.300s", what, rec.Code, rec.Body.String())
	}
	if rec.Code < 400 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		return
	}
	var e struct{ Error, Field, Code string }
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" || e.Code == "" {
		tb.Fatalf("%s: %d with the body %.300q (%v)", what, rec.Code, rec.Body.String(), err)
	}
	if utf8.RuneCountInString(e.Error) > 400 || utf8.RuneCountInString(e.Field) > 100 {
		tb.Fatalf("%s: an error of %d characters", what, utf8.RuneCountInString(e.Error))
	}
}

// FuzzClassRequests sends a body, anything at all, to each of the class
// APIs that take one (create, join, push a scenario, open or close
// joining, archive, rotate the code, the teacher session), on a server
// with a real SQLite store: every answer is a result or a user's error
// naming what is wrong, never a 500.
func FuzzClassRequests(f *testing.F) {
	clk := &minuteClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	srv, err := web.NewServer(web.Config{Classroom: openSQLite(f), Class: web.ClassConfig{Clock: clk.Now}})
	if err != nil {
		f.Fatal(err)
	}
	h := srv.Handler()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/api/classes", strings.NewReader(`{"name":"Fuzz"}`))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	var c struct{ Code, TeacherKey string }
	if err := json.Unmarshal(rec.Body.Bytes(), &c); err != nil || c.Code == "" {
		f.Fatalf("create: %d %s", rec.Code, rec.Body.String())
	}
	routes := []string{
		"/api/classes", "/api/classes/" + c.Code + "/join", "/api/classes/" + c.Code + "/scenario",
		"/api/classes/" + c.Code + "/joining", "/api/classes/" + c.Code + "/archive",
		"/api/classes/" + c.Code + "/code", "/api/teacher/session",
	}
	share, _ := web.EncodeShare(engine.Scenario{Clients: []engine.Client{{Name: "a", Steps: []engine.Step{{Do: "acquire"}}}}})
	for i, body := range []string{
		`{"name":"Week 5"}`, `{"name":"Ana"}`, `{"preset":"paused-holder"}`, `{"open":false}`, `{"archived":true}`, `{}`, ``,
		`{"link":"/playground?s=` + share + `"}`, `{"link":"` + share + `"}`, `{"link":"http://x/%zz"}`,
		`{"scenario":{"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}}`, `{"scenario":"clients: []"}`,
		`{"preset":"a","link":"b"}`, `{"name":1}`, `{"open":"yes"}`, `{"archived":null}`, `[]`, `{"name":"\u202eana"}`,
		`{"name":"x"} {"name":"y"}`, `{"nam":"x"}`, `{"link":"?preset=paused-holder"}`,
	} {
		f.Add(uint8(i%len(routes)), []byte(body))
		f.Add(uint8((i+2)%len(routes)), []byte(body))
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		path := routes[int(route)%len(routes)]
		req := httptest.NewRequest("POST", path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+c.TeacherKey)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		checkProblem(t, path+" "+string(body), rec)
		if strings.HasSuffix(path, "/archive") {
			// Leave the class open for the next input, whatever this one did.
			req := httptest.NewRequest("POST", path, strings.NewReader(`{"archived":false}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+c.TeacherKey)
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
	})
}

// FuzzShareLink opens /playground with an s parameter, anything at all,
// as a shared link would: the page is the playground or a 400 naming the
// parameter, never a 500; a link DecodeShare accepts encodes and decodes
// back to the same scenario.
func FuzzShareLink(f *testing.F) {
	srv, err := web.NewServer(web.Config{})
	if err != nil {
		f.Fatal(err)
	}
	h := srv.Handler()
	for _, name := range engine.PresetNames() {
		p, _ := engine.LoadPreset(name)
		s, _ := web.EncodeShare(p.Scenario)
		f.Add(s)
	}
	for _, s := range []string{"", "!!!", "e30", base64.RawURLEncoding.EncodeToString([]byte(`{"clients":[]}`)),
		base64.RawURLEncoding.EncodeToString([]byte("clients: [{name: a, steps: [{do: acquire}]}]")),
		base64.RawURLEncoding.EncodeToString([]byte(`{"until":"1h","clients":[{"name":"a","steps":[{"do":"fly"}]}]}`)),
		strings.Repeat("A", 100000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/playground?s="+url.QueryEscape(s), nil))
		if rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest {
			t.Fatalf("/playground?s=%.100q: %d %.300s", s, rec.Code, rec.Body.String())
		}
		sc, err := web.DecodeShare(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "s: ") && !strings.Contains(err.Error(), ": ") {
				t.Fatalf("%.100q: error %q names no field", s, err)
			}
			return
		}
		if rec.Code != http.StatusOK {
			t.Fatalf("%.100q decodes, but the page answered %d", s, rec.Code)
		}
		again, err := web.EncodeShare(sc)
		if err != nil {
			t.Fatal(err)
		}
		sc2, err := web.DecodeShare(again)
		if err != nil {
			t.Fatalf("%.100q: its re-encoding does not decode: %v", s, err)
		}
		a, _ := json.Marshal(sc)
		b, _ := json.Marshal(sc2)
		if string(a) != string(b) {
			t.Fatalf("%.100q: the round trip changed the scenario:\n%s\n%s", s, a, b)
		}
	})
}
