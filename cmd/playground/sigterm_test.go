package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/leaselab/playground/engine"
)

// envTermChild makes the test binary serve the playground, so that the
// parent can send a real server SIGTERM.
const envTermChild = "PLAYGROUND_TEST_TERM_CHILD"

// TestSigtermAnswersEveryRequestInFlight starts a real server with one
// slot and one live place, fills both with a paused live run at full
// speed, and queues another live run, an API run and a check behind it,
// then sends SIGTERM: every request is answered
// (503, "shutting down", with Retry-After), both browsers are told, and
// the process exits cleanly.
func TestSigtermAnswersEveryRequestInFlight(t *testing.T) {
	if dir := os.Getenv(envTermChild); dir != "" {
		// As main does: SIGTERM cancels the context serve runs under.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		err := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", dir,
			"--run-slots", "1", "--max-live-runs", "1", "--queue-wait", "1m"}, noEnv, os.Stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("starts a server process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSigtermAnswersEveryRequestInFlight$")
	cmd.Env = append(os.Environ(), envTermChild+"="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v", err)
	}
	go io.Copy(io.Discard, out)
	base := regexp.MustCompile(`http://\S+`).FindString(line)
	wsURL := "ws" + strings.TrimPrefix(base, "http") + "/ws/run"

	p, err := engine.LoadPreset("nightly-total")
	if err != nil {
		t.Fatal(err)
	}
	var browsers []*websocket.Conn
	// The first run holds the live place and the slot (at full speed,
	// paused); the second waits for the live place.
	for _, start := range []map[string]any{
		{"type": "start", "scenario": p.Scenario, "speed": 0, "paused": true},
		{"type": "start", "scenario": p.Scenario, "speed": 1},
	} {
		c, _, err := websocket.DefaultDialer.Dial(wsURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.WriteJSON(start)
		browsers = append(browsers, c)
		waitHealth(t, base, func(h health) bool { return h.LiveRuns+h.QueuedRuns == len(browsers) })
	}
	type answer struct {
		status int
		retry  string
		body   string
	}
	send := func(path, body string) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				ch <- answer{body: err.Error()}
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			ch <- answer{res.StatusCode, res.Header.Get("Retry-After"), string(b)}
		}()
		return ch
	}
	sc, _ := json.Marshal(p.Scenario)
	inFlight := map[string]<-chan answer{
		"run":   send("/api/run", string(sc)),
		"check": send("/api/exercises/long-job-config/check", `{"answer":"{\"lock.lease\":\"30s\"}"}`),
	}
	waitHealth(t, base, func(h health) bool { return h.QueuedRuns == 3 })

	began := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for name, ch := range inFlight {
		select {
		case a := <-ch:
			if a.status != http.StatusServiceUnavailable || a.retry == "" || !strings.Contains(a.body, "shutting down") {
				t.Errorf("%s in flight at SIGTERM: %d Retry-After %q %s", name, a.status, a.retry, a.body)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("%s in flight at SIGTERM: no answer", name)
		}
	}
	for i, c := range browsers {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		var last map[string]any
		var err error
		for {
			var m map[string]any
			if err = c.ReadJSON(&m); err != nil {
				break
			}
			last = m
		}
		if !websocket.IsCloseError(err, websocket.CloseGoingAway) || last["code"] != "shutdown" {
			t.Errorf("browser %d: last message %v, then %v; want the shutdown notice and close 1001", i, last, err)
		}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the server exited with %v after SIGTERM; log:\n%s", err, logs.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not exit after SIGTERM")
	}
	took := regexp.MustCompile(`"stopped serving" took=(\S+)`).FindStringSubmatch(logs.String())
	if took == nil {
		t.Errorf("no shutdown line in the log:\n%s", logs.String())
	} else {
		t.Logf("shutdown took %s in the server, %s from SIGTERM to exit", took[1], time.Since(began).Round(time.Millisecond))
	}
}

// health is what /healthz reports.
type health struct {
	LiveRuns   int `json:"live_runs"`
	QueuedRuns int `json:"queued_runs"`
}

func waitHealth(t *testing.T, base string, ok func(health) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var h health
	for time.Now().Before(deadline) {
		res, err := http.Get(base + "/healthz")
		if err == nil {
			h = health{}
			json.NewDecoder(res.Body).Decode(&h)
			res.Body.Close()
			if ok(h) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("/healthz never showed the runs wanted; last %+v", h)
}
