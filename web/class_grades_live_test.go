package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/postgres"
	"github.com/leaselab/playground/classroom/storetest"
	"github.com/leaselab/playground/web"
)

// liveGrades is a "grades" event of the dashboard's stream.
type liveGrades struct {
	gradesBody
	RetryProblemWords string `json:"retry_problem_words"`
	// Unread is the status line's words of a read that failed, in place
	// of a panel.
	Unread string `json:"unread"`
}

// gradesStream is a teacher's open dashboard stream, read for its
// "grades" events.
type gradesStream struct {
	t      *testing.T
	events chan liveGrades
}

// openGradesStream opens GET /api/classes/{code}/events with the teacher
// key and reads it on a goroutine, handing on each grades event.
func openGradesStream(t *testing.T, base, code, key string) *gradesStream {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/classes/"+code+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the dashboard's stream: %s", res.Status)
	}
	s := &gradesStream{t: t, events: make(chan liveGrades, 64)}
	go func() {
		defer close(s.events)
		lines := bufio.NewScanner(res.Body)
		lines.Buffer(make([]byte, 1<<20), 1<<20)
		event := ""
		for lines.Scan() {
			line := lines.Text()
			if name, ok := strings.CutPrefix(line, "event: "); ok {
				event = name
			} else if data, ok := strings.CutPrefix(line, "data: "); ok && event == "grades" {
				var g liveGrades
				if err := json.Unmarshal([]byte(data), &g); err != nil {
					t.Errorf("a grades event %q: %v", data, err)
					return
				}
				s.events <- g
			}
		}
	}()
	return s
}

// next is the stream's next grades event. The wait is only a bound on a
// broken test: the event is due at once.
func (s *gradesStream) next(what string) liveGrades {
	s.t.Helper()
	select {
	case g, ok := <-s.events:
		if !ok {
			s.t.Fatalf("%s: the stream ended", what)
		}
		return g
	case <-time.After(30 * time.Second):
		s.t.Fatalf("%s: no grades event on the open dashboard", what)
	}
	return liveGrades{}
}

// TestGradesSentReachTheOpenDashboard: a teacher's open dashboard hears
// how the class's grades stand as the queue's worker tries them, with no
// read of GET .../lti/grades: the score queued, its first try failing
// (waiting, why in plain words), then sent once the course is back.
func TestGradesSentReachTheOpenDashboard(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		c := e.gradedCourse()
		ada := c.ada

		s := openGradesStream(t, e.url, c.code, c.grace.cookie(web.TeacherCookie))
		if g := s.next("the panel on connect"); g.State != "sent" || g.SentText != "No score sent yet" || g.Course != "Distributed Systems 101" {
			t.Fatalf("the panel on connect: %+v", g)
		}
		checkRight(t, ada)
		if g := s.next("Ada's score queued"); g.State != "waiting" || g.WaitingText != "1 score waiting, next try now" {
			t.Errorf("after Ada's score was queued the panel says %+v", g)
		}
		e.plat.FailScores(1)
		e.deliver()
		g := s.next("the score's first try failed")
		if g.State != "waiting" || g.WaitingText != "1 score waiting, next try in under a minute" ||
			g.RetryProblemWords != "Last try: the course's gradebook was not working (it answered 503 Service Unavailable)." {
			t.Errorf("after a failed try the panel says %+v", g)
		}
		e.clock.Advance(time.Minute)
		e.deliver()
		if g := s.next("the score sent"); g.State != "sent" || g.SentText != "1 score sent" || g.WaitingText != "" {
			t.Errorf("after the score was sent the panel says %+v", g)
		}
	})
}

// TestGradesSentReachADashboardOnAnotherReplica: two servers on one
// PostgreSQL database (two replicas behind a balancer); the score the
// worker of one sends reaches the teacher's dashboard open on the other,
// through the store's LISTEN/NOTIFY. Runs when PLAYGROUND_TEST_POSTGRES
// names a database.
func TestGradesSentReachADashboardOnAnotherReplica(t *testing.T) {
	if os.Getenv(envPostgres) == "" {
		t.Skip("set " + envPostgres + " to run the replicas on PostgreSQL")
	}
	ctx := context.Background()
	clock := newStillClock()
	addr := storetest.PostgresSchema(t, "ltitest_")
	replica := func() *ltiEnv {
		st, err := postgres.Open(ctx, addr, classroom.Options{Now: clock.Now, PurgeEvery: -1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return serveLTI(t, st, st, clock.Now, nil, serveHTTP(t))
	}
	one, two := replica(), replica()
	one.addPlatform(clock.Now)
	c := one.gradedCourse()
	checkRight(t, c.ada)

	// The balancer sends the teacher's dashboard to the other replica.
	s := openGradesStream(t, two.url, c.code, c.grace.cookie(web.TeacherCookie))
	if g := s.next("the panel on connect"); g.State != "waiting" {
		t.Fatalf("the panel on connect: %+v; want Ada's score waiting", g)
	}
	one.deliver()
	if g := s.next("the score sent by the other replica"); g.State != "sent" || g.SentText != "1 score sent" {
		t.Errorf("after the first replica sent the score, the dashboard on the second says %+v", g)
	}
}
