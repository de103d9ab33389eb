package web_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

func catalogIDs(t *testing.T) []string {
	t.Helper()
	cat, err := lessons.Default()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ex := range cat.Exercises() {
		ids = append(ids, ex.ID)
	}
	if len(ids) < 2 {
		t.Fatalf("the catalog has %d exercises; the tests need two", len(ids))
	}
	return ids
}

func TestClassCreateJoinAndPages(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)

		// The page form: creating shows the code and the teacher link once
		// and sets the teacher cookie.
		tp := newPerson(t, base)
		a := tp.postForm("/class/new", url.Values{"class_name": {"Week 5"}})
		wantStatus(t, a, http.StatusCreated, "POST /class/new")
		doc := parseHTML(t, a.body)
		code := text(oneByTestID(t, doc, "class-code"))
		link, _ := attr(oneByTestID(t, doc, "teacher-link"), "href")
		if len(code) != classroom.CodeLen || !strings.HasPrefix(link, base+"/class/teacher#key=") {
			t.Fatalf("created page: code %q, teacher link %q", code, link)
		}
		key := tp.cookie(web.TeacherCookie)
		if key == "" || !strings.HasSuffix(link, url.QueryEscape(key)) {
			t.Fatalf("teacher cookie %q does not match the link %q", key, link)
		}
		if cc := setCookie(t, a, web.TeacherCookie); !cc.HttpOnly || cc.SameSite != http.SameSiteLaxMode {
			t.Errorf("teacher cookie: HttpOnly %v SameSite %v", cc.HttpOnly, cc.SameSite)
		}

		// The teacher link's page trades the key for the cookie.
		fresh := teacher(t, base, key)
		s := fresh.postJSON("/api/teacher/session", `{}`)
		wantStatus(t, s, http.StatusOK, "POST /api/teacher/session")
		if !strings.Contains(s.body, `"/class/`+code+`/teacher"`) || fresh.cookie(web.TeacherCookie) != key {
			t.Errorf("teacher session: %s, cookie %q", s.body, fresh.cookie(web.TeacherCookie))
		}

		// A learner joins with the form and lands on their page.
		lp := newPerson(t, base)
		j := lp.postForm("/class/join", url.Values{"code": {strings.ToLower(code)}, "name": {"Ada"}})
		wantStatus(t, j, http.StatusSeeOther, "POST /class/join")
		if loc := j.header.Get("Location"); loc != "/class/me" {
			t.Errorf("join redirects to %q", loc)
		}
		if cc := setCookie(t, j, web.LearnerCookie); !cc.HttpOnly || cc.SameSite != http.SameSiteLaxMode || cc.Path != "/" {
			t.Errorf("learner cookie: %+v", cc)
		}
		me := lp.get("/class/me")
		wantStatus(t, me, http.StatusOK, "GET /class/me")
		doc = parseHTML(t, me.body)
		if got := text(oneByTestID(t, doc, "learner-name")); got != "Ada" {
			t.Errorf("learner page name %q", got)
		}
		if got := text(oneByTestID(t, doc, "learner-class-code")); got != code {
			t.Errorf("learner page code %q, want %q", got, code)
		}
		if n := len(byTestID(doc, "learner-exercise")); n != len(catalogIDs(t)) {
			t.Errorf("learner page lists %d exercises, want the catalog's %d", n, len(catalogIDs(t)))
		}

		// The form shows the store's error in place.
		bad := newPerson(t, base).postForm("/class/join", url.Values{"code": {code}, "name": {"ada"}})
		wantStatus(t, bad, http.StatusConflict, "joining under a taken name")
		if msg := text(oneByTestID(t, parseHTML(t, bad.body), "join-error")); !strings.Contains(msg, "name") {
			t.Errorf("join error %q does not name the field", msg)
		}
		nf := newPerson(t, base).postForm("/class/join", url.Values{"code": {"ZZZZZZ"}, "name": {"Bo"}})
		wantStatus(t, nf, http.StatusNotFound, "joining an unknown code")

		// The JSON API, and the dashboard listing both.
		_, _ = join(t, base, code, "Grace")
		d := fresh.get("/class/" + code + "/teacher")
		wantStatus(t, d, http.StatusOK, "dashboard")
		var names []string
		for _, n := range byTestID(parseHTML(t, d.body), "learner-name") {
			names = append(names, text(n))
		}
		if strings.Join(names, ",") != "Ada,Grace" {
			t.Errorf("dashboard learners %v", names)
		}
		// Without any cookie, /class/me sends to the join page.
		if r := newPerson(t, base).get("/class/me"); r.status != http.StatusSeeOther {
			t.Errorf("/class/me without a session: %d", r.status)
		}
	})
}

