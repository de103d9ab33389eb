package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/postgres"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/classroom/storetest"
	"github.com/leaselab/playground/web"
)

// The class tests run against SQLite always and against PostgreSQL when
// PLAYGROUND_TEST_POSTGRES names a database (.ci/run sets it); each
// PostgreSQL test works in a schema of its own, dropped at the end.
const envPostgres = storetest.EnvPostgres

// storeKind opens a fresh, empty classroom store.
type storeKind struct {
	name string
	open func(tb testing.TB) classroom.Store
}

func storeKinds() []storeKind {
	kinds := []storeKind{{"sqlite", openSQLite}}
	if os.Getenv(envPostgres) != "" {
		kinds = append(kinds, storeKind{"postgres", openPostgres})
	}
	return kinds
}

// eachStore runs f once per store kind, as subtests.
func eachStore(t *testing.T, f func(t *testing.T, st classroom.Store)) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) { f(t, k.open(t)) })
	}
}

func openSQLite(tb testing.TB) classroom.Store {
	tb.Helper()
	st, err := sqlite.Open(context.Background(), tb.TempDir(), classroom.Options{})
	if err != nil {
		tb.Fatalf("open sqlite store: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

func openPostgres(tb testing.TB) classroom.Store {
	tb.Helper()
	addr := storetest.PostgresSchema(tb, "webtest_")
	st, err := postgres.Open(context.Background(), addr, classroom.Options{})
	if err != nil {
		tb.Fatalf("open postgres store: %v", err)
	}
	// Registered after the schema's cleanup, so it runs before it.
	tb.Cleanup(func() { st.Close() })
	return st
}

// startClass serves a playground with a classroom store.
func startClass(tb testing.TB, st classroom.Store) string {
	tb.Helper()
	ts, _ := startServer(tb, web.Config{Classroom: st})
	return ts.URL
}

// person is one browser: its own cookie jar, not following redirects.
type person struct {
	t    testing.TB
	base string
	c    *http.Client
	// header is added to every request (Authorization, Origin, ...).
	header http.Header
}

func newPerson(tb testing.TB, base string) *person {
	jar, _ := cookiejar.New(nil)
	return &person{t: tb, base: base, header: http.Header{}, c: &http.Client{
		Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// teacher is a client that sends the key as a Bearer token.
func teacher(tb testing.TB, base, key string) *person {
	p := newPerson(tb, base)
	p.header.Set("Authorization", "Bearer "+key)
	return p
}

type answer struct {
	status int
	header http.Header
	body   string
}

// decode reads the body as JSON into v.
func (a answer) decode(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(a.body), v); err != nil {
		tb.Fatalf("decoding %q: %v", a.body, err)
	}
}

func (p *person) do(method, path, ctype, body string, extra ...string) answer {
	p.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, p.base+path, r)
	if err != nil {
		p.t.Fatal(err)
	}
	for k, vs := range p.header {
		req.Header[k] = vs
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	res, err := p.c.Do(req)
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header, string(data)}
}

func (p *person) get(path string) answer { p.t.Helper(); return p.do("GET", path, "", "") }

func (p *person) postJSON(path, body string, extra ...string) answer {
	p.t.Helper()
	return p.do("POST", path, "application/json", body, extra...)
}

func (p *person) postForm(path string, v url.Values, extra ...string) answer {
	p.t.Helper()
	return p.do("POST", path, "application/x-www-form-urlencoded", v.Encode(), extra...)
}

// cookie returns the value of a cookie the person's jar holds for the server.
func (p *person) cookie(name string) string {
	u, _ := url.Parse(p.base)
	for _, c := range p.c.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

type created struct {
	Code        string `json:"code"`
	TeacherKey  string `json:"teacher_key"`
	TeacherLink string `json:"teacher_link"`
}

// createClass creates a class through the API.
func createClass(tb testing.TB, base, name string) created {
	tb.Helper()
	a := newPerson(tb, base).postJSON("/api/classes", `{"name":`+jsonString(name)+`}`)
	if a.status != http.StatusCreated {
		tb.Fatalf("POST /api/classes: %d %s", a.status, a.body)
	}
	var c created
	a.decode(tb, &c)
	return c
}

// join joins a class as a new person and returns them with their id.
func join(tb testing.TB, base, code, name string) (*person, int64) {
	tb.Helper()
	p := newPerson(tb, base)
	a := p.postJSON("/api/classes/"+code+"/join", `{"name":`+jsonString(name)+`}`)
	if a.status != http.StatusCreated {
		tb.Fatalf("join %s as %q: %d %s", code, name, a.status, a.body)
	}
	var j struct {
		Learner struct {
			ID int64 `json:"id"`
		} `json:"learner"`
	}
	a.decode(tb, &j)
	return p, j.Learner.ID
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// record stores an attempt for a learner through the store, as the check
// endpoint does.
func record(tb testing.TB, st classroom.Store, p *person, ex, answer string, correct bool) {
	tb.Helper()
	if _, err := st.Record(context.Background(), p.cookie(web.LearnerCookie), classroom.Attempt{
		Exercise: ex, Answer: answer, Correct: correct, Graded: true,
	}); err != nil {
		tb.Fatalf("record %s %q: %v", ex, answer, err)
	}
}

// wantStatus fails unless the answer has the status.
func wantStatus(tb testing.TB, a answer, status int, what string) {
	tb.Helper()
	if a.status != status {
		tb.Fatalf("%s: status %d (%s), want %d", what, a.status, strings.TrimSpace(a.body), status)
	}
}

// deviceCode asks for a device code as p's class page does and returns it
// as shown (ABCDE-FGHJK).
func deviceCode(tb testing.TB, p *person) string {
	tb.Helper()
	a := p.postJSON("/api/me/device-code", "")
	wantStatus(tb, a, http.StatusCreated, "a device code")
	var offer struct{ Code string }
	a.decode(tb, &offer)
	return offer.Code
}

// revealToClass presses the predictions chart's Reveal as the dashboard
// does: the class's reveal of exercise ex.
func revealToClass(tb testing.TB, owner *person, code, ex string) {
	tb.Helper()
	wantStatus(tb, owner.postJSON("/api/classes/"+code+"/reveal", `{"exercise":`+jsonString(ex)+`}`), http.StatusOK, "the class's reveal of "+ex)
}
