package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/web"
)

// countingStore is the real store with a count of its dashboard reads,
// the expensive call a live dashboard makes.
type countingStore struct {
	classroom.Store
	dashboards atomic.Int64
}

func (s *countingStore) Dashboard(ctx context.Context, code, key string) (*classroom.Dashboard, error) {
	s.dashboards.Add(1)
	return s.Store.Dashboard(ctx, code, key)
}

// stream is one open GET /api/classes/{code}/events, read on a goroutine
// that keeps the newest dashboard's total of tries.
type stream struct {
	res    *http.Response
	events atomic.Int64 // dashboard events received
	tries  atomic.Int64 // tries in the newest one
	status atomic.Value // the newest one's class.lifecycle.status
	ended  chan struct{}
}

func openStream(tb testing.TB, client *http.Client, base, code, key string) (*stream, *http.Response) {
	tb.Helper()
	req, _ := http.NewRequest("GET", base+"/api/classes/"+code+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, res
	}
	s := &stream{res: res, ended: make(chan struct{})}
	tb.Cleanup(func() { res.Body.Close() })
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
				Exercises []struct{ Tries int64 }
				Class     struct {
					Lifecycle struct{ Status string } `json:"lifecycle"`
				} `json:"class"`
			}
			if json.Unmarshal([]byte(data), &v) == nil && v.Exercises != nil {
				n := int64(0)
				for _, ex := range v.Exercises {
					n += ex.Tries
				}
				s.tries.Store(n)
				s.status.Store(v.Class.Lifecycle.Status)
				s.events.Add(1)
			}
		}
	}()
	return s, res
}

// waitAll waits, with a generous deadline, until every stream satisfies
// ok.
func waitAll(tb testing.TB, streams []*stream, what string, ok func(*stream) bool) {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		n := 0
		for _, s := range streams {
			if ok(s) {
				n++
			}
		}
		if n == len(streams) {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s: %d of %d streams after 60 s", what, n, len(streams))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDashboardStreamsShareOneRead opens 1,000 live dashboards on one
// teacher key (the cap raised for the test) over a real SQLite store
// wrapped to count its dashboard reads, then records answers: every
// stream sees every change, and the store is read at most once per change
// (changes close together merge), not once per stream and change. Before
// streams shared a feed, this was 1,000 reads per change.
func TestDashboardStreamsShareOneRead(t *testing.T) {
	streams, answers := 1000, int64(20)
	if testing.Short() {
		// Under the race detector (CI runs it -short), whose limit is
		// 8,128 live goroutines: 1,000 streams take about five each.
		streams = 300
	}
	st := &countingStore{Store: openSQLite(t)}
	ts, srv := startServer(t, web.Config{Classroom: st, MaxDashboardStreams: streams + 10, DashboardStreamsPerAddress: streams + 10,
		Class: web.ClassConfig{StreamsPerKey: streams}})
	c := createClass(t, ts.URL, "Projector")
	ana, _ := join(t, ts.URL, c.Code, "Ana")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}}
	t.Cleanup(client.CloseIdleConnections)

	var all []*stream
	for range streams {
		s, res := openStream(t, client, ts.URL, c.Code, c.TeacherKey)
		if s == nil {
			t.Fatalf("stream %d: %s", len(all)+1, res.Status)
		}
		all = append(all, s)
	}
	waitAll(t, all, "the first dashboard", func(s *stream) bool { return s.events.Load() >= 1 })
	if n := srv.Connections(); n != streams {
		t.Errorf("%d connections counted for %d streams", n, streams)
	}
	first := st.dashboards.Load()
	if first > 2 {
		t.Errorf("%d dashboard reads for %d streams opening, want 1 (2 if a change came between)", first, streams)
	}

	for i := range answers {
		record(t, st, ana, "outlive-lease", fmt.Sprint(i), false)
	}
	waitAll(t, all, "the last answer", func(s *stream) bool { return s.tries.Load() == answers })
	reads := st.dashboards.Load() - first
	t.Logf("%d streams, %d answers: %d dashboard reads after the first", streams, answers, reads)
	if reads < 1 || reads > answers {
		t.Errorf("%d dashboard reads for %d answers to %d streams, want between 1 and %d", reads, answers, streams, answers)
	}

	// Closing every stream frees every connection and stops the feed.
	for _, s := range all {
		s.res.Body.Close()
	}
	deadline := time.Now().Add(30 * time.Second)
	for srv.Connections() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still counted after every stream closed", srv.Connections())
		}
		time.Sleep(10 * time.Millisecond)
	}
	before := st.dashboards.Load()
	record(t, st, ana, "outlive-lease", "after", false)
	// Nobody is watching: the change is not read. (A read would follow it
	// within the interval; give it ample time to show.)
	time.Sleep(time.Second)
	if n := st.dashboards.Load() - before; n != 0 {
		t.Errorf("%d dashboard reads with no stream open", n)
	}
}

