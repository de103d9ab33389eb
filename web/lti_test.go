package web_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

func TestLTILaunchLearnerAndInstructor(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		ada := newPerson(t, e.url)
		a := e.launchAs(ada, ltitest.Learner, "link-1", "lesson:leases", "")
		if loc := a.header.Get("Location"); loc != "/lessons/leases" {
			t.Errorf("learner lands on %q, want the linked lesson", loc)
		}
		// The session lives in the platform's iframe: a third-party,
		// partitioned cookie, on every path.
		for _, sc := range a.header.Values("Set-Cookie") {
			for _, want := range []string{"Path=/", "Secure", "SameSite=None", "Partitioned"} {
				if !strings.Contains(sc, want) {
					t.Errorf("launch cookie %q lacks %s", sc, want)
				}
			}
		}
		me := ada.get("/api/me")
		wantStatus(t, me, http.StatusOK, "learner's /api/me after the launch")
		var got struct {
			Learner classroom.Learner `json:"learner"`
			Class   struct{ Code, Name string }
		}
		me.decode(t, &got)
		if got.Learner.Name != "Ada Lovelace" || got.Learner.Email != "ada@uni.example.edu" || got.Learner.StudentID != "s1815" {
			t.Errorf("learner from the launch = %+v, want the LMS's name, email and student ID", got.Learner)
		}
		if got.Class.Name != "Distributed Systems 101" {
			t.Errorf("class named %q, want the course's title", got.Class.Name)
		}

		// A second launch of the same learner, from another device, is the
		// same learner in the same class.
		again := newPerson(t, e.url)
		e.launchAs(again, ltitest.Learner, "link-1", "lesson:leases", "")
		if classes, learners := e.counts(); classes != 1 || learners != 1 {
			t.Errorf("after two launches of one learner: %d classes, %d learners; want 1 and 1", classes, learners)
		}

		grace := newPerson(t, e.url)
		a = e.launchAs(grace, ltitest.Teacher, "link-1", "lesson:leases", "")
		if want := "/class/" + got.Class.Code + "/teacher"; a.header.Get("Location") != want {
			t.Errorf("instructor lands on %q, want the dashboard %s", a.header.Get("Location"), want)
		}
		dash := grace.get("/api/classes/" + got.Class.Code + "/dashboard")
		wantStatus(t, dash, http.StatusOK, "the instructor's dashboard with the launch's teacher session")
		if !strings.Contains(dash.body, "Ada Lovelace") {
			t.Errorf("dashboard does not list the learner: %s", dash.body)
		}
		if classes, learners := e.counts(); classes != 1 || learners != 1 {
			t.Errorf("after the instructor's launch: %d classes, %d learners; want 1 and 1 (instructors join nobody)", classes, learners)
		}
	})
}

