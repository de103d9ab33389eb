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

// FuzzShareLink decodes an s parameter, anything at all, as a shared link
// carries it: an error names its field; a link DecodeShare accepts encodes
// and decodes back to the same scenario. Rendering the page costs tens of
// milliseconds, so the fuzzed inputs stop at the decoder the page calls
// first; the seed corpus also opens /playground with each link, which must
// answer the playground or a 400, never a 500.
func FuzzShareLink(f *testing.F) {
	srv, err := web.NewServer(web.Config{})
	if err != nil {
		f.Fatal(err)
	}
	h := srv.Handler()
	var seeds []string
	for _, name := range engine.PresetNames() {
		p, _ := engine.LoadPreset(name)
		s, _ := web.EncodeShare(p.Scenario)
		seeds = append(seeds, s)
	}
	seeds = append(seeds, "", "!!!", "e30", base64.RawURLEncoding.EncodeToString([]byte(`{"clients":[]}`)),
		base64.RawURLEncoding.EncodeToString([]byte("clients: [{name: a, steps: [{do: acquire}]}]")),
		base64.RawURLEncoding.EncodeToString([]byte(`{"until":"1h","clients":[{"name":"a","steps":[{"do":"fly"}]}]}`)),
		strings.Repeat("A", 100000))
	for _, s := range seeds {
		if len(s) < 4096 {
			// A link near the length limit is checked once, below: as a
			// seed, its mutations would cost the fuzzer most of its time.
			f.Add(s)
		}
		_, decodeErr := web.DecodeShare(s)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/playground?s="+url.QueryEscape(s), nil))
		if want := map[bool]int{true: http.StatusOK, false: http.StatusBadRequest}[decodeErr == nil]; rec.Code != want && s != "" {
			f.Fatalf("/playground?s=%.100q: %d, want %d", s, rec.Code, want)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := web.DecodeShare(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "s: ") && !strings.Contains(err.Error(), ": ") {
				t.Fatalf("%.100q: error %q names no field", s, err)
			}
			return
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
