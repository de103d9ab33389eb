package web

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// stalled is a server whose websocket writers can be held, as if their
// browsers had stopped reading, and released.
type stalled struct {
	srv      *Server
	url      string
	sessions chan *session
	mu       sync.Mutex
	held     map[*session]chan struct{}
}

func newStalled(t *testing.T, cfg Config) *stalled {
	t.Helper()
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	st := &stalled{srv: srv, url: "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/run",
		sessions: make(chan *session, 16), held: map[*session]chan struct{}{}}
	onSession := func(ss *session) { st.sessions <- ss }
	onWrite := func(ss *session) {
		st.mu.Lock()
		ch := st.held[ss]
		st.mu.Unlock()
		if ch != nil {
			<-ch
		}
	}
	sessionHook.Store(&onSession)
	writeHook.Store(&onWrite)
	t.Cleanup(func() {
		st.mu.Lock()
		for _, ch := range st.held {
			select {
			case <-ch:
			default:
				close(ch)
			}
		}
		st.mu.Unlock()
		sessionHook.Store(nil)
		writeHook.Store(nil)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		ts.Close()
	})
	return st
}

// open dials a websocket and returns the client end and the server's
// session, whose writer is held before its first write.
func (st *stalled) open(t *testing.T) (*websocket.Conn, *session, func()) {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(st.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var ss *session
	select {
	case ss = <-st.sessions:
	case <-time.After(10 * time.Second):
		t.Fatal("no session")
	}
	ch := make(chan struct{})
	st.mu.Lock()
	st.held[ss] = ch
	st.mu.Unlock()
	var once sync.Once
	return c, ss, func() { once.Do(func() { close(ch) }) }
}

// waitWriting waits until the writer has taken a batch and is held.
func waitWriting(t *testing.T, ss *session) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ss.mu.Lock()
		n := ss.inflight
		ss.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the writer never took the first message")
		}
		time.Sleep(time.Millisecond)
	}
}

func readClose(t *testing.T, c *websocket.Conn) (texts []string, code int) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(15 * time.Second))
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			if ce, ok := err.(*websocket.CloseError); ok {
				return texts, ce.Code
			}
			t.Fatalf("read: %v (after %d messages)", err, len(texts))
		}
		texts = append(texts, string(data))
	}
}

func TestABrowserThatDoesNotReadIsDroppedAtItsByteBound(t *testing.T) {
	st := newStalled(t, Config{MaxQueueBytes: 64 << 10})
	c, ss, release := st.open(t)
	ss.sendErr("", "note", "first")
	waitWriting(t, ss)
	first := st.srv.wsQueued.Load()
	big := strings.Repeat("x", 4<<10)
	sent := 0
	for !ss.isClosing() {
		ss.sendErr("", "note", big)
		sent++
		if sent > 100 {
			t.Fatal("64 KiB bound not enforced after 100 messages of 4 KiB")
		}
	}
	if sent < 10 || sent > 17 {
		t.Errorf("dropped after %d messages of 4 KiB, want about 16 (64 KiB)", sent)
	}
	// The queue was freed at once, with only the message being written
	// still counted.
	if q := st.srv.wsQueued.Load(); q != first {
		t.Errorf("queued bytes after the drop %d, want %d (the first message)", q, first)
	}
	if d := counterValue(t, st.srv, "playground_websocket_dropped_total"); d != 1 {
		t.Errorf("dropped counter %v, want 1", d)
	}
	select {
	case <-ss.ctx.Done():
	default:
		t.Error("the session's context (its run) was not ended")
	}
	release()
	texts, code := readClose(t, c)
	if code != websocket.ClosePolicyViolation || len(texts) != 1 || !strings.Contains(texts[0], "first") {
		t.Errorf("browser read %d messages then close %d, want the first message then 1008", len(texts), code)
	}
	eventually(t, func() bool { return st.srv.Connections() == 0 && st.srv.wsQueued.Load() == 0 })
}

func TestQueuesTogetherStayUnderTheMemoryBudget(t *testing.T) {
	// A quarter of 64 MiB is 16 MiB for every queue together; each may
	// hold 6 MiB. Three stalled browsers: the third is dropped.
	st := newStalled(t, Config{MaxQueueBytes: 6 << 20, MemoryBudget: 64 << 20})
	big := strings.Repeat("y", 64<<10)
	var sessions []*session
	var releases []func()
	var conns []*websocket.Conn
	for range 3 {
		c, ss, release := st.open(t)
		ss.sendErr("", "note", "first")
		waitWriting(t, ss)
		sessions, releases, conns = append(sessions, ss), append(releases, release), append(conns, c)
	}
	for i, ss := range sessions {
		for n := 0; n < 90 && !ss.isClosing(); n++ { // 5.6 MiB each
			ss.sendErr("", "note", big)
		}
		if closing := ss.isClosing(); closing != (i == 2) {
			t.Errorf("session %d dropped: %v", i, closing)
		}
	}
	if q := st.srv.wsQueued.Load(); q > 16<<20 {
		t.Errorf("queued %d bytes, over the 16 MiB budget", q)
	}
	releases[2]()
	if _, code := readClose(t, conns[2]); code != websocket.CloseTryAgainLater {
		t.Errorf("third browser closed with %d, want 1013", code)
	}
	for _, r := range releases {
		r()
	}
}

func TestABrowserBehindGetsTheLatestStateAndEverySmallEventInOneWrite(t *testing.T) {
	st := newStalled(t, Config{})
	c, ss, release := st.open(t)
	ss.sendErr("", "note", "first")
	waitWriting(t, ss)
	ss.send(ServerMessage{Type: MsgState, State: &State{T: 1}})
	for i := range 50 {
		ss.send(ServerMessage{Type: MsgEvent, Text: "event " + string(rune('a'+i%26))})
	}
	ss.send(ServerMessage{Type: MsgState, State: &State{T: 2}})
	ss.wire.mu.Lock()
	before := ss.wire.writes
	ss.wire.mu.Unlock()
	release()
	var got []ServerMessage
	c.SetReadDeadline(time.Now().Add(15 * time.Second))
	for len(got) < 52 {
		var m ServerMessage
		if err := c.ReadJSON(&m); err != nil {
			t.Fatalf("read after %d: %v", len(got), err)
		}
		got = append(got, m)
	}
	states := 0
	for _, m := range got[1:] {
		if m.Type == MsgState {
			states++
			if m.State.T != 2 {
				t.Errorf("state at t=%d reached the browser, want only the latest (t=2)", m.State.T)
			}
		}
	}
	if states != 1 || got[len(got)-1].Type != MsgState {
		t.Errorf("%d state messages, want one, after the events", states)
	}
	// The first message and then the 51 waiting ones: two socket writes.
	ss.wire.mu.Lock()
	writes := ss.wire.writes - before
	ss.wire.mu.Unlock()
	if writes != 2 {
		t.Errorf("%d socket writes for the first message and 51 waiting, want 2", writes)
	}
}

// counterValue reads a series without labels from the server's registry.
func counterValue(t *testing.T, s *Server, name string) float64 {
	t.Helper()
	fams, err := s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			m := f.GetMetric()[0]
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no series %s", name)
	return 0
}

// eventually waits for cond with a generous deadline.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 15s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
