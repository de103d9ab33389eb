package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// series reads one unlabelled series from /metrics.
func series(t *testing.T, url, name string) float64 {
	t.Helper()
	_, body := get(t, url+"/metrics")
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %s in /metrics", name)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestWarmGroupsServeEveryKindOfRun: with warm Raft groups, an API run, a
// live run and a check's runs each start on a group from the pool, and
// the API run's timeline is the one a freshly booted group gives.
func TestWarmGroupsServeEveryKindOfRun(t *testing.T) {
	ts, _ := startServer(t, web.Config{WarmRaftGroups: true, RunSlots: 2})
	ready := func() {
		waitFor(t, func() bool { return series(t, ts.URL, "playground_raft_pool_idle") >= 2 })
	}
	hits := func() float64 { return series(t, ts.URL, "playground_raft_pool_hits_total") }

	ready()
	before := hits()
	status, body := post(t, ts.URL+"/api/run", string(preset(t, "paused-holder", false)))
	if status != 200 {
		t.Fatalf("API run: %d %s", status, body)
	}
	if h := hits(); h != before+1 {
		t.Errorf("pool hits %v after an API run, want %v", h, before+1)
	}
	var got struct{ Events []engine.Event }
	json.Unmarshal(body, &got)
	sc, _ := engine.DecodeScenario(preset(t, "paused-holder", false))
	fresh := mustRun(t, sc)
	gj, _ := json.Marshal(got.Events)
	wj, _ := json.Marshal(fresh.Events)
	if string(gj) != string(wj) {
		t.Errorf("the pooled run's timeline differs from a fresh group's")
	}

	ready()
	before = hits()
	c := dial(t, ts.URL, nil)
	c.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 0})
	c.until(web.MsgSummary)
	if h := hits(); h != before+1 {
		t.Errorf("pool hits %v after a live run, want %v", h, before+1)
	}

	ready()
	before = hits()
	if got := await(t, postAsync(ts.URL+"/api/exercises/long-job-config/check", scenarioAnswer)); got.status != 200 {
		t.Fatalf("check: %d %v", got.status, got.body)
	}
	if h := hits(); h < before+1 {
		t.Errorf("pool hits %v after a check of four runs, want more than %v", h, before)
	}
}

// TestShutdownDrainsTheWarmGroups: after Shutdown no goroutine of the
// pool's idle groups is left.
func TestShutdownDrainsTheWarmGroups(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv, err := web.NewServer(web.Config{WarmRaftGroups: true, RunSlots: 2})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	waitFor(t, func() bool { return series(t, ts.URL, "playground_raft_pool_idle") >= 2 })
	if status, _ := post(t, ts.URL+"/api/run", string(preset(t, "ride-claim", false))); status != http.StatusOK {
		t.Fatalf("API run: %d", status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	ts.Close()
	http.DefaultClient.CloseIdleConnections()
}