func TestLTILaunchRefused(t *testing.T) {
	e := startLTI(t, "sqlite")
	forger, _ := rsa.GenerateKey(rand.Reader, 2048)
	cases := []struct {
		name, field string
		token       func(nonce string) string
		state       func(state string) string
	}{
		{"forged signature", "signature", func(n string) string {
			return ltitest.SignWith(e.claimsWith(n, func(jwt.MapClaims) {}), e.plat.KID(), forger)
		}, nil},
		{"wrong audience", "aud", func(n string) string {
			return e.plat.Sign(e.claimsWith(n, func(c jwt.MapClaims) { c["aud"] = "another-tool"; delete(c, "azp") }))
		}, nil},
		{"azp of another client", "azp", func(n string) string {
			return e.plat.Sign(e.claimsWith(n, func(c jwt.MapClaims) { c["aud"] = []string{e.plat.ClientID, "x"}; c["azp"] = "x" }))
		}, nil},
		{"expired token", "exp", func(n string) string {
			return e.plat.Sign(e.claimsWith(n, func(c jwt.MapClaims) {
				c["iat"] = e.clock.Now().Add(-20 * time.Minute).Unix()
				c["exp"] = e.clock.Now().Add(-10 * time.Minute).Unix()
			}))
		}, nil},
		{"issued in the future", "iat", func(n string) string {
			return e.plat.Sign(e.claimsWith(n, func(c jwt.MapClaims) { c["iat"] = e.clock.Now().Add(10 * time.Minute).Unix() }))
		}, nil},
		{"unknown deployment", "deployment_id", func(n string) string {
			return e.plat.Sign(e.claimsWith(n, func(c jwt.MapClaims) { c["https://purl.imsglobal.org/spec/lti/claim/deployment_id"] = "deploy-9" }))
		}, nil},
		{"wrong version", "version", func(n string) string {
			return e.plat.Sign(e.claimsWith(n, func(c jwt.MapClaims) { c["https://purl.imsglobal.org/spec/lti/claim/version"] = "1.1" }))
		}, nil},
		{"unknown message type", "message_type", func(n string) string {
			return e.plat.Sign(e.claimsWith(n, func(c jwt.MapClaims) {
				c["https://purl.imsglobal.org/spec/lti/claim/message_type"] = "LtiSubmissionReviewRequest"
			}))
		}, nil},
		{"nonce of another login", "nonce", func(n string) string {
			return e.plat.Sign(e.claimsWith("not-"+n, func(jwt.MapClaims) {}))
		}, nil},
		{"unknown issuer", "iss", func(n string) string {
			return e.plat.Sign(e.claimsWith(n, func(c jwt.MapClaims) { c["iss"] = "https://elsewhere.example" }))
		}, nil},
		{"missing state", "state", func(n string) string { return e.plat.Sign(e.claimsWith(n, func(jwt.MapClaims) {})) },
			func(string) string { return "" }},
		{"unknown state", "state", func(n string) string { return e.plat.Sign(e.claimsWith(n, func(jwt.MapClaims) {})) },
			func(s string) string { return s + "x" }},
		{"not a JWT", "id_token", func(string) string { return "not.a.jwt" }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPerson(t, e.url)
			state, nonce := e.login(p)
			if tc.state != nil {
				state = tc.state(state)
			}
			a := e.launch(p, tc.token(nonce), state)
			if f := refusedCheck(a); a.status != http.StatusUnauthorized || f != tc.field {
				t.Errorf("%s: %d naming %q (%.300s), want 401 naming %q", tc.name, a.status, f, a.body, tc.field)
			}
			if a.header.Get("Set-Cookie") != "" {
				t.Errorf("%s: a refused launch set cookies: %v", tc.name, a.header.Values("Set-Cookie"))
			}
		})
	}
	if classes, learners := e.counts(); classes != 0 || learners != 0 {
		t.Errorf("refused launches created %d classes and %d learners, want none", classes, learners)
	}

	t.Run("replayed nonce", func(t *testing.T) {
		p := newPerson(t, e.url)
		state, nonce := e.login(p)
		tok := e.plat.Sign(e.claimsWith(nonce, func(jwt.MapClaims) {}))
		wantStatus(t, e.launch(p, tok, state), http.StatusSeeOther, "first launch")
		a := e.launch(p, tok, state)
		if a.status != http.StatusUnauthorized || refusedCheck(a) != "nonce" {
			t.Errorf("replayed launch: %d %s, want 401 naming the nonce", a.status, a.body)
		}
	})
}

func TestLTIPlatformKeyRotation(t *testing.T) {
	e := startLTI(t, "sqlite")
	e.launchAs(newPerson(t, e.url), ltitest.Learner, "link-1", "", "")
	reads := e.plat.JWKSReads()
	e.launchAs(newPerson(t, e.url), ltitest.Learner, "link-1", "", "")
	if e.plat.JWKSReads() != reads {
		t.Errorf("a second launch read the platform's JWKS again (%d reads, was %d): it is cached", e.plat.JWKSReads(), reads)
	}
	e.plat.RotateKey()
	// The new kid is unknown to the cache: the tool reads the JWKS again
	// and the launch goes through.
	e.launchAs(newPerson(t, e.url), ltitest.Learner, "link-1", "", "")
	if e.plat.JWKSReads() != reads+1 {
		t.Errorf("after the platform's rotation: %d JWKS reads, want %d", e.plat.JWKSReads(), reads+1)
	}
}

