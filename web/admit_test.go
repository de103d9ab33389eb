package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// reply is an HTTP response as a test reads it.
type reply struct {
	status int
	retry  string
	body   map[string]any
	err    error
}

// postAsync sends a JSON POST on its own goroutine; the answer arrives on
// the channel.
func postAsync(url, body string, cookies ...*http.Cookie) <-chan reply {
	out := make(chan reply, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for _, c := range cookies {
			req.AddCookie(c)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- reply{err: err}
			return
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		a := reply{status: res.StatusCode, retry: res.Header.Get("Retry-After")}
		if err := json.Unmarshal(data, &a.body); err != nil {
			a.err = fmt.Errorf("not JSON (%d): %s", res.StatusCode, data)
		}
		out <- a
	}()
	return out
}

func await(t *testing.T, ch <-chan reply) reply {
	t.Helper()
	select {
	case a := <-ch:
		if a.err != nil {
			t.Fatal(a.err)
		}
		return a
	case <-time.After(60 * time.Second):
		t.Fatal("no answer within a minute")
	}
	return reply{}
}

// queued reads messages until the run is told its place, and returns it.
func (c *wsClient) queued() int {
	c.t.Helper()
	for {
		m := c.recv()
		switch m.Type {
		case web.MsgQueued:
			return m.Position
		case web.MsgEvent, web.MsgState, web.MsgSummary, web.MsgError:
			c.t.Fatalf("got %+v, want to be told a place in line", m)
		}
	}
}

// started reads messages until the run's first event: it has its slot
// and runs.
func (c *wsClient) started() {
	c.t.Helper()
	for {
		m := c.recv()
		switch m.Type {
		case web.MsgEvent:
			return
		case web.MsgQueued, web.MsgSummary, web.MsgError:
			c.t.Fatalf("got %+v, want the run to start", m)
		}
	}
}

// holdSlot starts a run at full speed, paused: it holds a live place and
// a slot until it is stopped.
func holdSlot(t *testing.T, url string) *wsClient {
	t.Helper()
	c := dial(t, url, nil)
	c.send(map[string]any{"type": "start", "scenario": preset(t, "nightly-total", true), "speed": 0, "paused": true})
	for {
		if m := c.recv(); m.Type == web.MsgState {
			return c
		} else if m.Type != web.MsgQueued {
			t.Fatalf("holding a slot: %+v", m)
		}
	}
}

// oneSlot is a server with one slot and one live place.
var oneSlot = web.Config{RunSlots: 1, MaxLiveRuns: 1, QueueWait: 30 * time.Second}

func TestARunPastTheSlotsWaitsItsTurnToldItsPlace(t *testing.T) {
	ts, srv := startServer(t, oneSlot)
	a, b, c := dial(t, ts.URL, nil), dial(t, ts.URL, nil), dial(t, ts.URL, nil)
	a.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1})
	a.started()
	b.send(map[string]any{"type": "start", "scenario": preset(t, "ride-claim", false), "speed": 0})
	if pos := b.queued(); pos != 1 {
		t.Errorf("second run told place %d, want 1", pos)
	}
	c.send(map[string]any{"type": "start", "scenario": preset(t, "ride-claim", false), "speed": 0})
	if pos := c.queued(); pos != 2 {
		t.Errorf("third run told place %d, want 2", pos)
	}
	if n := srv.QueuedRuns(); n != 2 {
		t.Errorf("%d runs waiting, want 2", n)
	}
	// Stopping the first lets the second start; the third moves up.
	a.send(map[string]any{"type": "stop"})
	a.until(web.MsgSummary)
	if msgs := b.until(web.MsgSummary); msgs[len(msgs)-1].Summary.ClaimsWon != 1 || len(events(msgs)) == 0 {
		t.Errorf("second run after its wait: %+v", msgs[len(msgs)-1])
	}
	// The third is told it moved to place 1, unless its turn came first.
	for _, m := range c.until(web.MsgSummary) {
		if m.Type == web.MsgQueued && m.Position != 1 {
			t.Errorf("third run moved to place %d, want 1", m.Position)
		}
	}
	waitFor(t, func() bool { return srv.LiveRuns() == 0 && srv.QueuedRuns() == 0 })
}

