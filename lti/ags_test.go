package lti_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/lti"
	"github.com/leaselab/playground/lti/ltitest"
)

// clock is the tests' clock: it moves only when told, and runs the
// functions set to run after a while (AfterFunc) as it passes their time.
type clock struct {
	mu     sync.Mutex
	t      time.Time
	timers []*clockTimer
}

type clockTimer struct {
	at   time.Time
	f    func()
	done bool // fired or stopped
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Advance moves the clock on by d, and runs, in the order of their time,
// the functions whose time it passed.
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	var due []*clockTimer
	for _, tm := range c.timers {
		if !tm.done && !tm.at.After(c.t) {
			tm.done = true
			due = append(due, tm)
		}
	}
	c.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *clockTimer) int { return a.at.Compare(b.at) })
	for _, tm := range due {
		tm.f()
	}
}

// AfterFunc is time.AfterFunc on the clock (lti.Config.AfterFunc).
func (c *clock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	tm := &clockTimer{at: c.t.Add(d), f: f}
	c.timers = append(c.timers, tm)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !tm.done
		tm.done = true
		return was
	}
}

// queueEnv is a tool on a SQLite store with a test platform registered
// and one learner launched into a graded link.
type queueEnv struct {
	clk     *clock
	st      classroomStore
	tool    *lti.Tool
	plat    *ltitest.Platform
	classID int64
	learner int64
}

type classroomStore = interface {
	classroom.Store
	classroom.LTIStore
}

func newQueueEnv(t *testing.T) *queueEnv {
	clk := &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	s, err := sqlite.Open(context.Background(), t.TempDir(), classroom.Options{Now: clk.Now, PurgeEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var st classroomStore = s
	tool := lti.New(lti.Config{Store: st, Now: clk.Now, AfterFunc: clk.AfterFunc})
	t.Cleanup(tool.Close)
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := tool.JWKS(r.Context())
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(jwks.Close)
	plat := ltitest.New(t, clk.Now)
	plat.ToolJWKS = jwks.URL
	p, err := st.AddLTIPlatform(context.Background(), plat.Registration())
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.LTILaunch(context.Background(), classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: "u1", Name: "Ada",
		ResourceLinkID: "l", Target: "exercise:ex", LineItemURL: plat.LineItem("1")})
	if err != nil {
		t.Fatal(err)
	}
	return &queueEnv{clk: clk, st: st, tool: tool, plat: plat, classID: r.Class.ID, learner: r.Session.Learner.ID}
}

// TestTokenKeptUntilItExpires: one token serves the sends of its hour;
// past its expiry (by the tool's clock) a new one is asked for.
func TestTokenKeptUntilItExpires(t *testing.T) {
	e := newQueueEnv(t)
	ctx := context.Background()
	send := func(given float64) {
		t.Helper()
		if err := e.tool.EnqueueScore(ctx, e.classID, e.learner, "ex", given, 10); err != nil {
			t.Fatal(err)
		}
		if n, err := e.tool.Deliver(ctx); n != 1 || err != nil {
			t.Fatalf("Deliver = %d, %v", n, err)
		}
	}
	send(3)
	e.clk.Advance(30 * time.Minute)
	send(5)
	if n := len(e.plat.Tokens()); n != 1 {
		t.Errorf("%d tokens for two sends within the hour, want 1", n)
	}
	e.clk.Advance(31 * time.Minute)
	send(7)
	if n := len(e.plat.Tokens()); n != 2 {
		t.Errorf("%d tokens after the first expired, want 2", n)
	}
	if err := e.tool.EnqueueScore(ctx, e.classID, e.learner, "ex", 11, 10); err == nil {
		t.Error("a score over its maximum was queued")
	}
}

// TestScoreGivenUp: a platform that refuses every send is tried twelve
// times with growing waits, then the score is marked failed with its
// last answer.
func TestScoreGivenUp(t *testing.T) {
	e := newQueueEnv(t)
	ctx := context.Background()
	e.plat.FailScores(1000)
	if err := e.tool.EnqueueScore(ctx, e.classID, e.learner, "ex", 1, 1); err != nil {
		t.Fatal(err)
	}
	for try := 1; try <= 12; try++ {
		if n, err := e.tool.Deliver(ctx); n != 0 || err != nil {
			t.Fatalf("try %d: %d sent, %v", try, n, err)
		}
		e.clk.Advance(lti.Backoff(try))
	}
	jobs, err := e.st.LTIScoreJobs(ctx, 5)
	if err != nil || len(jobs) != 1 || jobs[0].Outcome != "failed" || jobs[0].Tries != 12 || jobs[0].LastError == "" {
		t.Fatalf("after twelve failures: %+v, %v", jobs, err)
	}
	e.clk.Advance(24 * time.Hour)
	if n, _ := e.tool.Deliver(ctx); n != 0 || len(e.plat.Scores()) != 0 {
		t.Errorf("a given-up score was sent later")
	}
}
