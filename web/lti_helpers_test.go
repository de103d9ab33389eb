package web_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/postgres"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/classroom/storetest"
	"github.com/leaselab/playground/lti"
	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

// stillClock is a clock that moves only when told: token lifetimes and
// the score queue's backoff are tested without waiting.
type stillClock struct {
	mu sync.Mutex
	t  time.Time
}

func newStillClock() *stillClock {
	return &stillClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
}

func (c *stillClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stillClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// ltiEnv is a playground serving the LTI tool, and a test platform
// registered with it.
type ltiEnv struct {
	t     *testing.T
	clock *stillClock
	st    classroom.Store
	lst   classroom.LTIStore
	tool  *lti.Tool
	plat  *ltitest.Platform
	url   string
}

// ltiStore opens a fresh store of a kind on the clock.
func ltiStore(t *testing.T, kind string, clock *stillClock) classroom.Store {
	t.Helper()
	opts := classroom.Options{Now: clock.Now, PurgeEvery: -1}
	var st classroom.Store
	var err error
	switch kind {
	case "postgres":
		st, err = postgres.Open(context.Background(), storetest.PostgresSchema(t, "ltitest_"), opts)
	default:
		st, err = sqlite.Open(context.Background(), t.TempDir(), opts)
	}
	if err != nil {
		t.Fatalf("open %s store: %v", kind, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// eachLTIStore runs f on SQLite, and on PostgreSQL when the tests have
// one.
func eachLTIStore(t *testing.T, f func(t *testing.T, kind string)) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) { f(t, k.name) })
	}
}

func startLTI(t *testing.T, kind string) *ltiEnv {
	t.Helper()
	return startLTIWith(t, kind, serveHTTP(t))
}

// serveHTTP starts a test HTTP server on a configuration and returns its
// URL.
func serveHTTP(t *testing.T) func(web.Config) string {
	return func(cfg web.Config) string {
		ts, _ := startServer(t, cfg)
		return ts.URL
	}
}

// startLTIWith is startLTI on a server that start serves (a browser
// test's) and whose URL it returns.
func startLTIWith(t *testing.T, kind string, start func(web.Config) string) *ltiEnv {
	t.Helper()
	clock := newStillClock()
	st := ltiStore(t, kind, clock)
	e := serveLTI(t, st, st.(classroom.LTIStore), clock.Now, nil, start)
	e.clock = clock
	e.addPlatform(clock.Now)
	return e
}

// serveLTI is a playground serving st and the LTI tool on lst (st's own,
// or a wrapper of it), on the clock now, with tweak (nil: none) applied
// to its configuration, started by start, which returns its URL. No
// platform is registered yet (addPlatform).
func serveLTI(t *testing.T, st classroom.Store, lst classroom.LTIStore, now func() time.Time, tweak func(*web.Config), start func(web.Config) string) *ltiEnv {
	t.Helper()
	e := &ltiEnv{t: t, st: st, lst: lst}
	e.tool = lti.New(lti.Config{Store: lst, Now: now, Lessons: catalog(t)})
	t.Cleanup(e.tool.Close)
	cfg := web.Config{Classroom: st, LTI: e.tool, Class: web.ClassConfig{Clock: now}}
	if tweak != nil {
		tweak(&cfg)
	}
	e.url = start(cfg)
	return e
}

// addPlatform registers a test platform, on the clock now, with the
// env's tool, and returns its ID in the store.
func (e *ltiEnv) addPlatform(now func() time.Time) int64 {
	e.t.Helper()
	e.plat = ltitest.New(e.t, now)
	e.plat.ToolJWKS = e.url + "/lti/jwks"
	reg, err := lti.CheckPlatform(e.plat.Registration())
	if err != nil {
		e.t.Fatal(err)
	}
	p, err := e.lst.AddLTIPlatform(context.Background(), reg)
	if err != nil {
		e.t.Fatal(err)
	}
	return p.ID
}

// gradedCourse is a course's class graded into a line item of the env's
// platform: Ada, a learner, and Grace, its teacher, launched into it
// from the course's link to outlive-lease.
type gradedCourse struct {
	item       string // the link's line item
	ada, grace *person
	code       string // the class's code
}

// gradedCourse launches Ada, then Grace, from the course's graded link.
func (e *ltiEnv) gradedCourse() gradedCourse {
	e.t.Helper()
	c := gradedCourse{item: e.plat.LineItem("7"), ada: newPerson(e.t, e.url), grace: newPerson(e.t, e.url)}
	e.launchAs(c.ada, ltitest.Learner, "link-ex", "exercise:outlive-lease", c.item)
	a := e.launchAs(c.grace, ltitest.Teacher, "link-ex", "exercise:outlive-lease", c.item)
	c.code = strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")
	return c
}

