package web_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/web"
)

// madeUpID is a cookie value shaped like one the server issues, which it
// never issued.
func madeUpID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// runFrom POSTs a scenario to /api/run with client and returns the status
// and body.
func runFrom(client *http.Client, base string, scenario []byte, cookies ...*http.Cookie) (int, string, error) {
	req, _ := http.NewRequest(http.MethodPost, base+"/api/run", bytes.NewReader(scenario))
	req.Header.Set("Content-Type", "application/json")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body), nil
}

// TestMadeUpSessionsAreOneFlow plays hole 2 of the hostile client: a
// script behind a classmate's address sends heavy runs under twenty
// made-up visitor ids and learner tokens. Ids the server did not issue
// are the address's one anonymous flow, so the script has one flow's
// queue (the rest of its runs are refused at once) and one flow's share;
// the classmate, with the visitor cookie the server gave it, gets its
// light runs through.
func TestMadeUpSessionsAreOneFlow(t *testing.T) {
	ts, _ := startServer(t, web.Config{RunSlots: 2, SessionShare: 0.5, AddressShare: 1, QueueWait: time.Minute})
	heavy := preset(t, "nightly-total", true)
	light := preset(t, "paused-holder", true)
	const ip = "127.0.0.2"

	mate := clientFrom(ip)
	if status, body, err := runFrom(mate, ts.URL, light); err != nil || status != http.StatusOK {
		t.Fatalf("the classmate's first run: %d %s %v", status, body, err)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var refusedQueue, ran atomic.Int64
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := clientFrom(ip)
			forged := []*http.Cookie{{Name: web.VisitorCookie, Value: madeUpID()}}
			if i%2 == 1 {
				forged = []*http.Cookie{{Name: web.LearnerCookie, Value: madeUpID()}}
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				status, body, err := runFrom(client, ts.URL, heavy, forged...)
				switch {
				case err != nil:
					return
				case status == http.StatusTooManyRequests && strings.Contains(body, "runs waiting for the server, the most one person may"):
					refusedQueue.Add(1)
					time.Sleep(10 * time.Millisecond)
				case status == http.StatusOK:
					ran.Add(1)
				}
			}
		}()
	}
	t.Cleanup(func() { close(stop); wg.Wait() })
	// Let the script fill the line before the classmate's runs.
	waitFor(t, func() bool { return refusedQueue.Load() > 0 })

	ok := 0
	for range 10 {
		status, body, err := runFrom(mate, ts.URL, light)
		if err == nil && status == http.StatusOK {
			ok++
		} else {
			t.Logf("a classmate's run: %d %s %v", status, body, err)
		}
	}
	if ok < 8 {
		t.Errorf("the classmate got %d of 10 light runs through, want at least 8", ok)
	}
	if refusedQueue.Load() == 0 {
		t.Error("the script's made-up ids were never refused as one flow's queue")
	}
}

// metricValue reads one series' value from /metrics.
func metricValue(t *testing.T, base, series string) float64 {
	t.Helper()
	_, body := get(t, base+"/metrics")
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			fmt.Sscan(rest, &v)
			return v
		}
	}
	t.Fatalf("no series %s in /metrics", series)
	return 0
}

// TestPausedRunsMakeWayForAWaitingClassmate plays the other half of hole
// 2: a script takes every live place with runs paced at 0.1x and paused.
// A classmate at another address asks for a place: once a script's run has
// held its place for the live turn, it is ended with a "turn_over" error
// and the classmate's run starts, and only one run is ended for it.
func TestPausedRunsMakeWayForAWaitingClassmate(t *testing.T) {
	ts, srv := startServer(t, web.Config{MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1, LiveTurn: 500 * time.Millisecond})
	sc := preset(t, "paused-holder", true)
	var script []*wsClient
	for range 4 {
		c := dialFrom(t, ts.URL, "127.0.0.2", nil)
		c.send(map[string]any{"type": "start", "scenario": sc, "speed": 0.1, "paused": true})
		c.until(web.MsgState)
		script = append(script, c)
	}
	mate := dialFrom(t, ts.URL, "127.0.0.3", nil)
	mate.send(map[string]any{"type": "start", "scenario": sc, "speed": 1})
	if pos := mate.queued(); pos != 1 {
		t.Fatalf("the classmate told place %d, want 1", pos)
	}
	mate.started()
	if n := metricValue(t, ts.URL, "playground_live_runs_turn_over_total"); n != 1 {
		t.Errorf("%g runs ended for the classmate's turn, want 1", n)
	}
	if n := srv.LiveRuns(); n != 4 {
		t.Errorf("%d live runs, want 4: three of the script's and the classmate's", n)
	}
	ended := 0
	for _, c := range script {
		c.send(map[string]any{"type": "stop"})
		for _, m := range c.until(web.MsgSummary) {
			if m.Type == web.MsgError && m.Code == "turn_over" {
				ended++
			}
		}
	}
	if ended != 1 {
		t.Errorf("%d of the script's runs were told their turn was over, want 1", ended)
	}
}