func setCookie(t *testing.T, a answer, name string) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no Set-Cookie %s in %v", name, a.header["Set-Cookie"])
	return nil
}

func TestClassAuthorization(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c1 := createClass(t, base, "One")
		c2 := createClass(t, base, "Two")
		ada, adaID := join(t, base, c1.Code, "Ada")
		_, boID := join(t, base, c1.Code, "Bo")

		anon := newPerson(t, base)
		wrong := teacher(t, base, strings.Repeat("x", 43))
		other := teacher(t, base, c2.TeacherKey)
		owner := teacher(t, base, c1.TeacherKey)
		for _, path := range []string{
			"/api/classes/" + c1.Code + "/dashboard",
			"/api/classes/" + c1.Code + "/progress.csv",
			"/api/classes/" + c1.Code + "/progress-wide.csv",
			"/api/classes/" + c1.Code + "/events",
			"/class/" + c1.Code + "/teacher",
		} {
			wantStatus(t, anon.get(path), http.StatusUnauthorized, "no key: "+path)
			wantStatus(t, ada.get(path), http.StatusUnauthorized, "a learner's cookie: "+path)
			wantStatus(t, wrong.get(path), http.StatusForbidden, "wrong key: "+path)
			wantStatus(t, other.get(path), http.StatusForbidden, "another class's key: "+path)
		}
		wantStatus(t, owner.get("/api/classes/"+c1.Code+"/dashboard"), http.StatusOK, "the owner's dashboard")

		// Learners see their own progress only.
		own := ada.get("/api/classes/" + c1.Code + "/learners/" + strconv.FormatInt(adaID, 10) + "/progress")
		wantStatus(t, own, http.StatusOK, "a learner's own progress")
		wantStatus(t, ada.get("/api/classes/"+c1.Code+"/learners/"+strconv.FormatInt(boID, 10)+"/progress"),
			http.StatusForbidden, "a learner reading another's progress")
		wantStatus(t, other.get("/api/classes/"+c1.Code+"/learners/"+strconv.FormatInt(boID, 10)+"/progress"),
			http.StatusForbidden, "another class's teacher reading a learner")
		wantStatus(t, owner.get("/api/classes/"+c1.Code+"/learners/"+strconv.FormatInt(boID, 10)+"/progress"),
			http.StatusOK, "the teacher reading a learner")

		// Every teacher action wants the key.
		for _, act := range []struct{ method, path, body string }{
			{"POST", "/api/classes/" + c1.Code + "/code", `{}`},
			{"POST", "/api/classes/" + c1.Code + "/joining", `{"open":false}`},
			{"POST", "/api/classes/" + c1.Code + "/scenario", `{"preset":"` + presetName(t) + `"}`},
			{"DELETE", "/api/classes/" + c1.Code + "/learners/" + strconv.FormatInt(boID, 10), ""},
		} {
			ct := "application/json"
			wantStatus(t, ada.do(act.method, act.path, ct, act.body), http.StatusUnauthorized, "a learner: "+act.path)
			wantStatus(t, other.do(act.method, act.path, ct, act.body), http.StatusForbidden, "another class's key: "+act.path)
		}
		// Nothing changed.
		var v struct {
			Class struct {
				Code     string `json:"code"`
				JoinOpen bool   `json:"join_open"`
			} `json:"class"`
			Learners []struct{} `json:"learners"`
		}
		owner.get("/api/classes/"+c1.Code+"/dashboard").decode(t, &v)
		if v.Class.Code != c1.Code || !v.Class.JoinOpen || len(v.Learners) != 2 {
			t.Errorf("refused actions changed the class: %+v", v)
		}
		// The key is never in a page's or an answer's URL-visible parts.
		if a := owner.get("/class/" + c1.Code + "/teacher"); strings.Contains(a.body, c1.TeacherKey) {
			t.Error("the dashboard page contains the teacher key")
		}
	})
}

