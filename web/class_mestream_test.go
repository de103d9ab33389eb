package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/postgres"
	"github.com/leaselab/playground/classroom/storetest"
	"github.com/leaselab/playground/web"
)

// meEvent is one "class" event of a learner stream.
type meEvent struct {
	meClass
	PollMS int64 `json:"poll_ms"`
}

// meStream is one open GET /api/me/events, its events read on a
// goroutine.
type meStream struct {
	res    *http.Response
	events chan meEvent
	retry  atomic.Bool   // the stream asked for a reconnection delay
	kept   atomic.Int64  // keep-alive comments received
	ended  chan struct{} // closed when the server ended the stream
}

// openMeStream opens a learner stream with p's cookies (and the extra
// headers), returning the refusal when it is not a 200.
func openMeStream(t *testing.T, p *person, extra ...string) (*meStream, answer) {
	t.Helper()
	req, _ := http.NewRequest("GET", p.base+"/api/me/events", nil)
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	// The person's cookies, without their client's overall timeout: a
	// stream stays open.
	res, err := (&http.Client{Jar: p.c.Jar}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return nil, answer{res.StatusCode, res.Header, string(body)}
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("stream Content-Type %q", ct)
	}
	s := &meStream{res: res, events: make(chan meEvent, 100), ended: make(chan struct{})}
	t.Cleanup(func() { res.Body.Close() })
	go func() {
		defer close(s.ended)
		sc := bufio.NewScanner(res.Body)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "retry: "):
				s.retry.Store(true)
			case strings.HasPrefix(line, ":"):
				s.kept.Add(1)
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "class":
				var e meEvent
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &e); err != nil {
					t.Errorf("class event %q: %v", line, err)
				}
				s.events <- e
			case line == "":
				event = ""
			}
		}
	}()
	return s, answer{}
}

// mustOpen opens a stream that must be accepted.
func mustOpen(t *testing.T, p *person, extra ...string) *meStream {
	t.Helper()
	s, a := openMeStream(t, p, extra...)
	if s == nil {
		t.Fatalf("learner stream refused: %d %s", a.status, a.body)
	}
	return s
}

// next waits for the stream's next class event; the deadline is only
// there so that a broken stream fails rather than hangs.
func (s *meStream) next(t *testing.T, what string) meEvent {
	t.Helper()
	select {
	case e := <-s.events:
		return e
	case <-s.ended:
		t.Fatalf("%s: the stream ended", what)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no event in 30 s", what)
	}
	return meEvent{}
}

// waitEnd waits until the server has ended the stream.
func (s *meStream) waitEnd(t *testing.T, what string) {
	t.Helper()
	select {
	case <-s.ended:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: the stream is still open after 30 s", what)
	}
}

