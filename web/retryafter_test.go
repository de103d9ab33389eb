package web_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/leaselab/playground/web"
)

// TestEveryAnswerCutByShutdownSaysTheSameRetryAfter: a chaos batch
// stopped by a shutdown is told to come back when a run or a check is, 5 s
// (it said 30, the default of a 503 with none set).
func TestEveryAnswerCutByShutdownSaysTheSameRetryAfter(t *testing.T) {
	ts, srv := startServer(t, web.Config{RunSlots: 1, QueueWait: time.Minute})
	chaos := postAsync(ts.URL+"/api/chaos", `{"runs":200}`)
	waitFor(t, func() bool { return srv.LiveRuns() == 1 })
	run := postAsync(ts.URL+"/api/run", string(preset(t, "ride-claim", false)))
	waitFor(t, func() bool { return srv.QueuedRuns() == 1 })
	go srv.Shutdown(t.Context())
	for name, ch := range map[string]<-chan reply{"chaos batch": chaos, "waiting run": run} {
		if got := await(t, ch); got.status != http.StatusServiceUnavailable || got.retry != "5" {
			t.Errorf("%s at shutdown: %d Retry-After %q %v, want 503 and 5", name, got.status, got.retry, got.body)
		}
	}
}