// startLTIBrowser is startLTIWith on a browser test's server, with
// tweak (nil: none) applied to its configuration first. It skips without
// PLAYGROUND_E2E=1 or a chromium.
func startLTIBrowser(t *testing.T, tweak func(*web.Config)) (*ltiEnv, *browser) {
	t.Helper()
	var b *browser
	e := startLTIWith(t, "sqlite", func(cfg web.Config) string {
		if tweak != nil {
			tweak(&cfg)
		}
		b = startBrowserWith(t, cfg)
		return b.base
	})
	return e, b
}

// deliver has the tool's queue send what is due now.
func (e *ltiEnv) deliver() {
	e.t.Helper()
	if _, err := e.tool.Deliver(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

// login runs the OIDC login as the platform's browser would and returns
// the state and nonce the tool sent to the authorization endpoint.
func (e *ltiEnv) login(p *person) (state, nonce string) {
	e.t.Helper()
	q := url.Values{"iss": {e.plat.Issuer()}, "login_hint": {"hint-1"}, "target_link_uri": {e.url + "/lessons"},
		"client_id": {e.plat.ClientID}, "lti_message_hint": {"msg-1"}, "lti_deployment_id": {e.plat.DeploymentID}}
	a := p.get("/lti/login?" + q.Encode())
	wantStatus(e.t, a, http.StatusFound, "GET /lti/login")
	keepCookies(p, a) // the login's state, which the launch must come back with
	state, nonce, err := e.plat.Authorize(a.header.Get("Location"), e.url+"/lti/launch")
	if err != nil {
		e.t.Fatal(err)
	}
	return state, nonce
}

// launch posts a signed id_token with the state to /lti/launch.
func (e *ltiEnv) launch(p *person, idToken, state string) answer {
	e.t.Helper()
	return p.postForm("/lti/launch", url.Values{"id_token": {idToken}, "state": {state}},
		"Origin", e.plat.Server.URL, "Sec-Fetch-Site", "cross-site")
}

// launchAs logs in and launches a resource link as u, then carries the
// session cookies the launch set (Secure cookies, which Go's jar keeps
// for https only) on every later request of p.
func (e *ltiEnv) launchAs(p *person, u ltitest.User, link, target, lineItem string) answer {
	e.t.Helper()
	state, nonce := e.login(p)
	a := e.launch(p, e.plat.Sign(e.plat.ResourceLinkClaims(u, nonce, link, target, lineItem)), state)
	wantStatus(e.t, a, http.StatusSeeOther, "launch as "+u.Name)
	carryCookies(p, a)
	return a
}

// keepCookies adds the cookies a set to those p carries (carryCookies),
// as a browser keeps them.
func keepCookies(p *person, a answer) {
	r := http.Request{Header: http.Header{"Cookie": p.header.Values("Cookie")}}
	kept := map[string]string{}
	var order []string
	for _, c := range r.Cookies() {
		kept[c.Name] = c.Value
		order = append(order, c.Name)
	}
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if _, ok := kept[c.Name]; !ok {
			order = append(order, c.Name)
		}
		kept[c.Name] = c.Value
	}
	var parts []string
	for _, name := range order {
		parts = append(parts, name+"="+kept[name])
	}
	if len(parts) > 0 {
		p.header.Set("Cookie", strings.Join(parts, "; "))
	}
}

func carryCookies(p *person, a answer) {
	var parts []string
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		parts = append(parts, c.Name+"="+c.Value)
	}
	if len(parts) > 0 {
		p.header.Set("Cookie", strings.Join(parts, "; "))
	}
}

// counts says how many classes and learners the database holds.
func (e *ltiEnv) counts() (classes, learners int) {
	e.t.Helper()
	db := e.st.(interface{ SQL() *sql.DB }).SQL()
	if err := db.QueryRow(`SELECT (SELECT COUNT(*) FROM classes), (SELECT COUNT(*) FROM learners)`).Scan(&classes, &learners); err != nil {
		e.t.Fatal(err)
	}
	return classes, learners
}

// claimsWith returns the learner's launch claims changed by f.
func (e *ltiEnv) claimsWith(nonce string, f func(jwt.MapClaims)) jwt.MapClaims {
	c := e.plat.ResourceLinkClaims(ltitest.Learner, nonce, "link-1", "", "")
	f(c)
	return c
}

// newTool is a second tool on the env's store: a restarted server.
func newTool(t *testing.T, e *ltiEnv) *lti.Tool {
	tool := lti.New(lti.Config{Store: e.lst, Now: e.clock.Now, Lessons: catalog(t)})
	t.Cleanup(tool.Close)
	return tool
}

func rotateKey(e *ltiEnv) (string, error) {
	kid, err := lti.RotateKey(context.Background(), e.lst)
	e.tool.ForgetKeys()
	return kid, err
}

// refusedCheck is the field or check a refused LTI request names: the
// platform's iframe shows the error page, whose message starts with it.
func refusedCheck(a answer) string {
	m := regexp.MustCompile(`data-testid="error-message">([a-z_.]+):`).FindStringSubmatch(a.body)
	if m == nil {
		return ""
	}
	return m[1]
}
