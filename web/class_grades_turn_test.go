package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/lti"
	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

// TestGradesPanelKeepsTimeWhileAScoreWaits: the open dashboard's panel
// says when a waiting score is tried next, in minutes, and says it again
// as the class's clock moves on, though nothing is written meanwhile:
// "next try in 4 min", a minute later "in 3 min".
func TestGradesPanelKeepsTimeWhileAScoreWaits(t *testing.T) {
	ctx := context.Background()
	clk := newTestClock()
	st, err := sqlite.Open(ctx, t.TempDir(), classroom.Options{Now: clk.Now, PurgeEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &ltiEnv{t: t, st: st, lst: st}
	e.tool = lti.New(lti.Config{Store: st, Now: clk.Now, Lessons: catalog(t)})
	t.Cleanup(e.tool.Close)
	ts, _ := startServer(t, web.Config{Classroom: st, LTI: e.tool, Class: web.ClassConfig{Clock: clk.Now, After: clk.After}})
	e.url = ts.URL
	e.plat = ltitest.New(t, clk.Now)
	e.plat.ToolJWKS = e.url + "/lti/jwks"
	reg, err := lti.CheckPlatform(e.plat.Registration())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddLTIPlatform(ctx, reg); err != nil {
		t.Fatal(err)
	}
	item := e.plat.LineItem("7")
	ada := newPerson(t, e.url)
	e.launchAs(ada, ltitest.Learner, "link-ex", "exercise:outlive-lease", item)
	grace := newPerson(t, e.url)
	a := e.launchAs(grace, ltitest.Teacher, "link-ex", "exercise:outlive-lease", item)
	code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")
	checkRight(t, ada)
	e.plat.FailScores(1000)
	for _, wait := range []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 0} { // four tries fail
		e.deliver()
		clk.Advance(wait)
	}

	s := openGradesStream(t, e.url, code, grace.cookie(web.TeacherCookie))
	if g := s.next("the panel on connect"); g.WaitingText != "1 score waiting, next try in 4 min" {
		t.Fatalf("the panel on connect: %+v; want the next try in 4 min", g)
	}
	// The feed has set its timer on the class clock once the first read
	// is out.
	deadline := time.Now().Add(30 * time.Second)
	for clk.waiting() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the dashboard's feed set no timer on the class clock in 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	clk.Advance(time.Minute)
	if g := s.next("a minute on"); g.WaitingText != "1 score waiting, next try in 3 min" {
		t.Errorf("a minute on, the panel says %+v; want the next try in 3 min", g)
	}
}