// TestDashboardStreamCaps: past the per-key cap a stream is refused with
// 429 saying so, and closing one makes room; the server-wide cap counts
// the streams alone, in a pool of their own: websockets do not fill it.
func TestDashboardStreamCaps(t *testing.T) {
	st := openSQLite(t)
	ts, srv := startServer(t, web.Config{Classroom: st, MaxConnections: 1, MaxDashboardStreams: 4, Class: web.ClassConfig{StreamsPerKey: 2}})
	client := &http.Client{}
	a := createClass(t, ts.URL, "A")
	b := createClass(t, ts.URL, "B")

	s1, _ := openStream(t, client, ts.URL, a.Code, a.TeacherKey)
	s2, _ := openStream(t, client, ts.URL, a.Code, a.TeacherKey)
	if s1 == nil || s2 == nil {
		t.Fatal("two streams within the cap were refused")
	}
	_, res := openStream(t, client, ts.URL, a.Code, a.TeacherKey)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("a third stream on one key: %s, Retry-After %q", res.Status, res.Header.Get("Retry-After"))
	}
	var e struct{ Error, Code string }
	json.NewDecoder(res.Body).Decode(&e)
	res.Body.Close()
	if e.Code != "rate_limited" || !strings.Contains(e.Error, "already has 2 live dashboards open") {
		t.Errorf("refusal %+v", e)
	}
	// Another key has its own count.
	s3, _ := openStream(t, client, ts.URL, b.Code, b.TeacherKey)
	if s3 == nil {
		t.Fatal("another class's stream was refused")
	}
	// The one websocket place taken, a stream still opens; then four
	// streams fill the dashboards' pool.
	ws := dial(t, ts.URL, nil)
	s4, res := openStream(t, client, ts.URL, b.Code, b.TeacherKey)
	if s4 == nil {
		t.Fatalf("a stream beside a full websocket pool: %s", res.Status)
	}
	_, res = openStream(t, client, ts.URL, b.Code, b.TeacherKey)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("a stream past the server's cap: %s", res.Status)
	}
	json.NewDecoder(res.Body).Decode(&e)
	res.Body.Close()
	if !strings.Contains(e.Error, "as many dashboard streams open as it allows (4)") {
		t.Errorf("refusal %+v", e)
	}
	// Closing frees: the websocket, then one of key A's streams.
	ws.conn.Close()
	s1.res.Body.Close()
	deadline := time.Now().Add(30 * time.Second)
	for srv.Connections() > 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still counted", srv.Connections())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s, res := openStream(t, client, ts.URL, a.Code, a.TeacherKey); s == nil {
		t.Fatalf("a stream after one closed: %s", res.Status)
	}
}

// TestDashboardStreamEndsWithItsClass: when the class is deleted (its
// grace over), the feed ends and so does every stream, and reconnecting
// is refused with 404.
func TestDashboardStreamEndsWithItsClass(t *testing.T) {
	clk := newTestClock()
	st := openSQLiteWith(t, classroom.Options{Now: clk.Now, Retention: 24 * time.Hour, Grace: 24 * time.Hour, PurgeEvery: -1})
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now}})
	c := createClass(t, ts.URL, "Short-lived")
	var streams []*stream
	for range 3 {
		s, res := openStream(t, http.DefaultClient, ts.URL, c.Code, c.TeacherKey)
		if s == nil {
			t.Fatal(res.Status)
		}
		streams = append(streams, s)
	}
	waitAll(t, streams, "the first dashboard", func(s *stream) bool { return s.events.Load() >= 1 })
	clk.Advance(72 * time.Hour)
	if n, err := st.Purge(context.Background()); err != nil || n != 1 {
		t.Fatalf("purge: %d, %v", n, err)
	}
	var wg sync.WaitGroup
	for _, s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-s.ended:
			case <-time.After(30 * time.Second):
				t.Error("a stream outlived its class")
			}
		}()
	}
	wg.Wait()
	if _, res := openStream(t, http.DefaultClient, ts.URL, c.Code, c.TeacherKey); res.StatusCode != http.StatusNotFound {
		t.Errorf("reconnecting to a deleted class: %s", res.Status)
	}
}

func openSQLiteWith(tb testing.TB, opts classroom.Options) classroom.Store {
	tb.Helper()
	st, err := sqlite.Open(context.Background(), tb.TempDir(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}
