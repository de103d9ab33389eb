package web

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/leaselab/playground/engine"
)

// TestSessionEndingDuringTheHandOverFreesItsSlot ends sessions at the
// moment the reader holds a message it has not handed over yet, as when a
// client resets its connection while a message is queued, or the writer
// gives up on it. Every such session must end and give back its
// connection slot. (Before the fix the session's loop could pick the
// closed message channel and then wait for ever for a read error nobody
// would send: about every other session leaked.)
func TestSessionEndingDuringTheHandOverFreesItsSlot(t *testing.T) {
	srv, err := NewServer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v (a session never ended)", err)
		}
	}()
	// The first message, a start, keeps the session's loop busy
	// (starting a Raft group) while the reader holds the second: the
	// session ends then, and the loop comes back to find it ended.
	var mu sync.Mutex
	seen := map[*session]int{}
	hook := func(ss *session) {
		mu.Lock()
		seen[ss]++
		n := seen[ss]
		mu.Unlock()
		if n == 2 {
			ss.cancel()
		}
	}
	handoverHook.Store(&hook)
	defer handoverHook.Store(nil)
	p, err := engine.LoadPreset("paused-holder")
	if err != nil {
		t.Fatal(err)
	}
	start, _ := json.Marshal(map[string]any{"type": "start", "speed": 1, "scenario": p.Scenario})

	const sessions = 40
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/run"
	for i := range sessions {
		c, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		for _, m := range [][]byte{start, []byte(`{"type":"pause"}`)} {
			if err := c.WriteMessage(websocket.TextMessage, m); err != nil {
				t.Fatalf("send %d: %v", i, err)
			}
		}
		// The server ends the session by itself; the client only waits.
		c.SetReadDeadline(time.Now().Add(15 * time.Second))
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("session %d was not ended by the server", i)
				}
				break
			}
		}
		c.Close()
	}
	deadline := time.Now().Add(30 * time.Second)
	for srv.Connections() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d connection slots never freed", srv.Connections(), sessions)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
