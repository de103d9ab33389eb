package web_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
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

	dash := openLifecycleStream(t, ts.URL, c.Code, c.TeacherKey)
	me := mustOpen(t, ada)
	if got := dash.next(t, "the dashboard's first event"); got != classroom.ClassOpen {
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
	if got := dash.next(t, "the dashboard after the class expired"); got != classroom.ClassExpired {
		t.Errorf("the dashboard's next event says the class is %q, want %q", got, classroom.ClassExpired)
	}
	if got := me.next(t, "the learner's page after the class expired").Class.Status; got != classroom.ClassExpired {
		t.Errorf("the learner's next event says the class is %q, want %q", got, classroom.ClassExpired)
	}
}

// lifecycleStream is a dashboard stream read for its class's status.
type lifecycleStream struct {
	statuses chan string
	ended    chan struct{}
}

func openLifecycleStream(t *testing.T, base, code, key string) *lifecycleStream {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/classes/"+code+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the dashboard stream: %s", res.Status)
	}
	t.Cleanup(func() { res.Body.Close() })
	s := &lifecycleStream{statuses: make(chan string, 100), ended: make(chan struct{})}
	go func() {
		defer close(s.ended)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var v struct {
				Class struct {
					Lifecycle struct{ Status string } `json:"lifecycle"`
				} `json:"class"`
			}
			if json.Unmarshal([]byte(data), &v) == nil {
				s.statuses <- v.Class.Lifecycle.Status
			}
		}
	}()
	return s
}

// next waits for the stream's next event; the deadline is only there so
// that a broken stream fails rather than hangs.
func (s *lifecycleStream) next(t *testing.T, what string) string {
	t.Helper()
	select {
	case st := <-s.statuses:
		return st
	case <-s.ended:
		t.Fatalf("%s: the stream ended", what)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no event in 30 s", what)
	}
	return ""
}
