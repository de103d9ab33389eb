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
	"github.com/leaselab/playground/web"
)

// deviceCountingStore counts the device codes the store is asked to make.
type deviceCountingStore struct {
	classroom.Store
	made atomic.Int64
}

func (s *deviceCountingStore) DeviceCode(ctx context.Context, token string) (string, time.Time, error) {
	s.made.Add(1)
	return s.Store.DeviceCode(ctx, token)
}

// TestDeviceCodesAreBoundedPerLearner: each device code asked for is a
// write, so one learner (a script with her cookie) gets a bucket of them
// and then waits (429 naming the limit, with Retry-After) while her
// classmates behind the same address still get theirs; a request with no
// session, or a made-up one, is refused without a write.
func TestDeviceCodesAreBoundedPerLearner(t *testing.T) {
	st := &deviceCountingStore{Store: openSQLite(t)}
	clk := newTestClock()
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now}})
	base := ts.URL
	c := createClass(t, base, "Devices")
	ada, _ := join(t, base, c.Code, "Ada")
	bo, _ := join(t, base, c.Code, "Bo")

	// Nobody, and somebody made up, 100 times each: nothing is written.
	stranger := newPerson(t, base)
	madeUp := newPerson(t, base)
	madeUp.header.Set("Cookie", web.LearnerCookie+"=made-up-session")
	for range 100 {
		wantStatus(t, stranger.postJSON("/api/me/device-code", ""), http.StatusUnauthorized, "a device code without a session")
		wantStatus(t, madeUp.postJSON("/api/me/device-code", ""), http.StatusUnauthorized, "a device code for a made-up session")
	}
	if n := st.made.Load(); n != 0 {
		t.Fatalf("200 requests without a learner asked the store for %d device codes, want 0", n)
	}

	burst := web.DefaultDeviceCodeRate.Burst
	for i := range burst {
		wantStatus(t, ada.postJSON("/api/me/device-code", ""), http.StatusCreated, fmt.Sprint("Ada's device code ", i+1))
	}
	a := ada.postJSON("/api/me/device-code", "")
	if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" ||
		!strings.Contains(a.body, "device codes") || !strings.Contains(a.body, "at most") {
		t.Fatalf("Ada's device code %d: %d %q (Retry-After %q)", burst+1, a.status, a.body, a.header.Get("Retry-After"))
	}
	// The page's button says the same, on the page.
	if a := ada.postForm("/class/me/device", nil); a.status != http.StatusTooManyRequests {
		t.Errorf("Ada's page asking past the limit: %d", a.status)
	}
	if n := st.made.Load(); n != int64(burst) {
		t.Errorf("the store made %d device codes for Ada, want %d", n, burst)
	}
	// Bo, at the same address, is not held by Ada's bucket.
	wantStatus(t, bo.postJSON("/api/me/device-code", ""), http.StatusCreated, "Bo's device code")

	clk.Advance(time.Minute)
	wantStatus(t, ada.postJSON("/api/me/device-code", ""), http.StatusCreated, "Ada's device code a minute later")
}