// checkRight answers outlive-lease as p, right at the first try (a
// score of 1): worked out from p's own numbers in the prompt, since a
// class learner's variant is kept on the server.
func checkRight(t *testing.T, p *person) {
	t.Helper()
	prompt := getExercise(t, p, "outlive-lease", 0).PromptText
	m := regexp.MustCompile(`slowest (\d+)%[\s\S]*?([\d,]+) runs`).FindStringSubmatch(prompt)
	if m == nil {
		t.Fatalf("outlive-lease's prompt %q", prompt)
	}
	pct, _ := strconv.Atoi(m[1])
	runs, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
	var res struct {
		Correct bool `json:"correct"`
	}
	a := p.postJSON("/api/exercises/outlive-lease/check", `{"answer":"`+strconv.Itoa(runs*pct/100)+`"}`)
	wantStatus(t, a, http.StatusOK, "right answer")
	a.decode(t, &res)
	if !res.Correct {
		t.Fatalf("the right answer was marked wrong: %s", a.body)
	}
}

func TestLTIGradePassback(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		ctx := context.Background()
		ada := newPerson(t, e.url)
		lineItem := e.plat.LineItem("7")
		e.launchAs(ada, ltitest.Learner, "link-ex", "exercise:outlive-lease", lineItem)
		checkRight(t, ada)
		if n := len(e.plat.Scores()); n != 0 {
			t.Fatalf("the answer sent %d scores itself: it must only queue them", n)
		}
		sent, err := e.tool.Deliver(ctx)
		if err != nil || sent != 1 {
			t.Fatalf("Deliver = %d, %v; want 1 score sent", sent, err)
		}
		got := e.plat.Scores()
		if len(got) != 1 {
			t.Fatalf("platform got %d scores, want 1", len(got))
		}
		s := got[0]
		if s.LineItem != lineItem || s.UserID != ltitest.Learner.Sub || s.ScoreGiven != 1 || s.ScoreMaximum != 1 ||
			s.Activity != "Completed" || s.Grading != "FullyGraded" || s.ContentType != "application/vnd.ims.lis.v1.score+json" {
			t.Errorf("score = %+v", s)
		}
		if _, err := time.Parse(time.RFC3339, s.Timestamp); err != nil {
			t.Errorf("timestamp %q: %v", s.Timestamp, err)
		}
		if toks := e.plat.Tokens(); len(toks) != 1 || toks[0] != "https://purl.imsglobal.org/spec/lti-ags/scope/score" {
			t.Errorf("tokens issued for scopes %q, want one for the score scope", toks)
		}
		// The same best score again is not sent again.
		checkRight(t, ada)
		if sent, _ := e.tool.Deliver(ctx); sent != 0 {
			t.Errorf("a repeat of the best score sent %d scores, want none", sent)
		}
	})
}

func TestLTIScoreQueueRetriesAndSurvivesRestart(t *testing.T) {
	e := startLTI(t, "sqlite")
	ctx := context.Background()
	ada := newPerson(t, e.url)
	e.launchAs(ada, ltitest.Learner, "link-ex", "exercise:outlive-lease", e.plat.LineItem("7"))
	e.plat.FailScores(2)
	checkRight(t, ada)
	if sent, err := e.tool.Deliver(ctx); sent != 0 || err != nil {
		t.Fatalf("first try against a failing platform: %d sent, %v", sent, err)
	}
	e.clock.Advance(29 * time.Second)
	if sent, _ := e.tool.Deliver(ctx); sent != 0 || len(e.plat.Scores()) != 0 {
		t.Fatalf("tried again before the backoff of 30s ended")
	}
	e.clock.Advance(time.Second)
	if sent, _ := e.tool.Deliver(ctx); sent != 0 {
		t.Fatalf("second try should meet the second failure")
	}
	jobs, err := e.lst.LTIScoreJobs(ctx, 10)
	if err != nil || len(jobs) != 1 || jobs[0].Tries != 2 || !strings.Contains(jobs[0].LastError, "503") || !jobs[0].NextAt.Equal(e.clock.Now().Add(time.Minute)) {
		t.Fatalf("queue after two failures = %+v, %v; want 2 tries, the 503, and the next try a minute on", jobs, err)
	}
	// A restart: a new tool on the same database sends it.
	e.tool.Close()
	tool2 := newTool(t, e)
	e.clock.Advance(time.Minute)
	if sent, err := tool2.Deliver(ctx); sent != 1 || err != nil {
		t.Fatalf("after the restart: %d sent, %v; want the queued score sent", sent, err)
	}
	if n := len(e.plat.Scores()); n != 1 {
		t.Errorf("platform has %d scores, want 1", n)
	}
}