// TestLearnerStreamFollowsTheClass: a learner's stream carries the class
// as they see it on connect, then each push and settings change as the
// very next event, with no poll; a learner of another class gets none of
// it (their next event is their own class's push).
func TestLearnerStreamFollowsTheClass(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Live: web.LearnerLiveConfig{Poll: time.Hour}}})
		cat := catalog(t)
		a, b := createClass(t, ts.URL, "A"), createClass(t, ts.URL, "B")
		ada, _ := join(t, ts.URL, a.Code, "Ada")
		bob, _ := join(t, ts.URL, b.Code, "Bob")

		sa, sb := mustOpen(t, ada), mustOpen(t, bob)
		first := sa.next(t, "the state on connect")
		if first.Class.Scenario != nil || !first.Class.Settings.ShowMe || first.PollMS != time.Hour.Milliseconds() {
			t.Fatalf("state on connect %+v, want no push, show_me on and poll_ms 3600000", first)
		}
		if !sa.retry.Load() {
			t.Error("the stream set no reconnection delay")
		}
		sb.next(t, "B's state on connect")

		owner := teacher(t, ts.URL, a.TeacherKey)
		wantStatus(t, owner.postJSON("/api/classes/"+a.Code+"/push", `{"preset":"`+presetName(t)+`"}`), http.StatusOK, "push a preset")
		if sc := sa.next(t, "the push").Class.Scenario; sc == nil || sc.Kind != "scenario" || !strings.HasPrefix(sc.URL, "/playground?preset=") {
			t.Fatalf("after the push the stream says %+v", sc)
		}
		wantStatus(t, owner.postJSON("/api/classes/"+a.Code+"/settings", `{"show_me":false}`), http.StatusOK, "quiz mode")
		if e := sa.next(t, "the settings"); e.Class.Settings.ShowMe {
			t.Fatalf("after quiz mode the stream says %+v", e.Class.Settings)
		}
		// Answers change nothing a learner's banner shows: no event.
		record(t, st, ada, "outlive-lease", "1", false)

		// B's learner saw none of A's changes: the next event is B's push.
		l := cat.Lessons()[1]
		wantStatus(t, teacher(t, ts.URL, b.TeacherKey).postJSON("/api/classes/"+b.Code+"/push", `{"lesson":"`+l.Slug+`"}`), http.StatusOK, "push in B")
		if sc := sb.next(t, "B's push").Class.Scenario; sc == nil || sc.Kind != "lesson" || sc.URL != "/lessons/"+l.Slug {
			t.Fatalf("B's stream says %+v, want B's lesson", sc)
		}
		// Nor did the answer make one on A's stream: its next is the clear.
		wantStatus(t, owner.postJSON("/api/classes/"+a.Code+"/push", `{}`), http.StatusOK, "clear")
		if e := sa.next(t, "the clear"); e.Class.Scenario != nil {
			t.Fatalf("after the clear the stream says %+v", e.Class.Scenario)
		}
		// /api/me tells a page without a stream how often to poll.
		var me meEvent
		ada.get("/api/me").decode(t, &me)
		if me.PollMS != time.Hour.Milliseconds() {
			t.Errorf("/api/me poll_ms %d", me.PollMS)
		}
	})
}

// TestLearnerStreamRefusesStrangers: no cookie, a made-up one, a
// teacher's key and a removed learner's session are all refused 401; a
// learner removed while following is cut off.
func TestLearnerStreamRefusesStrangers(t *testing.T) {
	st := openSQLite(t)
	ts, srv := startServer(t, web.Config{Classroom: st})
	c := createClass(t, ts.URL, "Room")
	nobody := newPerson(t, ts.URL)
	for what, extra := range map[string][]string{
		"no cookie":     nil,
		"a made-up one": {"Cookie", web.LearnerCookie + "=c2Vzc2lvbi10aGF0LW5ldmVyLXdhcw"},
		"an empty one":  {"Cookie", web.LearnerCookie + "="},
		"a teacher key": {"Authorization", "Bearer " + c.TeacherKey},
	} {
		s, a := openMeStream(t, nobody, extra...)
		if s != nil || a.status != http.StatusUnauthorized {
			t.Errorf("%s: %d %s, want 401", what, a.status, a.body)
		}
	}
	ada, id := join(t, ts.URL, c.Code, "Ada")
	s := mustOpen(t, ada)
	s.next(t, "the state on connect")
	wantStatus(t, teacher(t, ts.URL, c.TeacherKey).do("DELETE", "/api/classes/"+c.Code+"/learners/"+jsonNumber(id), "", ""), http.StatusNoContent, "remove Ada")
	s.waitEnd(t, "a removed learner's stream")
	if again, a := openMeStream(t, ada); again != nil || a.status != http.StatusUnauthorized {
		t.Errorf("a removed learner reconnecting: %d %s, want 401", a.status, a.body)
	}
	waitConnections(t, srv, 0)
}

func jsonNumber(n int64) string { b, _ := json.Marshal(n); return string(b) }