func presetName(t *testing.T) string {
	t.Helper()
	return engine.PresetNames()[0]
}

func engineLoad(name string) (engine.Scenario, error) {
	p, err := engine.LoadPreset(name)
	return p.Scenario, err
}

func newTestServer(t *testing.T, srv *web.Server) *httptest.Server {
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}

func TestClassNamesAreEscaped(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		const evil = `<script>alert(1)</script>`
		c := createClass(t, base, `<b>class</b>`)
		ids := catalogIDs(t)
		p, _ := join(t, base, c.Code, evil)
		record(t, st, p, ids[0], `<img src=x onerror=alert(2)>`, false)
		owner := teacher(t, base, c.TeacherKey)

		page := owner.get("/class/" + c.Code + "/teacher")
		wantStatus(t, page, http.StatusOK, "dashboard")
		if strings.Contains(page.body, "<script>alert") || strings.Contains(page.body, "<img src=x") || strings.Contains(page.body, "<b>class") {
			t.Fatal("the dashboard contains a name or an answer unescaped")
		}
		doc := parseHTML(t, page.body)
		if got := text(oneByTestID(t, doc, "learner-name")); got != evil {
			t.Errorf("dashboard shows the name as %q, want the text %q", got, evil)
		}
		if got := text(oneByTestID(t, doc, "mistake-learner")); got != evil+`: <img src=x onerror=alert(2)>` {
			t.Errorf("dashboard shows the mistake's learner and answer as %q", got)
		}
		if got := text(oneByTestID(t, doc, "dash-class-name")); got != `<b>class</b>` {
			t.Errorf("class name shown as %q", got)
		}
		me := p.get("/class/me")
		if strings.Contains(me.body, "<script>alert") || text(oneByTestID(t, parseHTML(t, me.body), "learner-name")) != evil {
			t.Error("the learner page shows the name unescaped or not at all")
		}

		// JSON carries the name as data, served as JSON (nosniff), not HTML.
		js := owner.get("/api/classes/" + c.Code + "/dashboard")
		if ct := js.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || js.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("dashboard JSON served as %q", ct)
		}
		var v struct {
			Learners []struct {
				Name string `json:"name"`
			} `json:"learners"`
		}
		js.decode(t, &v)
		if len(v.Learners) != 1 || v.Learners[0].Name != evil {
			t.Errorf("JSON names %+v", v.Learners)
		}
		// CSV carries it verbatim as a cell, served as an attachment.
		csvA := owner.get("/api/classes/" + c.Code + "/progress.csv")
		if !strings.HasPrefix(csvA.header.Get("Content-Disposition"), "attachment") {
			t.Errorf("CSV Content-Disposition %q", csvA.header.Get("Content-Disposition"))
		}
		rows := readCSV(t, csvA.body)
		if rows[1][0] != evil {
			t.Errorf("CSV learner cell %q", rows[1][0])
		}
	})
}

func readCSV(t *testing.T, body string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("CSV %q: %v", body, err)
	}
	return rows
}

