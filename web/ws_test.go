package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// wsClient is a browser stand-in on /ws/run.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

func dial(t *testing.T, baseURL string, header http.Header) *wsClient {
	t.Helper()
	conn, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(baseURL, "http")+"/ws/run", header)
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		t.Fatalf("dial: %v (status %d)", err, status)
	}
	t.Cleanup(func() { conn.Close() })
	return &wsClient{t, conn}
}

func (c *wsClient) send(v any) {
	c.t.Helper()
	if err := c.conn.WriteJSON(v); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// recv reads the next message, failing after a few seconds.
func (c *wsClient) recv() web.ServerMessage {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	var m web.ServerMessage
	if err := c.conn.ReadJSON(&m); err != nil {
		c.t.Fatalf("recv: %v", err)
	}
	return m
}

// until reads messages until one of type typ arrives, returning all of them.
func (c *wsClient) until(typ string) []web.ServerMessage {
	c.t.Helper()
	var out []web.ServerMessage
	for {
		m := c.recv()
		out = append(out, m)
		if m.Type == typ {
			return out
		}
	}
}

func preset(t testing.TB, name string, fencing bool) json.RawMessage {
	t.Helper()
	p, err := engine.LoadPreset(name)
	if err != nil {
		t.Fatal(err)
	}
	p.Scenario.Fencing = fencing
	b, _ := json.Marshal(p.Scenario)
	return b
}

func events(ms []web.ServerMessage) []engine.Event {
	var out []engine.Event
	for _, m := range ms {
		if m.Type == web.MsgEvent {
			out = append(out, *m.Event)
		}
	}
	return out
}

func TestWebsocketStreamsEveryEventAndTheSummary(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	c := dial(t, ts.URL, nil)
	sc := preset(t, "paused-holder", false)
	c.send(map[string]any{"type": "start", "scenario": sc, "speed": 0})
	msgs := c.until(web.MsgSummary)

	parsed, _ := engine.DecodeScenario(sc)
	want := mustRun(t, parsed)
	got := events(msgs)
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want.Events)
	if string(gj) != string(wj) {
		t.Fatalf("streamed events differ from engine.Execute:\n got %s\nwant %s", gj, wj)
	}
	last := msgs[len(msgs)-1]
	if *last.Summary != want.Summary || !strings.Contains(last.Verdict, "stale write accepted") || last.Stopped {
		t.Errorf("summary %+v verdict %q stopped %v", last.Summary, last.Verdict, last.Stopped)
	}
	// Every event comes with its words, and the state messages fold to
	// the end state: the lock free, the stale write's value stored.
	var state *web.State
	for _, m := range msgs {
		if m.Type == web.MsgEvent && m.Text != engine.Describe(*m.Event) {
			t.Errorf("event text %q, want %q", m.Text, engine.Describe(*m.Event))
		}
		if m.Type == web.MsgState {
			state = m.State
		}
	}
	if state == nil || state.Lock.Holder != "" || state.Storage.Value != 42000 || len(state.Nodes) != 3 || state.Nodes[0].Role != "leader" {
		t.Errorf("final state %+v", state)
	}
}

func TestWebsocketInjectAPauseMidRun(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	c := dial(t, ts.URL, nil)
	// Without its scheduled pause, paused-holder is safe; a pause injected
	// live must freeze client-1 and show in the timeline.
	var sc engine.Scenario
	json.Unmarshal(preset(t, "paused-holder", false), &sc)
	sc.Faults = nil
	c.send(map[string]any{"type": "start", "scenario": sc, "speed": 2})
	for {
		m := c.recv()
		if m.Type == web.MsgEvent && m.Event.Kind == engine.KindRenewed && m.Event.Actor == "client-1" {
			break
		}
	}
	// Pausing first makes the moment of the injection independent of how
	// busy the machine is: a fault injected while paused strikes at the
	// paused time (the renewal at 3 s, with half a wall second to spare).
	c.send(map[string]any{"type": "pause"})
	c.send(map[string]any{"type": "inject", "fault": map[string]any{"do": "pause", "target": "client-1", "for": "15s"}})
	c.send(map[string]any{"type": "speed", "speed": 0})
	c.send(map[string]any{"type": "resume"})
	msgs := c.until(web.MsgSummary)
	var pause *engine.Event
	for _, e := range events(msgs) {
		if e.Kind == engine.KindPauseStart && e.Actor == "client-1" {
			pause = &e
			break
		}
	}
	if pause == nil {
		t.Fatal("no pause_start for client-1 after the inject")
	}
	if pause.T < 3000 || pause.T >= 4000 || pause.Until != pause.T+15000 {
		t.Errorf("pause at %d until %d, want after the renewal at 3s, before the write at 4s, 15s long", pause.T, pause.Until)
	}
	if last := msgs[len(msgs)-1]; last.Summary.StaleWritesAccepted != 1 {
		t.Errorf("the injected pause did not make client-1's write stale: %+v", last.Summary)
	}
}

