package web_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestLivePagesSayWhenTheClassExpires: a class that expires for want of
// use changes no row, so no write announces it; the dashboards and the
// learners' pages that are open then are told at once all the same, by
// the class's clock, without a reload.
func TestLivePagesSayWhenTheClassExpires(t *testing.T) {
	clk := newTestClock()
	st := openSQLiteWith(t, classroom.Options{Now: clk.Now, Retention: 24 * time.Hour, Grace: 24 * time.Hour, PurgeEvery: -1})
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now, After: clk.After}})
	c := createClass(t, ts.URL, "Left open")
	ada, _ := join(t, ts.URL, c.Code, "Ada")

	dash, res := openStream(t, http.DefaultClient, ts.URL, c.Code, c.TeacherKey)
	if dash == nil {
		t.Fatalf("the dashboard stream: %s", res.Status)
	}
	me := mustOpen(t, ada)
	waitAll(t, []*stream{dash}, "the dashboard's first event", func(s *stream) bool { return s.events.Load() >= 1 })
	if got := dash.status.Load(); got != classroom.ClassOpen {
		t.Fatalf("the dashboard's first event says the class is %q", got)
	}
	if got := me.next(t, "the learner's first event").Class.Status; got != classroom.ClassOpen {
		t.Fatalf("the learner's first event says the class is %q", got)
	}
	// Both feeds have set their timers once the first reads are out.
	deadline := time.Now().Add(30 * time.Second)
	for clk.waiting() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d timers set on the class clock after 30 s, want one for each feed", clk.waiting())
		}
		time.Sleep(5 * time.Millisecond)
	}

	clk.Advance(25 * time.Hour) // past the retention, with nobody using the class
	waitAll(t, []*stream{dash}, "the dashboard after the class expired", func(s *stream) bool { return s.events.Load() >= 2 })
	if got := dash.status.Load(); got != classroom.ClassExpired {
		t.Errorf("the dashboard's next event says the class is %q, want %q", got, classroom.ClassExpired)
	}
	if got := me.next(t, "the learner's page after the class expired").Class.Status; got != classroom.ClassExpired {
		t.Errorf("the learner's next event says the class is %q, want %q", got, classroom.ClassExpired)
	}
}