func TestClassCSVExports(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		ids := catalogIDs(t)
		c := createClass(t, base, "CSV")
		ada, _ := join(t, base, c.Code, "Ada")
		_, _ = join(t, base, c.Code, "Bo")
		record(t, st, ada, ids[1], "7", false)
		record(t, st, ada, ids[1], "8", true)
		record(t, st, ada, ids[0], "x", false)
		owner := teacher(t, base, c.TeacherKey)

		long := owner.get("/api/classes/" + c.Code + "/progress.csv")
		wantStatus(t, long, http.StatusOK, "progress.csv")
		if ct := long.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("Content-Type %q", ct)
		}
		rows := readCSV(t, long.body)
		if strings.Join(rows[0], ",") != "learner,exercise,attempted,correct,tries,tries_to_correct,first_at,last_at,gave_up,score,comment,revealed,status" {
			t.Fatalf("header %v", rows[0])
		}
		if len(rows) != 1+2*len(ids) {
			t.Fatalf("%d rows, want a header and one per learner and exercise (%d)", len(rows), 2*len(ids))
		}
		// Catalog order, every exercise, tried or not.
		for i, id := range ids {
			if rows[1+i][0] != "Ada" || rows[1+i][1] != id {
				t.Fatalf("row %d is %v, want Ada and %s", 1+i, rows[1+i], id)
			}
		}
		if got := strings.Join(rows[2][:6], ","); got != "Ada,"+ids[1]+",1,1,2,2" {
			t.Errorf("Ada's second exercise: %s", got)
		}
		if got := strings.Join(rows[1][:6], ","); got != "Ada,"+ids[0]+",1,0,1,0" {
			t.Errorf("Ada's first exercise: %s", got)
		}
		if got := strings.Join(rows[1+len(ids)][:6], ","); got != "Bo,"+ids[0]+",0,0,0,0" {
			t.Errorf("Bo's first exercise: %s", got)
		}

		wide := owner.get("/api/classes/" + c.Code + "/progress-wide.csv")
		wantStatus(t, wide, http.StatusOK, "progress-wide.csv")
		rows = readCSV(t, wide.body)
		if want := "learner," + strings.Join(ids, ",") + ",score"; strings.Join(rows[0], ",") != want {
			t.Fatalf("wide header %v, want %s", rows[0], want)
		}
		if len(rows) != 3 {
			t.Fatalf("wide CSV has %d rows", len(rows))
		}
		if rows[1][0] != "Ada" || rows[1][1] != "0" || rows[1][2] != "1" || rows[1][len(rows[1])-1] != "1" {
			t.Errorf("Ada's wide row %v", rows[1])
		}
		if rows[2][0] != "Bo" || rows[2][1] != "" || rows[2][len(rows[2])-1] != "0" {
			t.Errorf("Bo's wide row %v", rows[2])
		}
	})
}

// TestClassJoinRateLimit fills a join burst and a create burst from one
// address. The limits' clock stands still unless the test moves it, so
// what the limiter decides is the same on an idle machine and a loaded
// one: exactly the burst passes, and after Retry-After has passed on the
// clock, exactly one more.
func TestClassJoinRateLimit(t *testing.T) {
	clk := newTestClock()
	ts, _ := startServer(t, web.Config{Classroom: openSQLite(t), Class: web.ClassConfig{Clock: clk.Now}})
	base := ts.URL
	c := createClass(t, base, "Crowd")
	// The burst is a whole class (MaxLearnersPerClass): the join after the
	// wait goes to a second one.
	c2 := createClass(t, base, "Second")
	n := web.DefaultJoinRate.Burst
	for i := range n {
		join(t, base, c.Code, "learner "+strconv.Itoa(i))
	}
	a := newPerson(t, base).postJSON("/api/classes/"+c.Code+"/join", `{"name":"one too many"}`)
	wantStatus(t, a, http.StatusTooManyRequests, "the join after the burst")
	// The next token is at most a second away (Retry-After rounds up).
	if ra := a.header.Get("Retry-After"); ra != "1" {
		t.Errorf("Retry-After %q, want 1", ra)
	}
	var e struct{ Error, Code string }
	a.decode(t, &e)
	if !strings.Contains(e.Error, "too many joins") || !strings.Contains(e.Error, "try again in 1 s") || e.Code != "rate_limited" {
		t.Errorf("429 %+v", e)
	}
	// Going on in another browser spends the same bucket, and its refusal
	// says so rather than speaking only of joins.
	cont := newPerson(t, base).postJSON("/api/classes/continue", `{"code":"ABCDE-FGHJK"}`)
	wantStatus(t, cont, http.StatusTooManyRequests, "a device code after the join burst")
	cont.decode(t, &e)
	if !strings.Contains(e.Error, "going on in another browser") {
		t.Errorf("a refused device code is told %q", e.Error)
	}
	clk.Advance(time.Duration(float64(time.Minute) / web.DefaultJoinRate.PerMinute)) // one token
	join(t, base, c2.Code, "after the wait")
	wantStatus(t, newPerson(t, base).postJSON("/api/classes/"+c2.Code+"/join", `{"name":"too soon"}`),
		http.StatusTooManyRequests, "a second join after one token came back")
	// Joining is limited, reading is not.
	wantStatus(t, teacher(t, base, c.TeacherKey).get("/api/classes/"+c.Code+"/dashboard"), http.StatusOK, "dashboard after the limit")
	// So is creating classes.
	for range web.DefaultCreateRate.Burst - 2 { // two were created above
		createClass(t, base, "x")
	}
	wantStatus(t, newPerson(t, base).postJSON("/api/classes", `{"name":"y"}`), http.StatusTooManyRequests, "one class too many")
	// A spoofed X-Forwarded-For does not make a new client.
	wantStatus(t, newPerson(t, base).postJSON("/api/classes", `{"name":"y"}`, "X-Forwarded-For", "203.0.113.9"),
		http.StatusTooManyRequests, "a spoofed X-Forwarded-For")
}