func TestWebsocketPauseStepResume(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	stepAndResume(t, dial(t, ts.URL, nil))
}

// stepAndResume reads on a goroutine, because checking for silence needs
// timeouts and a gorilla connection cannot be read after one.
func stepAndResume(t *testing.T, c *wsClient) {
	t.Helper()
	msgs := make(chan web.ServerMessage, 1000)
	go func() {
		defer close(msgs)
		for {
			var m web.ServerMessage
			if err := c.conn.ReadJSON(&m); err != nil {
				return
			}
			msgs <- m
		}
	}()
	next := func(timeout time.Duration) (web.ServerMessage, bool) {
		select {
		case m, ok := <-msgs:
			return m, ok
		case <-time.After(timeout):
			return web.ServerMessage{}, false
		}
	}
	// Started paused (and told to pause, as a browser does): the run's
	// first state comes, then no event at all until a step. A run started
	// and then paused would have sent the events of however long the
	// machine took to apply the pause, which no wait can bound.
	c.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1, "paused": true})
	c.send(map[string]any{"type": "pause"})
	for m, ok := next(60 * time.Second); m.Type != web.MsgState; m, ok = next(60 * time.Second) {
		if !ok || m.Type == web.MsgEvent || m.Type == web.MsgError {
			t.Fatalf("before the first state of a paused run: %+v (%v)", m, ok)
		}
	}
	if m, ok := next(500 * time.Millisecond); ok {
		t.Fatalf("message while paused: %+v", m)
	}
	// Step: the next scheduler step's events (one actor's turn may emit
	// more than one), then silence again.
	c.send(map[string]any{"type": "step"})
	m, ok := next(5 * time.Second)
	for ok && m.Type != web.MsgEvent {
		m, ok = next(5 * time.Second)
	}
	if !ok {
		t.Fatal("no event after step")
	}
	stepT := m.Event.T
	for {
		m, ok := next(500 * time.Millisecond)
		if !ok {
			break
		}
		if m.Type == web.MsgEvent && m.Event.T != stepT {
			t.Fatalf("the run went on after one step: %+v", m.Event)
		}
	}
	// Resume at full speed: the rest of the run and its summary.
	c.send(map[string]any{"type": "speed", "speed": 0})
	c.send(map[string]any{"type": "resume"})
	for {
		m, ok := next(10 * time.Second)
		if !ok {
			t.Fatal("no summary after resume")
		}
		if m.Type == web.MsgSummary {
			if !strings.Contains(m.Verdict, "every stale write was refused") {
				t.Errorf("verdict %q", m.Verdict)
			}
			return
		}
	}
}