func TestLTIDeepLinking(t *testing.T) {
	e := startLTI(t, "sqlite")
	grace := newPerson(t, e.url)
	state, nonce := e.login(grace)
	a := e.launch(grace, e.plat.Sign(e.plat.DeepLinkingClaims(ltitest.Teacher, nonce)), state)
	wantStatus(t, a, http.StatusSeeOther, "deep linking launch")
	pick := a.header.Get("Location")
	if !strings.HasPrefix(pick, "/lti/pick/") {
		t.Fatalf("deep linking lands on %q, want the picker", pick)
	}
	page := grace.get(pick)
	wantStatus(t, page, http.StatusOK, "picker")
	for _, want := range []string{`value="exercise:outlive-lease"`, `value="lesson:leases"`, `value="preset:`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("picker lacks %s", want)
		}
	}
	a = grace.postForm(pick, url.Values{"target": {"exercise:outlive-lease", "lesson:leases"}})
	wantStatus(t, a, http.StatusOK, "picking")
	if csp := a.header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' "+e.plat.Server.URL) {
		t.Errorf("the answer page's policy does not let its form post to the platform: %s", csp)
	}
	m := regexp.MustCompile(`action="([^"]+)"[^>]*>\s*<input type="hidden" name="JWT" value="([^"]+)"`).FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("no form posting the JWT back: %s", a.body)
	}
	res, err := http.PostForm(m[1], url.Values{"JWT": {m[2]}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the platform refused the deep linking answer: %d", res.StatusCode)
	}
	ans := e.plat.DeepLinkAnswers()
	if len(ans) != 1 {
		t.Fatalf("platform got %d answers", len(ans))
	}
	c := ans[0]
	if c["https://purl.imsglobal.org/spec/lti/claim/message_type"] != "LtiDeepLinkingResponse" ||
		c["https://purl.imsglobal.org/spec/lti-dl/claim/data"] != "opaque-42" ||
		c["https://purl.imsglobal.org/spec/lti/claim/deployment_id"] != e.plat.DeploymentID {
		t.Errorf("answer claims = %v", c)
	}
	items, _ := json.Marshal(c["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"])
	var ci []struct {
		Type, Title, URL string
		Custom           map[string]string
		LineItem         *struct{ ScoreMaximum float64 } `json:"lineItem"`
	}
	json.Unmarshal(items, &ci)
	if len(ci) != 2 || ci[0].Type != "ltiResourceLink" || ci[0].Custom["playground_target"] != "exercise:outlive-lease" ||
		ci[0].LineItem == nil || ci[0].LineItem.ScoreMaximum != 1 || !strings.HasPrefix(ci[0].URL, e.url+"/lessons/") ||
		ci[1].LineItem == nil || ci[1].LineItem.ScoreMaximum != lessonPoints(t, "leases") {
		t.Errorf("content items = %s", items)
	}

	// A learner may not pick content.
	ada := newPerson(t, e.url)
	state, nonce = e.login(ada)
	a = e.launch(ada, e.plat.Sign(e.plat.DeepLinkingClaims(ltitest.Learner, nonce)), state)
	wantStatus(t, a, http.StatusForbidden, "a learner's deep linking launch")
	// Picks are bounded and must exist.
	a = grace.postForm(pick, url.Values{"target": {"exercise:no-such"}})
	if a.status != http.StatusBadRequest || !strings.Contains(a.body, "target: &#34;exercise:no-such&#34; is not") {
		t.Errorf("an unknown pick: %d %s", a.status, a.body)
	}
	wantStatus(t, grace.get("/lti/pick/unknown-token"), http.StatusNotFound, "an unknown picker")
}