// TestClassCreateRateIsTheOperators: --class-create-rate and
// --class-create-burst (Config.Class.CreateRate) replace the default, for
// the page form as for the API.
func TestClassCreateRateIsTheOperators(t *testing.T) {
	clk := newTestClock()
	ts, _ := startServer(t, web.Config{Classroom: openSQLite(t),
		Class: web.ClassConfig{Clock: clk.Now, CreateRate: web.Rate{PerMinute: 0.5, Burst: 2}}})
	createClass(t, ts.URL, "one")
	createClass(t, ts.URL, "two")
	a := newPerson(t, ts.URL).postJSON("/api/classes", `{"name":"three"}`)
	wantStatus(t, a, http.StatusTooManyRequests, "a third class")
	if ra := a.header.Get("Retry-After"); ra != "120" {
		t.Errorf("Retry-After %q, want 120 (half a class a minute)", ra)
	}
	if !strings.Contains(a.body, "too many classes created from your address (at most 2 at once, then 0.5 a minute)") {
		t.Errorf("429 %s", a.body)
	}
	page := newPerson(t, ts.URL).postForm("/class/new", url.Values{"name": {"three"}})
	wantStatus(t, page, http.StatusTooManyRequests, "the form past the limit")
	clk.Advance(2 * time.Minute)
	createClass(t, ts.URL, "three")
}

func TestClassRefusesCrossSiteRequests(t *testing.T) {
	base := startClass(t, openSQLite(t))
	c := createClass(t, base, "Guarded")
	p := newPerson(t, base)
	for _, h := range [][]string{
		{"Origin", "https://evil.example"},
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Origin", "null"},
	} {
		a := p.postJSON("/api/classes/"+c.Code+"/join", `{"name":"Mallory"}`, h...)
		wantStatus(t, a, http.StatusForbidden, "JSON join with "+strings.Join(h, ": "))
		f := p.postForm("/class/join", url.Values{"code": {c.Code}, "name": {"Mallory"}}, h...)
		wantStatus(t, f, http.StatusForbidden, "form join with "+strings.Join(h, ": "))
		wantStatus(t, teacher(t, base, c.TeacherKey).postJSON("/api/classes/"+c.Code+"/code", `{}`, h...),
			http.StatusForbidden, "rotating the code with "+strings.Join(h, ": "))
	}
	// A same-origin browser request passes.
	a := p.postJSON("/api/classes/"+c.Code+"/join", `{"name":"Ada"}`, "Origin", base, "Sec-Fetch-Site", "same-origin")
	wantStatus(t, a, http.StatusCreated, "same-origin join")
	// JSON endpoints take only JSON: a form cannot reach them.
	b := newPerson(t, base).do("POST", "/api/classes/"+c.Code+"/join", "text/plain", `{"name":"Eve"}`)
	wantStatus(t, b, http.StatusUnsupportedMediaType, "text/plain join")
	// Bodies are bounded.
	big := newPerson(t, base).postJSON("/api/classes", `{"name":"`+strings.Repeat("a", web.DefaultMaxBodyBytes+10)+`"}`)
	wantStatus(t, big, http.StatusRequestEntityTooLarge, "a huge body")
}