func TestAnAPIRunWaitsForASlotThenSays503WithRetryAfter(t *testing.T) {
	cfg := oneSlot
	cfg.QueueWait = 300 * time.Millisecond
	ts, srv := startServer(t, cfg)
	holdSlot(t, ts.URL)
	got := await(t, postAsync(ts.URL+"/api/run", string(preset(t, "ride-claim", false))))
	msg, _ := got.body["error"].(string)
	if got.status != http.StatusServiceUnavailable || got.retry == "" || got.body["code"] != "busy" ||
		!strings.Contains(msg, "no simulation slot came free within 300ms") || !strings.Contains(msg, "try again") {
		t.Errorf("API run past the slots: %d Retry-After %q %v", got.status, got.retry, got.body)
	}
	if n := srv.QueuedRuns(); n != 0 {
		t.Errorf("%d runs still waiting after the refusal", n)
	}
}

func TestAnAPIRunAndACheckStartWhenTheSlotFrees(t *testing.T) {
	ts, srv := startServer(t, oneSlot)
	a := holdSlot(t, ts.URL)
	run := postAsync(ts.URL+"/api/run", string(preset(t, "ride-claim", false)))
	waitFor(t, func() bool { return srv.QueuedRuns() == 1 })
	check := postAsync(ts.URL+"/api/exercises/long-job-config/check", scenarioAnswer)
	waitFor(t, func() bool { return srv.QueuedRuns() == 2 })
	// Arithmetic never runs the engine, so it takes no slot.
	if status, res := checkAnswer(t, ts.URL, "outlive-lease", `{"answer":"50"}`); status != 200 || res["correct"] != true {
		t.Errorf("number check while the slot is taken: %d %v", status, res)
	}
	a.send(map[string]any{"type": "stop"})
	if got := await(t, run); got.status != 200 || got.body["summary"] == nil {
		t.Errorf("API run after its wait: %d %v", got.status, got.body)
	}
	if got := await(t, check); got.status != 200 || got.body["timeline"] == nil {
		t.Errorf("check after its wait: %d %v", got.status, got.body["feedback"])
	} else if runs, _ := got.body["runs"].([]any); len(runs) != 4 {
		t.Errorf("the check reported %d runs, want 4", len(runs))
	}
	waitFor(t, func() bool { return srv.LiveRuns() == 0 && srv.QueuedRuns() == 0 })
}

// scenarioAnswer is an answer to a scenario exercise: four engine runs,
// never cached.
const scenarioAnswer = `{"answer":"{\"lock.lease\":\"30s\",\"clients[client-1].renew_every\":\"10s\"}"}`

func checkAnswer(t *testing.T, url, id, body string) (int, map[string]any) {
	t.Helper()
	a := await(t, postAsync(url+"/api/exercises/"+id+"/check", body))
	return a.status, a.body
}

func TestStopWhileWaitingLeavesTheLine(t *testing.T) {
	ts, srv := startServer(t, oneSlot)
	a, b := dial(t, ts.URL, nil), dial(t, ts.URL, nil)
	a.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1})
	a.started()
	b.send(map[string]any{"type": "start", "scenario": preset(t, "ride-claim", false), "speed": 0})
	b.queued()
	b.send(map[string]any{"type": "stop"})
	if m := b.recv(); m.Type != web.MsgError || m.Code != "stopped" || !strings.Contains(m.Message, "before it started") {
		t.Errorf("stop while waiting: %+v", m)
	}
	waitFor(t, func() bool { return srv.QueuedRuns() == 0 })
	// The connection is free for another run.
	a.send(map[string]any{"type": "stop"})
	a.until(web.MsgSummary)
	b.send(map[string]any{"type": "start", "scenario": preset(t, "ride-claim", false), "speed": 0})
	b.until(web.MsgSummary)
}

func TestControlsSentBeforeTheRunStartsApplyWhenItStarts(t *testing.T) {
	ts, _ := startServer(t, oneSlot)
	a, b := dial(t, ts.URL, nil), dial(t, ts.URL, nil)
	a.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1})
	a.started()
	b.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 0})
	b.queued()
	b.send(map[string]any{"type": "inject", "fault": map[string]any{"do": "pause", "target": "client-2", "for": "30s"}})
	// b's reader answers a message it cannot read at once, after the
	// inject before it: once that answer is here the inject is held.
	// Without it a's stop (another connection, another goroutine) could
	// start b's run before b's reader took the inject.
	b.send(map[string]any{"type": "no-such-type"})
	if m := b.recv(); m.Type != web.MsgError || m.Code != "bad_message" {
		t.Fatalf("answer to an unknown type: %+v", m)
	}
	a.send(map[string]any{"type": "stop"})
	msgs := b.until(web.MsgSummary)
	var paused bool
	for _, e := range events(msgs) {
		if e.Kind == engine.KindPauseStart && e.Actor == "client-2" && e.T == 0 {
			paused = true
		}
	}
	if !paused {
		t.Errorf("the pause sent while the run waited is not in its timeline at 0 s: %v", events(msgs))
	}
}