// waitConnections waits until the server counts n long-lived connections.
func waitConnections(t *testing.T, srv *web.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for srv.Connections() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections counted, want %d", srv.Connections(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLearnerStreamCaps: one learner's tabs, one address and the server
// each have a cap, refused with 429 (503 for the server's) and a
// Retry-After; the learners' pool is their own, so it neither takes
// dashboards' places nor loses its own to them; a closed stream frees
// its place.
func TestLearnerStreamCaps(t *testing.T) {
	st := openSQLite(t)
	ts, srv := startServer(t, web.Config{Classroom: st, MaxDashboardStreams: 1,
		Class: web.ClassConfig{Live: web.LearnerLiveConfig{MaxStreams: 4, StreamsPerAddress: 2, StreamsPerLearner: 2}}})
	if err := srv.TrustProxies([]string{"127.0.0.0/8", "::1/128"}); err != nil {
		t.Fatal(err)
	}
	c := createClass(t, ts.URL, "Room")
	ada, _ := join(t, ts.URL, c.Code, "Ada")
	bob, _ := join(t, ts.URL, c.Code, "Bob")
	cyd, _ := join(t, ts.URL, c.Code, "Cyd")
	dan, _ := join(t, ts.URL, c.Code, "Dan")
	school, home, cafe := []string{"X-Forwarded-For", "198.51.100.7"}, []string{"X-Forwarded-For", "203.0.113.9"}, []string{"X-Forwarded-For", "192.0.2.1"}

	refused := func(p *person, status int, msg, what string, extra ...string) {
		t.Helper()
		s, a := openMeStream(t, p, extra...)
		if s != nil {
			t.Fatalf("%s: accepted", what)
		}
		var e struct{ Error string }
		json.Unmarshal([]byte(a.body), &e)
		if a.status != status || a.header.Get("Retry-After") == "" || !strings.Contains(e.Error, msg) {
			t.Fatalf("%s: %d, Retry-After %q, %q; want %d saying %q", what, a.status, a.header.Get("Retry-After"), e.Error, status, msg)
		}
	}
	first := mustOpen(t, ada, school...)
	mustOpen(t, ada, home...)
	refused(ada, http.StatusTooManyRequests, "one learner may follow the class live in at most 2 pages at once", "Ada's third tab", cafe...)
	mustOpen(t, bob, school...)
	refused(cyd, http.StatusTooManyRequests, "your network already has 2 learner streams open", "a third stream from the school", school...)
	mustOpen(t, cyd, home...)
	refused(dan, http.StatusServiceUnavailable, "as many learner streams open as it allows (4)", "a fifth stream", cafe...)

	// The learners' pool is full; a teacher's dashboard still opens, and
	// fills its own pool of one without taking a learner's place.
	dash, res := openStream(t, &http.Client{}, ts.URL, c.Code, c.TeacherKey)
	if dash == nil {
		t.Fatalf("a dashboard beside full learner streams: %s", res.Status)
	}
	waitConnections(t, srv, 5)

	// Closing Ada's stream makes room for Dan.
	first.res.Body.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, a := openMeStream(t, dan, cafe...)
		if s != nil {
			break
		}
		if a.status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("Dan after Ada left: %d %s", a.status, a.body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLearnerStreamMaxAge: a stream ends by itself at its age, having
// told the browser how soon to come back, and the browser's reconnection
// is accepted and given the state again.
func TestLearnerStreamMaxAge(t *testing.T) {
	st := openSQLite(t)
	ts, srv := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Live: web.LearnerLiveConfig{MaxAge: 100 * time.Millisecond}}})
	c := createClass(t, ts.URL, "Room")
	ada, _ := join(t, ts.URL, c.Code, "Ada")
	s := mustOpen(t, ada)
	s.next(t, "the state on connect")
	s.waitEnd(t, "a stream past its age")
	if !s.retry.Load() {
		t.Error("the stream ended without a reconnection delay")
	}
	waitConnections(t, srv, 0)
	mustOpen(t, ada).next(t, "the state after reconnecting")
}

