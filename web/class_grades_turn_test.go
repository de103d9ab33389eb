package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
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
	e := serveLTI(t, st, st, clk.Now, func(cfg *web.Config) { cfg.Class.After = clk.After }, serveHTTP(t))
	e.addPlatform(clk.Now)
	c := e.gradedCourse()
	checkRight(t, c.ada)
	e.plat.FailScores(1000)
	for _, wait := range []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 0} { // four tries fail
		e.deliver()
		clk.Advance(wait)
	}

	s := openGradesStream(t, e.url, c.code, c.grace.cookie(web.TeacherCookie))
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