func TestOneClientWithoutASessionCannotTakeEverySlot(t *testing.T) {
	// Four slots, each fitting two watched runs: one client without a
	// session may hold a quarter (two watched runs); others start at once.
	// A run has started when its first event arrives: a state message the
	// writer had not sent yet is replaced by a later one, so on a busy
	// machine an event may come first.
	ts, srv := startServer(t, web.Config{RunSlots: 4, MaxLiveRuns: 8})
	for i := range 3 {
		c := dial(t, ts.URL, nil)
		c.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1})
		if i < 2 {
			c.started()
		} else if pos := c.queued(); pos != 1 {
			t.Errorf("the script's third run told place %d, want 1", pos)
		}
	}
	// Someone else (another address) starts at once.
	other := dialFrom(t, ts.URL, "127.0.0.3", nil)
	other.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1})
	other.started() // not told a place in line
	if n := srv.LiveRuns(); n != 3 {
		t.Errorf("%d runs live, want 3", n)
	}
}

func TestGoingFullSpeedWaitsForASlot(t *testing.T) {
	// One slot, taken by a paused run at full speed. A watched run asks
	// for full speed: it needs a slot, so it goes on at its pace until the
	// slot frees, told the speed it goes at and its place, then finishes
	// at full speed, told so.
	ts, srv := startServer(t, web.Config{RunSlots: 1, MaxLiveRuns: 8})
	holder := holdSlot(t, ts.URL)
	a := dial(t, ts.URL, nil)
	a.send(map[string]any{"type": "start", "scenario": preset(t, "nightly-total", true), "speed": 1})
	a.started()
	if n := srv.QueuedRuns(); n != 0 {
		t.Fatalf("%d runs waiting, want none: a watched run needs no slot", n)
	}
	a.send(map[string]any{"type": "speed", "speed": 0})
	if got := speedsUntil(a, web.MsgQueued); !slices.Equal(got.speeds, []float64{1}) || got.last.Waiting != "new speed" || got.last.Position != 1 {
		t.Fatalf("asking for full speed: told speeds %v, then %+v; want 1, then place 1 for the new speed", got.speeds, got.last)
	}
	waitFor(t, func() bool { return srv.QueuedRuns() == 1 }) // waiting for the slot
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
	got := speedsUntil(a, web.MsgSummary)
	if !slices.Equal(got.speeds, []float64{0}) {
		t.Errorf("once the slot came, told speeds %v, want 0", got.speeds)
	}
	if got.last.Stopped {
		t.Errorf("the run at full speed was stopped: %+v", got.last)
	}
	waitFor(t, func() bool { return srv.LiveRuns() == 0 && srv.QueuedRuns() == 0 })
}

// TestASpeedUpRefusedOrGivenUp: a faster speed that waits for a slot is
// given up when a slower one is asked meanwhile (the run is told the speed
// it goes at), and refused, saying why, when the line is full: the run
// goes on at its speed.
func TestASpeedUpRefusedOrGivenUp(t *testing.T) {
	const line = 4 // the least a line may hold: one session's share of it
	ts, srv := startServer(t, web.Config{RunSlots: 1, RunQueue: line, MaxLiveRuns: 8, SessionShare: 1, AddressShare: 1})
	holder := holdSlot(t, ts.URL)
	a := dial(t, ts.URL, nil)
	a.send(map[string]any{"type": "start", "scenario": preset(t, "nightly-total", true), "speed": 1})
	a.started()
	a.send(map[string]any{"type": "speed", "speed": 0})
	speedsUntil(a, web.MsgQueued)
	a.send(map[string]any{"type": "speed", "speed": 2})
	if got := speedsUntil(a, web.MsgSpeed); *got.last.Speed != 2 {
		t.Errorf("a slower speed asked while the faster waited: told %v, want 2", *got.last.Speed)
	}
	waitFor(t, func() bool { return srv.QueuedRuns() == 0 })

	var waiting []<-chan reply
	for range line {
		waiting = append(waiting, postAsync(ts.URL+"/api/run", string(preset(t, "ride-claim", false))))
	}
	waitFor(t, func() bool { return srv.QueuedRuns() == line })
	a.send(map[string]any{"type": "speed", "speed": 0})
	got := speedsUntil(a, web.MsgError)
	if !slices.Equal(got.speeds, []float64{2}) || got.last.Field != "speed" ||
		!strings.HasPrefix(got.last.Message, "the run goes on at 2 s per second: the faster speed could not wait for a free slot (") || got.last.Stopped {
		t.Errorf("full speed with the line full: told speeds %v, then %+v", got.speeds, got.last)
	}
	holder.send(map[string]any{"type": "stop"})
	for _, w := range waiting {
		await(t, w)
	}
	a.send(map[string]any{"type": "stop"})
	if got := speedsUntil(a, web.MsgSummary); len(got.speeds) != 0 {
		t.Errorf("told speeds %v after the refusal, want none", got.speeds)
	}
}