func TestLTIRoster(t *testing.T) {
	e := startLTI(t, "sqlite")
	ada := newPerson(t, e.url)
	e.launchAs(ada, ltitest.Learner, "link-1", "", "")
	grace := newPerson(t, e.url)
	a := e.launchAs(grace, ltitest.Teacher, "link-1", "", "")
	code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")
	bob := ltitest.User{Sub: "user-bob", Name: "Bob", Email: "bob@uni.example.edu"}
	e.plat.SetMembers(ltitest.Learner, ltitest.Teacher, bob)
	r := grace.get("/api/classes/" + code + "/lti/roster")
	wantStatus(t, r, http.StatusOK, "roster")
	var got struct {
		Members []struct {
			UserID    string `json:"user_id"`
			Name      string
			LearnerID int64 `json:"learner_id"`
		}
	}
	r.decode(t, &got)
	if len(got.Members) != 3 || got.Members[0].UserID != "user-ada" || got.Members[0].LearnerID == 0 || got.Members[2].LearnerID != 0 {
		t.Errorf("roster = %+v, want three members, Ada joined and Bob not", got.Members)
	}
	dash := grace.get("/class/" + code + "/teacher")
	if !strings.Contains(dash.body, `href="/class/`+code+`/roster" data-testid="roster-link"`) {
		t.Errorf("the dashboard of a course's class has no roster link")
	}
	page := grace.get("/class/" + code + "/roster")
	wantStatus(t, page, http.StatusOK, "roster page")
	if !strings.Contains(page.body, "1 of 3 members have opened") || strings.Count(page.body, `data-testid="roster-member"`) != 3 {
		t.Errorf("roster page: %.2000s", page.body)
	}
	wantStatus(t, ada.get("/api/classes/"+code+"/lti/roster"), http.StatusUnauthorized, "a learner's roster request")
	// After a new join code, the roster's old address leads to its new one
	// (a bookmark made before keeps working, as the dashboard's does).
	var rotated struct{ Code string }
	teacher(t, e.url, grace.cookie(web.TeacherCookie)).postJSON("/api/classes/"+code+"/code", `{}`).decode(t, &rotated)
	if rotated.Code == "" || rotated.Code == code {
		t.Fatalf("a new join code: %+v", rotated)
	}
	old := grace.get("/class/" + code + "/roster")
	wantStatus(t, old, http.StatusSeeOther, "the roster under the old code")
	if loc := old.header.Get("Location"); loc != "/class/"+rotated.Code+"/roster" {
		t.Errorf("the roster's old address leads to %q, want /class/%s/roster", loc, rotated.Code)
	}
	nokey := newPerson(t, e.url).get("/class/" + code + "/roster")
	wantStatus(t, nokey, http.StatusUnauthorized, "the old address without a key")
	if !strings.Contains(nokey.body, "<title>Class ·") {
		t.Errorf("the roster's error page is not titled Class: %.200s", nokey.body)
	}
	// A class made by hand came from no course.
	hand := createClass(t, e.url, "By hand")
	wantStatus(t, teacher(t, e.url, hand.TeacherKey).get("/api/classes/"+hand.Code+"/lti/roster"), http.StatusNotFound, "roster of a class from no course")
	if strings.Contains(teacher(t, e.url, hand.TeacherKey).get("/class/"+hand.Code+"/teacher").body, "roster-link") {
		t.Errorf("a class from no course links to a roster")
	}
}

