package web_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/leaselab/playground/web"
)

// TestIdleSocketsCannotTakeEveryPlace plays hole 1 of the hostile
// client: a script at one address opens plain websockets that answer
// pings and never run anything. It gets its address's share and no more;
// a classmate at another address still opens a socket and runs; a
// teacher's dashboard opens however full the websockets are.
func TestIdleSocketsCannotTakeEveryPlace(t *testing.T) {
	st := openSQLite(t)
	ts, _ := startServer(t, web.Config{Classroom: st, MaxConnections: 8, ConnectionsPerAddress: 5, IdleTimeout: time.Hour})
	class := createClass(t, ts.URL, "Attacked")

	refused := 0
	for range 20 {
		if c, status := tryDialFrom(t, ts.URL, "127.0.0.2", nil); c == nil {
			if status != http.StatusTooManyRequests {
				t.Fatalf("the script's socket past its share: status %d, want 429", status)
			}
			refused++
		}
	}
	if refused != 15 {
		t.Errorf("the script had %d of 20 sockets refused, want 15 (a share of 5)", refused)
	}
	mate := dialFrom(t, ts.URL, "127.0.0.3", nil)
	mate.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 0})
	if msgs := mate.until(web.MsgSummary); msgs[len(msgs)-1].Stopped {
		t.Errorf("the classmate's run was stopped")
	}
	// A second script address fills the server: now nobody gets a socket,
	// but the teacher's dashboard has a pool of its own.
	for range 2 {
		dialFrom(t, ts.URL, "127.0.0.4", nil)
	}
	if _, status := tryDialFrom(t, ts.URL, "127.0.0.5", nil); status != http.StatusServiceUnavailable {
		t.Errorf("a socket past the server's cap: status %d, want 503", status)
	}
	s, res := openStream(t, clientFrom("127.0.0.6"), ts.URL, class.Code, class.TeacherKey)
	if s == nil {
		t.Fatalf("the teacher's dashboard beside full websockets: %s", res.Status)
	}
}

// TestIdleSocketsAreClosed: sockets that start no run are closed after the
// idle timeout with a normal close saying why, so a script's idle sockets
// give their places back and a classmate refused while they were open gets
// in. A socket with a run going is not closed.
func TestIdleSocketsAreClosed(t *testing.T) {
	ts, _ := startServer(t, web.Config{MaxConnections: 4, ConnectionsPerAddress: 2, IdleTimeout: 300 * time.Millisecond})
	var idle []*wsClient
	for _, ip := range []string{"127.0.0.2", "127.0.0.2", "127.0.0.3"} {
		idle = append(idle, dialFrom(t, ts.URL, ip, nil))
	}
	runner := dialFrom(t, ts.URL, "127.0.0.4", nil)
	runner.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1, "paused": true})
	runner.until(web.MsgState)
	if _, status := tryDialFrom(t, ts.URL, "127.0.0.5", nil); status != http.StatusServiceUnavailable {
		t.Fatalf("the classmate while every place is taken: status %d, want 503", status)
	}
	for i, c := range idle {
		c.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, _, err := c.conn.ReadMessage()
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.CloseNormalClosure || ce.Text != "idle: no run started" {
			t.Errorf("idle socket %d: %v, want a normal close for idleness", i, err)
		}
	}
	var mate *wsClient
	deadline := time.Now().Add(30 * time.Second)
	for mate == nil {
		mate, _ = tryDialFrom(t, ts.URL, "127.0.0.5", nil)
		if mate == nil {
			if time.Now().After(deadline) {
				t.Fatal("the classmate never got a socket after the idle ones closed")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	mate.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 0})
	mate.until(web.MsgSummary)
	// The paused run kept its socket open through all of it.
	runner.send(map[string]any{"type": "stop"})
	runner.until(web.MsgSummary)
}