func TestClassPushScenario(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Push")
		owner := teacher(t, base, c.TeacherKey)
		learner, _ := join(t, base, c.Code, "Ada")
		path := "/api/classes/" + c.Code + "/scenario"
		for _, tc := range []struct{ body, field string }{
			{`{"preset":"no-such-preset"}`, "preset"},
			{`{"preset":"` + presetName(t) + `","link":"/playground?preset=x"}`, "link"}, // the one too many
			{`{"scenario":{"clients":"many"}}`, "scenario"},
			{`{"scenario":{"lock":{"backend":"consul"},"clients":[{"name":"a"}]}}`, "scenario.lock.backend"},
			{`{"link":"https://example.org/playground?s=!!!"}`, "link"},
			{`{"link":"https://example.org/somewhere"}`, "link"},
			{`{"preset":7}`, "preset"},
		} {
			a := owner.postJSON(path, tc.body)
			wantStatus(t, a, http.StatusBadRequest, tc.body)
			var e struct{ Error, Field string }
			a.decode(t, &e)
			if !strings.HasPrefix(e.Field, tc.field) || !strings.HasPrefix(e.Error, e.Field) {
				t.Errorf("%s: field %q error %q, want the field %q named", tc.body, e.Field, e.Error, tc.field)
			}
		}
		// A preset: the learner's page offers it.
		name := presetName(t)
		wantStatus(t, owner.postJSON(path, `{"preset":"`+name+`"}`), http.StatusOK, "push a preset")
		doc := parseHTML(t, learner.get("/class/me").body)
		href, _ := attr(oneByTestID(t, doc, "pushed-scenario-link"), "href")
		if href != "/playground?preset="+name {
			t.Errorf("pushed link %q", href)
		}
		// A share link: the learner gets a share link of the same scenario.
		p, err := engineLoad(name)
		if err != nil {
			t.Fatal(err)
		}
		p.Seed = 4242
		s, err := web.EncodeShare(p)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, owner.postJSON(path, `{"link":"http://teacher.example/playground?s=`+s+`&speed=2"}`), http.StatusOK, "push a link")
		var me struct {
			Class struct {
				Scenario struct{ URL string } `json:"scenario"`
			} `json:"class"`
		}
		learner.get("/api/me").decode(t, &me)
		got, err := web.DecodeShare(strings.TrimPrefix(me.Class.Scenario.URL, "/playground?s="))
		if err != nil || got.Seed != 4242 {
			t.Errorf("pushed share link %q: seed %d, %v", me.Class.Scenario.URL, got.Seed, err)
		}
		// A scenario document, then clearing it.
		doc2, _ := json.Marshal(p)
		wantStatus(t, owner.postJSON(path, `{"scenario":`+string(doc2)+`}`), http.StatusOK, "push a document")
		wantStatus(t, owner.postJSON(path, `{}`), http.StatusOK, "clear")
		if n := len(byTestID(parseHTML(t, learner.get("/class/me").body), "pushed-scenario")); n != 0 {
			t.Error("the cleared scenario is still offered")
		}
	})
}

// TestClassAPIsRejectUnknownFields holds the class APIs to POST /api/run's
// rule: a field the request does not take is a 400 naming it, so that
// {"admin": true} is not quietly ignored, and a wrong type is named in
// words.
func TestClassAPIsRejectUnknownFields(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Strict")
		owner := teacher(t, base, c.TeacherKey)
		api := "/api/classes/" + c.Code
		for _, tc := range []struct {
			who         *person
			path, body  string
			field, want string
		}{
			{newPerson(t, base), "/api/classes", `{"name":"Week 6","admin":true}`, "admin", "admin: is not a field of this request, which takes name or variants"},
			{newPerson(t, base), api + "/join", `{"name":"Zed","admin":true}`, "admin", "admin: is not a field of this request, which takes name, student_id or email"},
			{newPerson(t, base), api + "/join", `{"name":5}`, "name", "name: must be a string"},
			{newPerson(t, base), api + "/join", `{"name":"Zed"}{"name":"Ann"}`, "body", "body: has more than one JSON value"},
			{owner, api + "/joining", `{"open":true,"until":"friday"}`, "until", "until: is not a field of this request, which takes open"},
			{owner, api + "/joining", `{"open":"yes"}`, "open", "open: must be true or false"},
			{owner, api + "/scenario", `{"preset":"` + presetName(t) + `","speed":2}`, "speed", "speed: is not a field of this request, which takes preset, scenario, link, lesson or exercise"},
		} {
			a := tc.who.postJSON(tc.path, tc.body)
			var e struct{ Error, Field string }
			a.decode(t, &e)
			if a.status != http.StatusBadRequest || e.Field != tc.field || e.Error != tc.want {
				t.Errorf("POST %s %s: %d %+v, want 400 %q", tc.path, tc.body, a.status, e, tc.want)
			}
		}
		// Nobody joined through the refused requests.
		d := owner.get("/class/" + c.Code + "/teacher")
		wantStatus(t, d, http.StatusOK, "dashboard")
		if n := len(byTestID(parseHTML(t, d.body), "learner-name")); n != 0 {
			t.Errorf("%d learners joined through refused requests", n)
		}
	})
}