func TestWebsocketBadMessagesGetErrorsNamingTheProblem(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	c := dial(t, ts.URL, nil)
	for _, tc := range []struct {
		msg         string
		field, code string
		want        string
	}{
		{`{"type":`, "message", "bad_message", "message: is not valid JSON"},
		{`[1,2]`, "message", "bad_message", "message: must be a JSON object with type, scenario, speed, fault, paused or messages"},
		{`{"type":"pause"} {"type":"stop"}`, "message", "bad_message", "more than one JSON value"},
		{`{"type":5}`, "type", "bad_message", "type: must be a string"},
		{`{"type":"start","speed":"fast"}`, "speed", "bad_message", "speed: must be a number between 0 (as fast as possible) and 1000, not a string"},
		{`{"type":"start","speed":1e400}`, "speed", "bad_message", "speed: must be a number between 0 (as fast as possible) and 1000, not 1e400"},
		{`{"type":"dance"}`, "type", "bad_message", "unknown message type"},
		{`{"type":"pause","extra":1}`, "extra", "bad_message", "extra: is not a field of this message, which takes type, scenario, speed, fault, paused or messages"},
		{`{"type":"pause"}`, "type", "no_run", "needs a live run"},
		{`{"type":"start"}`, "scenario", "bad_message", "is required"},
		// A value out of range is "invalid", on start as on a speed change
		// (a message that cannot be read is "bad_message").
		{`{"type":"start","speed":-1,"scenario":{}}`, "speed", "invalid", "speed: must be a number between 0 (as fast as possible) and 1000, not -1"},
		{`{"type":"start","scenario":{"clients":[{"name":"a","steps":[{"do":"fly"}]}]}}`, "clients[0].steps[0].do", "invalid", "unknown step"},
	} {
		if err := c.conn.WriteMessage(websocket.TextMessage, []byte(tc.msg)); err != nil {
			t.Fatal(err)
		}
		m := c.recv()
		if m.Type != web.MsgError || m.Field != tc.field || m.Code != tc.code || !strings.Contains(m.Message, tc.want) {
			t.Errorf("%s: got %+v, want error %s on %q containing %q", tc.msg, m, tc.code, tc.field, tc.want)
		}
	}
	// A bad fault during a live run names the fault's field, whether the
	// engine refuses it or it cannot be read at all.
	c.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1})
	for _, tc := range []struct {
		fault       any
		field, want string
	}{
		{map[string]any{"do": "pause", "target": "client-9", "for": "1s"}, "fault.target", "client-9"},
		{map[string]any{"do": 5}, "fault.do", "fault.do: must be a string"},
		{map[string]any{"do": "pause", "whom": "client-1"}, "fault.whom", "fault.whom: is not a field of a fault, which takes at, do, target"},
		{"pause", "fault", "fault: must be a JSON object with at, do"},
	} {
		c.send(map[string]any{"type": "inject", "fault": tc.fault})
		for {
			m := c.recv()
			if m.Type == web.MsgError {
				if m.Field != tc.field || !strings.Contains(m.Message, tc.want) {
					t.Errorf("inject %v: error %+v, want field %s and %q", tc.fault, m, tc.field, tc.want)
				}
				break
			}
		}
	}
	// The connection still works.
	c.send(map[string]any{"type": "stop"})
	if m := c.until(web.MsgSummary); !m[len(m)-1].Stopped {
		t.Error("stopped run's summary is not marked stopped")
	}
}

func TestWebsocketOversizeMessageIsToldItsLimitThenClosedWith1009(t *testing.T) {
	ts, _ := startServer(t, web.Config{MaxMessageBytes: 2048})
	c := dial(t, ts.URL, nil)
	// Good messages up to the limit are read; the first over it is refused
	// naming the limit, and then the connection closes with 1009.
	fits := `{"type":"pause","scenario":"` + strings.Repeat("x", 2048-len(`{"type":"pause","scenario":""}`)) + `"}`
	if err := c.conn.WriteMessage(websocket.TextMessage, []byte(fits)); err != nil {
		t.Fatal(err)
	}
	if m := c.recv(); m.Type != web.MsgError || m.Code != "no_run" {
		t.Errorf("a message of exactly the limit: %+v, want it read (no_run)", m)
	}
	if err := c.conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"start","scenario":{"title":"`+strings.Repeat("x", 4096)+`"}}`)); err != nil {
		t.Fatal(err)
	}
	m := c.recv()
	if m.Type != web.MsgError || m.Field != "message" || m.Code != "too_large" ||
		m.Message != "message: is larger than the limit of 2048 bytes; the connection is closed" {
		t.Errorf("answer to an oversize message: %+v, want an error naming the limit of 2048 bytes", m)
	}
	c.conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	_, _, err := c.conn.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Errorf("read after the error: %v, want close 1009", err)
	}
}

func TestWebsocketMessageRateIsBounded(t *testing.T) {
	ts, _ := startServer(t, web.Config{MessageRate: 5})
	c := dial(t, ts.URL, nil)
	for range 30 {
		if c.conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"pause"}`)) != nil {
			break
		}
	}
	var last web.ServerMessage
	c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		var m web.ServerMessage
		err := c.conn.ReadJSON(&m)
		if err != nil {
			if !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
				t.Errorf("end of connection: %v, want close 1008", err)
			}
			break
		}
		last = m
	}
	if last.Code != "too_fast" || !strings.Contains(last.Message, "at most 5 a second") {
		t.Errorf("last message %+v, want a too_fast error", last)
	}
}

