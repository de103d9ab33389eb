package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

func TestIPLimiterBucketsRetryAfterAndSweep(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	l := newIPLimiter("joins", Rate{PerMinute: 6, Burst: 2}, func() time.Time { return now })
	for i := range 2 {
		if ok, _ := l.take("a"); !ok {
			t.Fatalf("take %d within the burst refused", i+1)
		}
	}
	ok, retry := l.take("a")
	if ok || retry != 10*time.Second {
		t.Fatalf("over the burst: ok %v, retry %v; want refused, 10s (6 a minute)", ok, retry)
	}
	if ok, _ := l.take("b"); !ok {
		t.Fatal("another address shares the first one's bucket")
	}
	now = now.Add(10 * time.Second)
	if ok, _ := l.take("a"); !ok {
		t.Fatal("a token did not come back after 10 s")
	}
	// After a minute and more, full buckets are forgotten.
	now = now.Add(2 * time.Minute)
	l.take("c")
	if _, kept := l.ips["b"]; kept || len(l.ips) != 1 {
		t.Errorf("sweep kept %d buckets", len(l.ips))
	}
}

// TestChecksAreLimitedAndGuarded registers a stand-in for the check
// endpoint (the lesson pages add the real one) and checks that the
// server's middleware limits it per IP, refuses it cross-site and counts
// it. The limiter's clock stands still, so the burst is the same however
// long the requests take.
func TestChecksAreLimitedAndGuarded(t *testing.T) {
	frozen := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s, err := NewServer(Config{Class: ClassConfig{Clock: func() time.Time { return frozen }}})
	if err != nil {
		t.Fatal(err)
	}
	registered := false
	for _, r := range s.echo.Routes() {
		registered = registered || (r.Path == checkRoute && r.Method == http.MethodPost)
	}
	if !registered {
		s.echo.POST(checkRoute, func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]bool{"correct": false}) })
	}
	post := func(h ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/api/exercises/x/check", strings.NewReader(`{"answer":"1"}`))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		return rec
	}
	if rec := post("Sec-Fetch-Site", "cross-site"); rec.Code != http.StatusForbidden {
		t.Errorf("cross-site check: %d", rec.Code)
	}
	// The refused one took no token: the guard comes first.
	for i := 0; i < DefaultCheckRate.Burst; i++ {
		if rec := post(); rec.Code == http.StatusTooManyRequests {
			t.Fatalf("check %d of a burst of %d refused", i+1, DefaultCheckRate.Burst)
		}
	}
	rec := post()
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("check past the burst: %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	m := httptest.NewRecorder()
	scrape := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	scrape.RemoteAddr = "127.0.0.1:9100" // /metrics answers this machine only
	s.Handler().ServeHTTP(m, scrape)
	for _, want := range []string{`playground_exercise_checks_total{code="429"} 1`, `playground_rate_limited_total{limit="checks"} 1`} {
		if !strings.Contains(m.Body.String(), want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
}