// TestLearnerStreamKeepAlive: an idle stream sends a comment every
// KeepAlive (here 50 ms), so a proxy's idle timeout does not cut it.
func TestLearnerStreamKeepAlive(t *testing.T) {
	st := openSQLite(t)
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Live: web.LearnerLiveConfig{KeepAlive: 50 * time.Millisecond}}})
	c := createClass(t, ts.URL, "Room")
	ada, _ := join(t, ts.URL, c.Code, "Ada")
	s := mustOpen(t, ada)
	s.next(t, "the state on connect")
	deadline := time.Now().Add(30 * time.Second)
	for s.kept.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d keep-alive comments on an idle stream after 30 s", s.kept.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// countingLearnerStore is the real store with a count of its Learner
// reads, what a learner stream's feed reads the class with.
type countingLearnerStore struct {
	classroom.Store
	reads atomic.Int64
}

func (s *countingLearnerStore) Learner(ctx context.Context, token string) (*classroom.Learner, *classroom.Class, error) {
	s.reads.Add(1)
	return s.Store.Learner(ctx, token)
}

// TestLearnerStreamsShareOneRead: a class of 60 following live costs
// the store one read per push, not one per learner, and nothing per
// answer.
func TestLearnerStreamsShareOneRead(t *testing.T) {
	st := &countingLearnerStore{Store: openSQLite(t)}
	ts, _ := startServer(t, web.Config{Classroom: st})
	c := createClass(t, ts.URL, "Room")
	var streams []*meStream
	var people []*person
	for i := range 60 {
		p, _ := join(t, ts.URL, c.Code, "Learner "+jsonNumber(int64(i)))
		people = append(people, p)
		s := mustOpen(t, p)
		s.next(t, "the state on connect")
		streams = append(streams, s)
	}
	before := st.reads.Load()
	for i := range 10 {
		record(t, st, people[i], "outlive-lease", "1", false)
	}
	wantStatus(t, teacher(t, ts.URL, c.TeacherKey).postJSON("/api/classes/"+c.Code+"/push", `{"preset":"`+presetName(t)+`"}`), http.StatusOK, "push")
	for i, s := range streams {
		if s.next(t, "the push").Class.Scenario == nil {
			t.Fatalf("stream %d: the next event after the push has no push", i)
		}
	}
	if n := st.reads.Load() - before; n != 1 {
		t.Errorf("%d class reads for ten answers and a push to 60 streams, want 1", n)
	}
}

// TestLearnerStreamAcrossReplicas: two servers on one PostgreSQL
// database (two replicas behind a balancer); a push made through one
// reaches a learner following on the other, through the store's
// LISTEN/NOTIFY, as the next event. Runs when PLAYGROUND_TEST_POSTGRES
// names a database.
func TestLearnerStreamAcrossReplicas(t *testing.T) {
	if os.Getenv(envPostgres) == "" {
		t.Skip("set " + envPostgres + " to run the replicas on PostgreSQL")
	}
	addr := storetest.PostgresSchema(t, "webtest_")
	replica := func() string {
		st, err := postgres.Open(context.Background(), addr, classroom.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		ts, _ := startServer(t, web.Config{Classroom: st})
		return ts.URL
	}
	one, two := replica(), replica()
	c := createClass(t, one, "Two replicas")
	ada, _ := join(t, one, c.Code, "Ada")
	ada.base = two // the balancer sends her stream to the other replica
	s := mustOpen(t, ada)
	s.next(t, "the state on connect")
	wantStatus(t, teacher(t, one, c.TeacherKey).postJSON("/api/classes/"+c.Code+"/push", `{"preset":"`+presetName(t)+`"}`), http.StatusOK, "push on the first replica")
	if sc := s.next(t, "the push from the other replica").Class.Scenario; sc == nil || sc.Kind != "scenario" {
		t.Fatalf("the stream on the second replica says %+v", sc)
	}
}