func TestLTIFramingAndKeys(t *testing.T) {
	e := startLTI(t, "sqlite")
	p := newPerson(t, e.url)
	csp := p.get("/").header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors "+e.plat.Server.URL+";") {
		t.Errorf("CSP %q does not let the registered platform frame the pages", csp)
	}
	ts, _ := startServer(t, web.Config{})
	if csp := newPerson(t, ts.URL).get("/").header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("a server without LTI lets pages be framed: %s", csp)
	}

	keys := func() []string {
		var set struct {
			Keys []struct{ KID, Kty, Alg string }
		}
		p.get("/lti/jwks").decode(t, &set)
		var out []string
		for _, k := range set.Keys {
			if k.Kty != "RSA" || k.Alg != "RS256" {
				t.Errorf("key %+v", k)
			}
			out = append(out, k.KID)
		}
		return out
	}
	first := keys()
	if len(first) != 1 {
		t.Fatalf("JWKS has %d keys, want 1", len(first))
	}
	if _, err := rotateKey(e); err != nil {
		t.Fatal(err)
	}
	both := keys()
	if len(both) != 2 || both[1] != first[0] {
		t.Errorf("after rotation: %v, want the new key then the old %s", both, first[0])
	}
	e.clock.Advance(25 * time.Hour)
	e.tool.ForgetKeys()
	if last := keys(); len(last) != 1 || last[0] != both[0] {
		t.Errorf("a day after rotation: %v, want only the new key", last)
	}
}

func TestLTIBadInput(t *testing.T) {
	e := startLTI(t, "sqlite")
	p := newPerson(t, e.url)
	for _, tc := range []struct {
		query, field string
		status       int
	}{
		{"login_hint=x&target_link_uri=y", "iss", 400},
		{"iss=" + url.QueryEscape(e.plat.Issuer()) + "&target_link_uri=y", "login_hint", 400},
		{"iss=" + url.QueryEscape(e.plat.Issuer()) + "&target_link_uri=y&login_hint=" + strings.Repeat("h", 5000), "login_hint", 400},
		{"iss=https%3A%2F%2Fnobody.example&target_link_uri=y&login_hint=h", "iss", 400},
		{"iss=" + url.QueryEscape(e.plat.Issuer()) + "&target_link_uri=y&login_hint=h&lti_deployment_id=deploy-9", "lti_deployment_id", 400},
	} {
		a := p.get("/lti/login?" + tc.query)
		if a.status != tc.status || refusedCheck(a) != tc.field {
			t.Errorf("login ?%.60s: %d %s, want %d naming %s", tc.query, a.status, a.body, tc.status, tc.field)
		}
	}
	a := e.launch(p, strings.Repeat("a", 70<<10), "s")
	if a.status != http.StatusRequestEntityTooLarge || refusedCheck(a) != "id_token" {
		t.Errorf("a huge id_token: %d %s", a.status, a.body)
	}
	a = p.postForm("/lti/launch", url.Values{"id_token": {strings.Repeat("a", 200<<10)}})
	if a.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a huge form: %d %.200s", a.status, a.body)
	}
}

// lessonPoints is what a lesson's exercises are worth together, open
// answers included (the teacher's score counts as a checker's does).
func lessonPoints(t *testing.T, slug string) float64 {
	cat := catalog(t)
	l, err := cat.Lesson(slug)
	if err != nil {
		t.Fatal(err)
	}
	n := 0.0
	for _, ex := range cat.LessonExercises(l) {
		n += ex.Points()
	}
	return n
}

// TestLTILessonPassback: a link to a whole lesson is scored by the
// points the learner has earned on the lesson's exercises.
func TestLTILessonPassback(t *testing.T) {
	e := startLTI(t, "sqlite")
	ada := newPerson(t, e.url)
	e.launchAs(ada, ltitest.Learner, "link-lesson", "lesson:leases", e.plat.LineItem("8"))
	checkRight(t, ada)
	if sent, err := e.tool.Deliver(context.Background()); sent != 1 || err != nil {
		t.Fatalf("Deliver = %d, %v", sent, err)
	}
	s := e.plat.Scores()
	if len(s) != 1 || s[0].LineItem != e.plat.LineItem("8") || s[0].ScoreGiven != 1 || s[0].ScoreMaximum != lessonPoints(t, "leases") {
		t.Errorf("lesson score = %+v, want 1 of the lesson's %v points", s, lessonPoints(t, "leases"))
	}
}