func TestWebsocketForeignOriginIs403(t *testing.T) {
	// Written as an operator might, with a capital and a trailing slash:
	// the upgrade trusts it as the cross-site guard of the POSTs does.
	ts, _ := startServer(t, web.Config{AllowedOrigins: []string{"https://Class.example/"}})
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/run"
	_, res, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {"https://evil.example"}})
	if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("foreign origin: err %v, response %v; want 403", err, res)
	}
	for _, origin := range []string{ts.URL, "https://class.example"} {
		conn, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {origin}})
		if err != nil {
			t.Errorf("origin %s refused: %v", origin, err)
			continue
		}
		conn.Close()
	}
}

func TestWebsocketClosingTheConnectionEndsTheRun(t *testing.T) {
	ts, srv := startServer(t, web.Config{})
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c := dial(t, ts.URL, nil)
	c.send(map[string]any{"type": "start", "scenario": preset(t, "nightly-total", true), "speed": 1})
	c.recv()
	waitFor(t, func() bool { return srv.LiveRuns() == 1 })
	c.conn.Close()
	waitFor(t, func() bool { return srv.LiveRuns() == 0 })
}

func TestShutdownEndsLiveRuns(t *testing.T) {
	ts, srv := startServer(t, web.Config{})
	c := dial(t, ts.URL, nil)
	c.send(map[string]any{"type": "start", "scenario": preset(t, "nightly-total", true), "speed": 1})
	c.recv()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(t.Context()) }()
	var last web.ServerMessage
	var err error
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		var m web.ServerMessage
		if err = c.conn.ReadJSON(&m); err != nil {
			break
		}
		last = m
	}
	if !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Errorf("connection ended with %v, want close 1001", err)
	}
	if last.Type != web.MsgError || last.Code != "shutdown" {
		t.Errorf("last message %+v, want the shutdown notice", last)
	}
	if err := <-done; err != nil || srv.LiveRuns() != 0 {
		t.Errorf("Shutdown: %v, %d live runs left", err, srv.LiveRuns())
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWebsocketBrowserThatStopsAnsweringIsDropped(t *testing.T) {
	ts, srv := startServer(t, web.Config{PingInterval: 50 * time.Millisecond})
	c := dial(t, ts.URL, nil)
	// Answer no pings: gorilla answers them only while reading.
	c.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1})
	waitFor(t, func() bool { return srv.LiveRuns() == 1 })
	c.send(map[string]any{"type": "pause"})
	waitFor(t, func() bool { return srv.LiveRuns() == 0 })
}

func TestWebsocketRunWallTimeIsBounded(t *testing.T) {
	ts, srv := startServer(t, web.Config{MaxRunTime: time.Second})
	c := dial(t, ts.URL, nil)
	c.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1})
	c.send(map[string]any{"type": "pause"})
	var gotErr bool
	for {
		m := c.recv()
		if m.Type == web.MsgError && m.Code == "too_long" && strings.Contains(m.Message, "at most 1s") {
			gotErr = true
		}
		if m.Type == web.MsgSummary {
			if !m.Stopped {
				t.Error("summary of a run past its time is not marked stopped")
			}
			break
		}
	}
	if !gotErr {
		t.Error("no too_long error before the summary")
	}
	waitFor(t, func() bool { return srv.LiveRuns() == 0 })
}

func TestWebsocketConnectionCapSaysBusy(t *testing.T) {
	ts, _ := startServer(t, web.Config{MaxConnections: 1})
	dial(t, ts.URL, nil)
	_, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws/run", nil)
	if err == nil || res == nil || res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("second connection: %v %+v, want 503 with Retry-After", err, res)
	}
}
