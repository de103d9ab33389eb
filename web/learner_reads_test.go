package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// learnerReadingStore counts the store's reads of a learner by cookie.
type learnerReadingStore struct {
	classroom.Store
	reads atomic.Int64
}

func (s *learnerReadingStore) Learner(ctx context.Context, token string) (*classroom.Learner, *classroom.Class, error) {
	s.reads.Add(1)
	return s.Store.Learner(ctx, token)
}

// TestLearnerReadsAreBoundedPerLearner: GET /api/me and a run's history
// read the store for the learner whose cookie they carry. One learner (a
// script with her cookie) gets her own bucket, then her address's, and
// then waits (429 naming the limit, with Retry-After) without a read of
// the store, while a classmate behind the same address is still served;
// a made-up cookie reads the store only while the address's lookups
// last; a history without a cookie is not held; a minute later Ada is
// served again.
func TestLearnerReadsAreBoundedPerLearner(t *testing.T) {
	st := &learnerReadingStore{Store: openSQLite(t)}
	clk := newTestClock()
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now}})
	base := ts.URL
	c := createClass(t, base, "Reads")
	ada, _ := join(t, base, c.Code, "Ada")
	bo, _ := join(t, base, c.Code, "Bo")
	p, _ := engine.LoadPreset("baseline")
	share, err := web.EncodeShare(p.Scenario)
	if err != nil {
		t.Fatal(err)
	}

	// Ada reads, by both routes, until she is refused.
	const most = 5000
	n := 0
	var refused struct {
		status       int
		body, header string
	}
	for ; n < most; n++ {
		path := "/api/me"
		if n%2 == 1 {
			path = "/api/history?s=" + share
		}
		a := ada.get(path)
		if a.status == http.StatusOK {
			continue
		}
		refused.status, refused.body, refused.header = a.status, a.body, a.header.Get("Retry-After")
		break
	}
	if n == most {
		t.Fatalf("Ada read %d times and was never refused", most)
	}
	if refused.status != http.StatusTooManyRequests || refused.header == "" || !strings.Contains(refused.body, "too many learner reads") || !strings.Contains(refused.body, "a minute") {
		t.Fatalf("Ada's read %d: %d %q (Retry-After %q)", n+1, refused.status, refused.body, refused.header)
	}
	// Her own bucket, then her address's: no more, and a poll a tab of
	// hers makes every 5 s for minutes before that.
	own := web.LearnerReadRate(web.DefaultLearnerPoll).Burst
	if want := own + web.DefaultLearnerReadRate.Burst; n != want || own < 12 {
		t.Errorf("Ada read %d times before a refusal, want %d (her own %d, then her address's)", n, want, own)
	}
	before := st.reads.Load()
	for i := range 200 {
		path := "/api/me"
		if i%2 == 1 {
			path = "/api/history?s=" + share
		}
		wantStatus(t, ada.get(path), http.StatusTooManyRequests, fmt.Sprint("Ada's refused read ", i+1))
	}
	if d := st.reads.Load() - before; d != 0 {
		t.Errorf("200 refused reads read the store %d times", d)
	}

	// Bo, at the same address, has his own bucket.
	wantStatus(t, bo.get("/api/me"), http.StatusOK, "Bo's read")
	wantStatus(t, bo.get("/api/history?s="+share), http.StatusOK, "Bo's history")
	// A history without a cookie reads nothing of a learner.
	wantStatus(t, newPerson(t, base).get("/api/history?s="+share), http.StatusOK, "a history without a cookie")

	// A made-up cookie: the store is asked at most as often as the
	// address's lookups allow.
	madeUp := newPerson(t, base)
	madeUp.header.Set("Cookie", web.LearnerCookie+"=made-up-session")
	before = st.reads.Load()
	const tries = 800
	for range tries {
		if a := madeUp.get("/api/history?s=" + share); a.status != http.StatusOK && a.status != http.StatusTooManyRequests {
			t.Fatalf("a history with a made-up cookie: %d %s", a.status, a.body)
		}
	}
	if d := st.reads.Load() - before; d >= tries || d > int64(web.DefaultLearnerLookupRate.Burst) {
		t.Errorf("%d reads with a made-up cookie read the store %d times", tries, d)
	}

	clk.Advance(time.Minute)
	wantStatus(t, ada.get("/api/me"), http.StatusOK, "Ada's read a minute later")
}

// TestAMadeUpCookieIsLookedUpOnlySoOften: an exercise check tells whose
// bucket it spends by the learner cookie it carries; a made-up one, sent
// a thousand times from one address, is looked up in the store only
// while the address's lookups last, not once per request.
func TestAMadeUpCookieIsLookedUpOnlySoOften(t *testing.T) {
	st := &learnerReadingStore{Store: openSQLite(t)}
	clk := newTestClock()
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now}})
	madeUp := newPerson(t, ts.URL)
	madeUp.header.Set("Cookie", web.LearnerCookie+"=made-up-session")
	const tries = 1000
	for range tries {
		if a := madeUp.postJSON("/api/exercises/outlive-lease/check", `{"answer":"50"}`); a.status != http.StatusUnauthorized && a.status != http.StatusTooManyRequests {
			t.Fatalf("a check with a made-up cookie: %d %s", a.status, a.body)
		}
	}
	lookups, checks := web.DefaultLearnerLookupRate.Burst, web.DefaultCheckRate.Burst
	if n := st.reads.Load(); n > int64(lookups+checks) {
		t.Errorf("%d checks with a made-up cookie read the store %d times, want at most %d (the lookups, then the checks let through)", tries, n, lookups+checks)
	}
}

// TestAMadeUpCookieReadsTheStoreOnlySoOften: the learner's stream, page
// and device code read the store for the cookie they carry; a made-up
// one sent a thousand times to each is refused (401, then 429 naming the
// limit) with the store read only as often as the address's lookups and
// its learner reads allow, not once per request.
func TestAMadeUpCookieReadsTheStoreOnlySoOften(t *testing.T) {
	st := &learnerReadingStore{Store: openSQLite(t)}
	clk := newTestClock()
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now}})
	madeUp := newPerson(t, ts.URL)
	madeUp.header.Set("Cookie", web.LearnerCookie+"=made-up-session")
	const tries = 1000
	limited := 0
	for i := range tries {
		for _, a := range []answer{madeUp.get("/api/me/events"), madeUp.get("/class/me"), madeUp.postJSON("/api/me/device-code", "")} {
			switch {
			case a.status == http.StatusTooManyRequests && strings.Contains(a.body, "learner reads") && a.header.Get("Retry-After") != "":
				limited++
			case a.status != http.StatusUnauthorized && a.status != http.StatusOK && a.status != http.StatusSeeOther && a.status != http.StatusFound:
				t.Fatalf("request %d with a made-up cookie: %d %.200s", i+1, a.status, a.body)
			}
		}
	}
	most := web.DefaultLearnerLookupRate.Burst + web.DefaultLearnerReadRate.Burst
	if n := st.reads.Load(); n > int64(most) || limited == 0 {
		t.Errorf("%d requests with a made-up cookie read the store %d times (want at most %d), %d refused by the limit", 3*tries, n, most, limited)
	}
}
