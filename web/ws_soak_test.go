package web_test

import (
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"

	"github.com/leaselab/playground/web"
)

// TestAbruptResetsLeaveNothingBehind resets connections (TCP RST, no close
// frame) while their messages are still queued on the server, three rounds
// of thirty: afterwards no connection, no live run and no goroutine of
// theirs is left.
func TestAbruptResetsLeaveNothingBehind(t *testing.T) {
	ts, srv := startServer(t, web.Config{})
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/run"
	start := map[string]any{"type": "start", "scenario": preset(t, "paused-holder", false), "speed": 5}
	for round := range 3 {
		conns := make([]*websocket.Conn, 30)
		for i := range conns {
			c, _, err := websocket.DefaultDialer.Dial(url, nil)
			if err != nil {
				t.Fatalf("round %d, dial %d: %v", round, i, err)
			}
			conns[i] = c
			// A start, then controls that queue up behind it while the
			// server starts the run.
			if err := c.WriteJSON(start); err != nil {
				t.Fatal(err)
			}
			for _, typ := range []string{"pause", "step", "resume", "pause"} {
				if err := c.WriteJSON(map[string]any{"type": typ}); err != nil {
					t.Fatal(err)
				}
			}
		}
		for i, c := range conns {
			// Some after the run started, some before: read a little.
			if i%2 == 0 {
				if _, _, err := c.ReadMessage(); err != nil {
					t.Fatalf("round %d, read %d: %v", round, i, err)
				}
			}
			reset(t, c)
		}
		waitFor(t, func() bool { return srv.Connections() == 0 && srv.LiveRuns() == 0 })
		if n, r := srv.Connections(), srv.LiveRuns(); n != 0 || r != 0 {
			t.Fatalf("round %d: %d connections and %d live runs left", round, n, r)
		}
	}
}

// reset drops a connection the way a crashed client or a broken network
// does: an RST, no websocket close.
func reset(t *testing.T, c *websocket.Conn) {
	t.Helper()
	tcp, ok := c.NetConn().(*net.TCPConn)
	if !ok {
		t.Fatalf("not a TCP connection: %T", c.NetConn())
	}
	if err := tcp.SetLinger(0); err != nil {
		t.Fatal(err)
	}
	tcp.Close()
}

// sessionGoroutines counts the goroutines running the web layer's
// websocket code (not the engine's, which belong to the runs).
func sessionGoroutines() int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "playground/web.(*session)") {
			n++
		}
	}
	return n
}

// settledSessionGoroutines waits, up to 10 s, until sessionGoroutines
// reads the same twice 50 ms apart (goroutines of a session that is
// ending, or of one that is starting, come and go) and returns it. The
// count a leak adds does not go away, so waiting hides none.
func settledSessionGoroutines(t *testing.T) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	last := sessionGoroutines()
	for {
		time.Sleep(50 * time.Millisecond)
		n := sessionGoroutines()
		if n == last || time.Now().After(deadline) {
			return n
		}
		last = n
	}
}

// TestSessionGoroutinesStayFlat streams many events to several sessions
// and checks that the web layer's goroutines per session do not grow with
// the messages: the same count after a few events and after many, and the
// same for each session.
func TestSessionGoroutinesStayFlat(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	// Sessions of earlier tests may still be winding down: count once the
	// number has settled, not at whatever instant the test reaches.
	base := settledSessionGoroutines(t)
	const n = 4
	var cs []*wsClient
	for range n {
		c := dial(t, ts.URL, nil)
		c.send(map[string]any{"type": "start", "scenario": preset(t, "nightly-total", true), "speed": 20})
		c.until(web.MsgEvent) // the run has started
		cs = append(cs, c)
	}
	early := settledSessionGoroutines(t) - base
	for _, c := range cs {
		for range 15 {
			c.recv()
		}
	}
	late := settledSessionGoroutines(t) - base
	if early != late || early%n != 0 || early/n > 4 {
		t.Errorf("web goroutines for %d sessions: %d after the first message, %d after more; want equal, the same for each session, at most 4 each", n, early, late)
	}
	t.Logf("%d web goroutines per live session", early/n)
}
