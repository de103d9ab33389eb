package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/store"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// joinedLearner opens a real SQLite store, creates a class and joins it,
// the way the join endpoint would.
func joinedLearner(t *testing.T) (classroom.Store, *classroom.NewClass, *classroom.Session) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	nc, err := st.CreateClass(ctx, "Distributed systems, week 5")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := st.Join(ctx, nc.Class.Code, "Asha")
	if err != nil {
		t.Fatal(err)
	}
	return st, nc, sess
}

func TestCheckRecordsAJoinedLearnersAttempt(t *testing.T) {
	st, nc, sess := joinedLearner(t)
	ctx := context.Background()
	ts, _ := startServer(t, web.Config{Classroom: st})
	cookie := &http.Cookie{Name: web.LearnerCookie, Value: sess.Token}
	mine := lessons.ClassVariant(sess.Class.VariantSecret, sess.Learner.VariantKey())
	if !lessons.IsClassVariant(mine) {
		t.Fatalf("a class learner's variant %d is not in the class space", mine)
	}

	// The learner's page has their own numbers and never their variant.
	page := mustGetCookie(t, ts.URL+"/lessons/leases", cookie)
	doc := parseHTML(t, page)
	for _, f := range byTestID(doc, "exercise") {
		if v, _ := attr(f, "data-variant"); v != "0" {
			t.Errorf("form variant %s, want 0: the learner's own stays on the server", v)
		}
	}
	if strings.Contains(page, fmt.Sprint(mine)) {
		t.Errorf("the page holds the learner's variant %d", mine)
	}
	oneByTestID(t, doc, "class-note")

	// The body says variant 0; the learner's own variant is graded.
	status, res := check(t, ts.URL, "outlive-lease", `{"answer":"50","variant":0}`, cookie)
	if status != 200 {
		t.Fatalf("status %d: %v", status, res)
	}
	if res["variant"] != float64(0) || res["correct"] != (rightAnswer(t, "outlive-lease", mine) == "50") {
		t.Errorf("graded %v: want the learner's own numbers, the variant not shown", res)
	}
	// A format error is answered but not stored.
	if status, res := check(t, ts.URL, "outlive-lease", `{"answer":"forty"}`, cookie); status != 200 || res["format_error"] == "" || res["graded"] != false {
		t.Fatalf("format error: %d %v", status, res)
	}
	// A wrong answer on the second graded try gets both hints, counted by
	// the store whatever the body says.
	status, res = check(t, ts.URL, "outlive-lease", `{"answer":"1","tries":0}`, cookie)
	if h, _ := res["hints"].([]any); status != 200 || res["correct"] != false || len(h) != 2 {
		t.Errorf("second graded try: %d, hints %v, want 2", status, res["hints"])
	}
	// The right answer for the learner's numbers.
	want := rightAnswer(t, "outlive-lease", mine)
	if status, res := check(t, ts.URL, "outlive-lease", fmt.Sprintf(`{"answer":%q}`, want), cookie); status != 200 || res["correct"] != true {
		t.Fatalf("right answer %q: %d %v", want, status, res)
	}

	prog, err := st.LearnerProgress(ctx, nc.Class.Code, classroom.Credentials{Session: sess.Token}, sess.Learner.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(prog) != 1 {
		t.Fatalf("progress %+v, want one exercise", prog)
	}
	p := prog[0]
	// Three graded attempts (the first graded on the learner's numbers,
	// whatever it said), the format error not counted.
	const wantTries = 3
	if p.Exercise != "outlive-lease" || p.Tries != wantTries || !p.Correct || p.LastVariant != mine {
		t.Errorf("progress %+v: want %d tries (the format error not counted), correct, variant %d", p, wantTries, mine)
	}
	d, err := st.Dashboard(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprintf("%+v", d), "outlive-lease") {
		t.Errorf("the teacher's dashboard does not show the attempt: %+v", d)
	}
}

func TestCheckWithoutAStoreOrCookieRecordsNothing(t *testing.T) {
	st, nc, sess := joinedLearner(t)
	ts, _ := startServer(t, web.Config{Classroom: st})
	// No cookie: the body's variant, nothing stored.
	status, res := check(t, ts.URL, "outlive-lease", `{"answer":"50","variant":0}`)
	if status != 200 || res["correct"] != true || res["variant"] != float64(0) {
		t.Fatalf("anonymous check: %d %v", status, res)
	}
	prog, err := st.LearnerProgress(context.Background(), nc.Class.Code, classroom.Credentials{Session: sess.Token}, sess.Learner.ID)
	if err != nil || len(prog) != 0 {
		t.Errorf("progress %+v (%v), want none", prog, err)
	}
	// A cookie but no store: graded as anyone's.
	ts2, _ := startServer(t, web.Config{})
	status, res = check(t, ts2.URL, "outlive-lease", `{"answer":"50","variant":0}`, &http.Cookie{Name: web.LearnerCookie, Value: sess.Token})
	if status != 200 || res["variant"] != float64(0) {
		t.Errorf("no store: %d %v", status, res)
	}
	// A cookie the store does not know: 401, with a way out.
	status, res = check(t, ts.URL, "outlive-lease", `{"answer":"50"}`, &http.Cookie{Name: web.LearnerCookie, Value: "not-a-session"})
	if msg, _ := res["error"].(string); status != http.StatusUnauthorized || !strings.Contains(msg, "join the class again") {
		t.Errorf("stale cookie: %d %v", status, res)
	}
}

// TestRemovedLearnerIsToldInOneSentence: a learner the teacher removed
// who checks an answer, or opens their class, reads one plain sentence
// saying what happened and what to do, not one message wrapped in another.
func TestRemovedLearnerIsToldInOneSentence(t *testing.T) {
	st, nc, sess := joinedLearner(t)
	ts, _ := startServer(t, web.Config{Classroom: st})
	if err := st.RemoveLearner(context.Background(), nc.Class.Code, nc.TeacherKey, sess.Learner.ID); err != nil {
		t.Fatal(err)
	}
	cookie := &http.Cookie{Name: web.LearnerCookie, Value: sess.Token}
	status, res := check(t, ts.URL, "outlive-lease", `{"answer":"50"}`, cookie)
	const want = "your class session has ended (you went on in another browser, or the teacher removed you), " +
		"so this answer was not recorded: continue here with a device code from that browser to keep your progress, or join the class again"
	if status != http.StatusUnauthorized || res["error"] != want {
		t.Errorf("removed learner's check: %d %q\nwant 401 %q", status, res["error"], want)
	}

	req, err := http.NewRequest(http.MethodGet, ts.URL+"/api/me", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(cookie)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var me map[string]any
	if err := json.NewDecoder(r.Body).Decode(&me); err != nil {
		t.Fatal(err)
	}
	const wantMe = "your class session has ended (you went on in another browser, or the teacher removed you): continue here with a device code from that browser, or join the class again with its code"
	if r.StatusCode != http.StatusUnauthorized || me["error"] != wantMe {
		t.Errorf("removed learner's /api/me: %d %q\nwant 401 %q", r.StatusCode, me["error"], wantMe)
	}
}

// rightAnswer reads the expected count of an outlive-lease variant from
// its worked solution ("**50 runs**").
func rightAnswer(t *testing.T, id string, variant int) string {
	t.Helper()
	ex, err := catalog(t).Exercise(id)
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := ex.Solution(variant)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\*\*([\d,.]+) runs\*\*`).FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("no answer in the solution of %s variant %d: %s", id, variant, md)
	}
	return m[1]
}

func mustGetCookie(t *testing.T, url string, c *http.Cookie) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.AddCookie(c)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, res.StatusCode)
	}
	return string(body)
}