// toldSpeeds is what speedsUntil read: the speeds a run was told it goes
// at, and the message it stopped at.
type toldSpeeds struct {
	speeds []float64
	last   web.ServerMessage
}

// speedsUntil reads a live run's messages up to one of type typ, keeping
// the speeds it was told; a summary or an error before it fails the test.
func speedsUntil(c *wsClient, typ string) toldSpeeds {
	c.t.Helper()
	var out toldSpeeds
	for {
		m := c.recv()
		switch {
		case m.Type == typ:
			out.last = m
			return out
		case m.Type == web.MsgSpeed:
			out.speeds = append(out.speeds, *m.Speed)
		case m.Type == web.MsgSummary || m.Type == web.MsgError:
			c.t.Fatalf("got %+v, waiting for %s", m, typ)
		}
	}
}

func TestShutdownAnswersEveryRequestInFlight(t *testing.T) {
	cfg := oneSlot
	cfg.QueueWait = time.Minute
	ts, srv := startServer(t, cfg)
	a, b := holdSlot(t, ts.URL), dial(t, ts.URL, nil)
	b.send(map[string]any{"type": "start", "scenario": preset(t, "ride-claim", false), "speed": 0})
	b.queued()
	run := postAsync(ts.URL+"/api/run", string(preset(t, "ride-claim", false)))
	check := postAsync(ts.URL+"/api/exercises/long-job-config/check", scenarioAnswer)
	deadline := time.Now().Add(20 * time.Second)
	for srv.QueuedRuns() != 3 {
		if time.Now().After(deadline) {
			select {
			case a := <-run:
				t.Logf("run answered %d %v", a.status, a.body)
			case a := <-check:
				t.Logf("check answered %d %v", a.status, a.body)
			default:
			}
			t.Fatalf("%d runs waiting, %d live; want 3 waiting", srv.QueuedRuns(), srv.LiveRuns())
		}
		time.Sleep(5 * time.Millisecond)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(t.Context()) }()
	for name, ch := range map[string]<-chan reply{"run": run, "check": check} {
		got := await(t, ch)
		if got.status != http.StatusServiceUnavailable || got.retry == "" || !strings.Contains(fmt.Sprint(got.body["error"]), "shutting down") {
			t.Errorf("%s during shutdown: %d Retry-After %q %v", name, got.status, got.retry, got.body)
		}
	}
	for name, c := range map[string]*wsClient{"running": a, "waiting": b} {
		var last web.ServerMessage
		c.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		for {
			var m web.ServerMessage
			if err := c.conn.ReadJSON(&m); err != nil {
				break
			}
			last = m
		}
		if last.Type != web.MsgError || last.Code != "shutdown" {
			t.Errorf("%s websocket's last message %+v, want the shutdown notice", name, last)
		}
	}
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if n, q := srv.LiveRuns(), srv.QueuedRuns(); n != 0 || q != 0 {
		t.Errorf("after Shutdown: %d live, %d waiting", n, q)
	}
}

// TestTheNextRunStartsRightAfterTheSummary: a browser that sends the next
// start as soon as it reads a summary is never told a run is live, since
// the run's slot is given back before its summary is sent.
func TestTheNextRunStartsRightAfterTheSummary(t *testing.T) {
	ts, srv := startServer(t, web.Config{})
	c := dial(t, ts.URL, nil)
	for i := range 20 {
		c.send(map[string]any{"type": "start", "scenario": preset(t, "ride-claim", false), "speed": 0})
		for {
			m := c.recv()
			if m.Type == web.MsgError {
				t.Fatalf("run %d: %+v", i, m)
			}
			if m.Type == web.MsgSummary {
				break
			}
		}
	}
	waitFor(t, func() bool { return srv.LiveRuns() == 0 })
}