func TestClassTeacherActions(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Actions")
		owner := teacher(t, base, c.TeacherKey)
		ada, adaID := join(t, base, c.Code, "Ada")

		// Close joining: a new learner is refused, Ada keeps working.
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/joining", `{"open":false}`), http.StatusOK, "close joining")
		wantStatus(t, newPerson(t, base).postJSON("/api/classes/"+c.Code+"/join", `{"name":"Late"}`), http.StatusConflict, "join when closed")
		wantStatus(t, ada.get("/api/me"), http.StatusOK, "Ada after closing")
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/joining", `{}`), http.StatusBadRequest, "joining without open")
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/joining", `{"open":true}`), http.StatusOK, "open joining")

		// Rotate: the old code stops working for joining; the teacher's
		// old dashboard URL leads to the new one.
		r := owner.postJSON("/api/classes/"+c.Code+"/code", `{}`)
		wantStatus(t, r, http.StatusOK, "rotate")
		var nc struct{ Code string }
		r.decode(t, &nc)
		if nc.Code == c.Code || len(nc.Code) != classroom.CodeLen {
			t.Fatalf("rotated code %q", nc.Code)
		}
		wantStatus(t, newPerson(t, base).postJSON("/api/classes/"+c.Code+"/join", `{"name":"Old"}`), http.StatusNotFound, "join with the old code")
		join(t, base, nc.Code, "New")
		tp := newPerson(t, base)
		tp.postJSON("/api/teacher/session", `{}`, "Authorization", "Bearer "+c.TeacherKey)
		old := tp.get("/class/" + c.Code + "/teacher")
		wantStatus(t, old, http.StatusSeeOther, "the old dashboard URL")
		if loc := old.header.Get("Location"); loc != "/class/"+nc.Code+"/teacher" {
			t.Errorf("old dashboard redirects to %q", loc)
		}

		// Remove: Ada's session ends.
		del := owner.do("DELETE", "/api/classes/"+nc.Code+"/learners/"+strconv.FormatInt(adaID, 10), "", "")
		wantStatus(t, del, http.StatusNoContent, "remove Ada")
		wantStatus(t, ada.get("/class/me"), http.StatusUnauthorized, "Ada's page after removal")
		wantStatus(t, ada.get("/api/me"), http.StatusUnauthorized, "Ada after removal")
		// Her browser forgets the class, so its next pages stop following one.
		if s, h := ada.cookie(web.LearnerCookie), ada.cookie(web.ClassHintCookie); s != "" || h != "" {
			t.Errorf("after /api/me refused the removed Ada, her browser keeps %s=%q and %s=%q", web.LearnerCookie, s, web.ClassHintCookie, h)
		}
		wantStatus(t, owner.do("DELETE", "/api/classes/"+nc.Code+"/learners/"+strconv.FormatInt(adaID, 10), "", ""), http.StatusNotFound, "remove twice")
	})
}