// TestLTIRosterIsBounded: a course's roster is read within bounds and
// says where it stopped. A course of 5,001 members, in pages of 300,
// lists the first 5,000 and says so; 25 pages of one member are read to
// the 20th, saying so; a first page over 4 MiB is a 503 naming the
// limit (before, it was cut and answered "unexpected EOF"), and a later
// one ends the list there. A member's name is kept to 200 characters.
func TestLTIRosterIsBounded(t *testing.T) {
	e := startLTI(t, "sqlite")
	ada := newPerson(t, e.url)
	e.launchAs(ada, ltitest.Learner, "link-1", "", "")
	grace := newPerson(t, e.url)
	a := e.launchAs(grace, ltitest.Teacher, "link-1", "", "")
	code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")
	course := func(n int, name func(i int) string) []ltitest.User {
		us := []ltitest.User{ltitest.Learner}
		for i := 1; i < n; i++ {
			us = append(us, ltitest.User{Sub: fmt.Sprint("user-", i), Name: name(i)})
		}
		return us
	}
	plain := func(i int) string { return fmt.Sprint("Learner ", i) }
	type roster struct {
		Members []struct{ Name string }
		Short   string
	}
	read := func(what string) roster {
		t.Helper()
		var r roster
		a := grace.get("/api/classes/" + code + "/lti/roster")
		wantStatus(t, a, http.StatusOK, what)
		a.decode(t, &r)
		return r
	}

	e.plat.SetMembers(course(5001, plain)...)
	e.plat.SetMemberPageSize(300)
	if r := read("a course of 5,001"); len(r.Members) != 5000 || !strings.Contains(r.Short, "more than 5000 members") {
		t.Errorf("a course of 5,001: %d members, short %q", len(r.Members), r.Short)
	}
	page := grace.get("/class/" + code + "/roster")
	if got := text(oneByTestID(t, parseHTML(t, page.body), "roster-short")); !strings.Contains(got, "Not the whole roster: the course has more than 5000 members") {
		t.Errorf("the roster page's note: %q", got)
	}

	e.plat.SetMembers(course(25, plain)...)
	e.plat.SetMemberPageSize(1)
	if r := read("25 pages"); len(r.Members) != 20 || !strings.Contains(r.Short, "more than 20 pages") {
		t.Errorf("25 pages of one: %d members, short %q", len(r.Members), r.Short)
	}

	// Three members, the third named with 5 MiB: its page is too large.
	huge := func(i int) string {
		if i == 2 {
			return strings.Repeat("x", 5<<20)
		}
		return plain(i)
	}
	e.plat.SetMembers(course(3, huge)...)
	e.plat.SetMemberPageSize(2)
	if r := read("a huge second page"); len(r.Members) != 2 || !strings.Contains(r.Short, "page 2 of the platform's roster is larger than the 4 MiB") {
		t.Errorf("a huge second page: %d members, short %q", len(r.Members), r.Short)
	}
	e.plat.SetMemberPageSize(0)
	a = grace.get("/api/classes/" + code + "/lti/roster")
	if a.status != http.StatusServiceUnavailable || !strings.Contains(a.body, "larger than the 4 MiB the tool reads") {
		t.Errorf("a huge first page: %d %s", a.status, a.body)
	}

	long := func(i int) string { return strings.Repeat("é", 300) }
	e.plat.SetMembers(course(2, long)...)
	if r := read("a long name"); len(r.Members) != 2 || utf8.RuneCountInString(r.Members[1].Name) != 200 {
		t.Errorf("a 300-character name kept as %d characters", utf8.RuneCountInString(r.Members[1].Name))
	}
}