// TestClassLiveDashboard reads the event stream: a first dashboard, then
// a new one after an answer, and the stream's end at shutdown.
func TestClassLiveDashboard(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		srv, err := web.NewServer(web.Config{Classroom: st})
		if err != nil {
			t.Fatal(err)
		}
		ts := newTestServer(t, srv)
		ids := catalogIDs(t)
		c := createClass(t, ts.URL, "Live")
		ada, _ := join(t, ts.URL, c.Code, "Ada")

		req, _ := http.NewRequest("GET", ts.URL+"/api/classes/"+c.Code+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+c.TeacherKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("events Content-Type %q", ct)
		}
		events := make(chan [2]string, 16)
		go func() {
			defer close(events)
			sc := bufio.NewScanner(res.Body)
			sc.Buffer(nil, 1<<20)
			var ev string
			for sc.Scan() {
				line := sc.Text()
				if e, ok := strings.CutPrefix(line, "event: "); ok {
					ev = e
				} else if d, ok := strings.CutPrefix(line, "data: "); ok {
					events <- [2]string{ev, d}
				}
			}
		}()
		next := func() (string, map[string]any) {
			t.Helper()
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatal("the stream ended")
				}
				var v map[string]any
				json.Unmarshal([]byte(e[1]), &v)
				return e[0], v
			case <-time.After(10 * time.Second):
				t.Fatal("no event within 10 s")
			}
			return "", nil
		}
		if ev, _ := next(); ev != "dashboard" {
			t.Fatalf("first event %q", ev)
		}
		record(t, st, ada, ids[0], "42", true)
		for {
			ev, v := next()
			if ev != "dashboard" {
				t.Fatalf("event %q", ev)
			}
			exs := v["exercises"].([]any)
			if exs[0].(map[string]any)["correct"].(float64) == 1 {
				break
			}
		}
		// Shutdown ends the stream with a goodbye.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown with an open stream: %v", err)
		}
		for e := range events {
			if e[0] == "bye" {
				return
			}
		}
		t.Error("the stream ended without a goodbye")
	})
}

func TestMetricsAndHealthz(t *testing.T) {
	st := openSQLite(t)
	base := startClass(t, st)
	createClass(t, base, "Metrics")
	a := newPerson(t, base).get("/metrics")
	wantStatus(t, a, http.StatusOK, "/metrics")
	for _, series := range []string{
		"playground_live_runs ", "playground_live_runs_limit ", "playground_websocket_sessions ",
		`playground_exercise_checks_total{code="200"} 0`,
		`playground_http_request_duration_seconds_count{code="201",method="POST",route="/api/classes"} 1`,
		`playground_store_errors_total{op="record"} 0`,
		`playground_rate_limited_total{limit="joins"} 0`,
		"playground_dashboard_streams ", "go_goroutines ",
	} {
		if !strings.Contains(a.body, series) {
			t.Errorf("/metrics has no %s", series)
		}
	}
	h := newPerson(t, base).get("/healthz")
	wantStatus(t, h, http.StatusOK, "/healthz")
	if !strings.Contains(h.body, `"store":"ok"`) {
		t.Errorf("/healthz %s", h.body)
	}
	st.Close()
	wantStatus(t, newPerson(t, base).get("/readyz"), http.StatusServiceUnavailable, "/readyz with the store closed")
	// The failed calls are counted as store errors.
	newPerson(t, base).postJSON("/api/classes", `{"name":"after close"}`)
	if m := newPerson(t, base).get("/metrics").body; !strings.Contains(m, `playground_store_errors_total{op="create_class"} 1`) {
		t.Errorf("store errors not counted:\n%s", grepLines(m, "store_errors"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestClassRoutesWithoutAStore(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	wantStatus(t, newPerson(t, ts.URL).get("/class"), http.StatusNotFound, "/class without a store")
	wantStatus(t, newPerson(t, ts.URL).postJSON("/api/classes", `{"name":"x"}`), http.StatusNotFound, "POST /api/classes without a store")
	wantStatus(t, newPerson(t, ts.URL).get("/healthz"), http.StatusOK, "/healthz without a store")
}

// TestClassMiddlewareStaysOnClassRoutes: an unknown URL is an ordinary 404
// (not "runs without classes", not a cross-site refusal), and a route
// label in the metrics.
func TestClassMiddlewareStaysOnClassRoutes(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	a := newPerson(t, ts.URL).get("/api/no-such-thing")
	wantStatus(t, a, http.StatusNotFound, "an unknown API path")
	if strings.Contains(a.body, "without classes") {
		t.Errorf("an unknown path got the class routes' answer: %s", a.body)
	}
	b := newPerson(t, ts.URL).postJSON("/nowhere", `{}`, "Sec-Fetch-Site", "cross-site")
	wantStatus(t, b, http.StatusNotFound, "a cross-site POST to an unknown path")
}
