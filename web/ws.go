package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/leaselab/playground/web/admission"
)

func (s *Server) checkOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not a browser: origins protect browser users only
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return slices.ContainsFunc(s.cfg.AllowedOrigins, func(o string) bool { return strings.EqualFold(originOf(o), origin) })
}

func (s *Server) wsRun(c echo.Context) error {
	r, w := c.Request(), c.Response()
	if !s.checkOrigin(r) {
		return &userError{Status: http.StatusForbidden, Field: "Origin", Msg: "this origin may not open a websocket here"}
	}
	addr := clientAddress(c)
	// A socket of a session the server issued counts against that
	// session's places, not the address's share (connPool): a lecture
	// hall behind one NAT is many sessions.
	session := s.issuedSession(c)
	why, own, limit := s.conns.tryAcquireFor(addr, session)
	if err := s.connRefusal(c, why, "websockets", s.cfg.MaxConnections, limit); err != nil {
		return err
	}
	// The socket reads through the buffer the HTTP server read the
	// handshake with (4 KB), and writes a message through a buffer it
	// borrows for that message (wsWriteBuffers): an idle session holds no
	// write buffer.
	up := websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		WriteBufferSize:  4096, WriteBufferPool: wsWriteBuffers,
		CheckOrigin: s.checkOrigin,
	}
	// Who the session's runs are admitted for, before the upgrade: a new
	// visitor cookie goes out with the handshake's answer.
	who := s.requester(c)
	var answer http.Header
	if set := w.Header().Values("Set-Cookie"); len(set) > 0 {
		answer = http.Header{"Set-Cookie": set}
	}
	bw := &batchingWriter{ResponseWriter: w}
	conn, err := up.Upgrade(bw, r, answer)
	if err != nil {
		s.conns.releaseFor(addr, session, own)
		return nil // the upgrader has answered already
	}
	defer s.conns.releaseFor(addr, session, own)
	if !s.sessions.add() {
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "the server is shutting down"), time.Now().Add(time.Second))
		conn.Close()
		return nil
	}
	defer s.sessions.done()
	sess := newSession(s, conn, bw.conn)
	sess.who = who
	sess.learner = learnerToken(c)
	if h := sessionHook.Load(); h != nil {
		(*h)(sess)
	}
	sess.serve()
	return nil
}

// wsWriteBuffers lends every websocket its buffer for one message at a time.
var wsWriteBuffers = &sync.Pool{}

// session is one websocket: a reader (the handler's goroutine), one writer
// goroutine, and at most one live run.
type session struct {
	srv  *Server
	conn *websocket.Conn
	log  *slog.Logger

	ctx    context.Context // ends when the connection or the server ends
	cancel context.CancelFunc

	wire *batchConn // under conn, gathering the writer's frames

	mu        sync.Mutex
	queue     []frame
	queued    int64         // bytes in queue
	inflight  int64         // bytes the writer took and is writing
	lastState int           // index in queue of the last state message, or -1
	closing   bool          // no more messages are queued
	wake      chan struct{} // the queue has something, or closing
	writerW   sync.WaitGroup

	opened   time.Time    // when the socket opened
	runEnded atomic.Int64 // when its last run ended, unix ns (0: none yet)

	who admission.Who // whom its runs are admitted for
	// learner is the class learner's session token the socket opened
	// with ("" for anyone else), for noteClassRun.
	learner string
	live    *liveRun // the last run started (reader goroutine only)
	// unread: reading stopped inside a message (one too large), so the
	// browser may still be sending (reader goroutine only).
	unread bool
}

func newSession(s *Server, conn *websocket.Conn, wire *batchConn) *session {
	ctx, cancel := context.WithCancel(s.ctx)
	return &session{srv: s, conn: conn, wire: wire, log: s.log, ctx: ctx, cancel: cancel,
		wake: make(chan struct{}, 1), lastState: -1, opened: time.Now()}
}

// idleLeft is how long the session may stay open without a run from now:
// 0 once it has run nothing for IdleTimeout, and the whole timeout while
// a run is live (reader goroutine only).
func (ss *session) idleLeft() time.Duration {
	if ss.live != nil && !ss.live.ended() {
		return ss.srv.cfg.IdleTimeout
	}
	since := ss.opened
	if ns := ss.runEnded.Load(); ns != 0 {
		since = time.Unix(0, ns)
	}
	return max(0, ss.srv.cfg.IdleTimeout-time.Since(since))
}

func (ss *session) serve() {
	ss.writerW.Add(1)
	go ss.writer()
	ss.readLoop()
	// The reader is done: end the run, let its summary be queued, then
	// flush and close.
	ss.cancel()
	if ss.live != nil {
		<-ss.live.done
	}
	ss.closeQueue()
	ss.writerW.Wait()
	if ss.unread {
		ss.linger()
	}
	ss.conn.Close()
}

// readLoop handles messages until the connection closes or the server
// shuts down.
func (ss *session) readLoop() {
	cfg := ss.srv.cfg
	// A browser that vanished without closing (a dropped network) stops
	// answering pings: the read deadline then ends the session and its run.
	// Once reading stops, nothing may push the deadline out again.
	var deadlineMu sync.Mutex
	reading := true
	alive := func() error {
		deadlineMu.Lock()
		defer deadlineMu.Unlock()
		if !reading {
			return nil
		}
		return ss.conn.SetReadDeadline(time.Now().Add(2 * cfg.PingInterval))
	}
	stopReading := func() {
		deadlineMu.Lock()
		defer deadlineMu.Unlock()
		reading = false
		_ = ss.conn.SetReadDeadline(time.Now())
	}
	_ = alive()
	ss.conn.SetPongHandler(func(string) error { return alive() })
	limit := rate.NewLimiter(rate.Limit(cfg.MessageRate), int(math.Ceil(2*cfg.MessageRate)))
	// The reader hands each message, or the error that ended reading, to
	// this loop; it gives up the hand-over when the session ends. The loop
	// never waits for the reader except on ctx, so a session that ends
	// while a message is being handed over (a client reset, the writer
	// giving up) cannot block it.
	type inbound struct {
		data []byte
		err  error
	}
	msgs := make(chan inbound)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			typ, data, err := readMessage(ss.conn, cfg.MaxMessageBytes)
			if err == nil {
				_ = alive()
				if typ != websocket.TextMessage {
					data = nil // a binary frame is answered as malformed
				}
			}
			if hook := handoverHook.Load(); hook != nil {
				(*hook)(ss)
			}
			select {
			case msgs <- inbound{data, err}:
			case <-ss.ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		// End the read goroutine: the deadline ends a blocked read and ctx
		// a pending hand-over.
		ss.cancel()
		stopReading()
		<-readerDone
	}()
	idle := time.NewTimer(cfg.IdleTimeout)
	defer idle.Stop()
	for {
		select {
		case <-idle.C:
			// A socket that runs nothing still holds one of its address's
			// places; the page opens a new one when Run is pressed.
			if left := ss.idleLeft(); left > 0 {
				idle.Reset(left)
				continue
			}
			ss.srv.metrics.idleClosed.Inc()
			ss.closeWith(websocket.CloseNormalClosure, "idle: no run started")
			return
		case <-ss.ctx.Done():
			// The server is shutting down, or the writer gave up on this
			// browser (then nothing more can be sent anyway).
			if ss.srv.ctx.Err() != nil {
				ss.sendAndClose(ServerMessage{Type: MsgError, Code: "shutdown", Message: "the server is shutting down; your run was stopped"},
					websocket.CloseGoingAway, "server shutting down")
			}
			return
		case in := <-msgs:
			if in.err != nil {
				if errors.Is(in.err, errMessageTooLarge) {
					// Told before the close, which carries only a code to
					// a browser's page.
					ss.log.Info("websocket message too large", slog.Int64("limit", cfg.MaxMessageBytes))
					ss.sendError(&userError{Status: http.StatusRequestEntityTooLarge, Field: "message",
						Msg: fmt.Sprintf("is larger than the limit of %d bytes; the connection is closed", cfg.MaxMessageBytes)})
					ss.closeWith(websocket.CloseMessageTooBig, fmt.Sprintf("message larger than %d bytes", cfg.MaxMessageBytes))
					ss.unread = true
				}
				return
			}
			if !limit.Allow() {
				ss.sendAndClose(ServerMessage{Type: MsgError, Code: "too_fast", Message: fmt.Sprintf("too many messages: at most %g a second; the connection is closed", cfg.MessageRate)},
					websocket.ClosePolicyViolation, "too many messages")
				return
			}
			ss.handle(in.data)
		}
	}
}

// errMessageTooLarge ends reading: the browser sent a message over
// MaxMessageBytes.
var errMessageTooLarge = errors.New("websocket message too large")

// readMessage reads the next message whole if it has at most limit bytes.
// Of a longer one no more than limit+1 bytes are read (however long its
// frames say they are) and errMessageTooLarge is returned.
//
// The websocket's own read limit is not used: it sends its close frame at
// once, before the browser can be told the limit in a message.
func readMessage(conn *websocket.Conn, limit int64) (int, []byte, error) {
	typ, r, err := conn.NextReader()
	if err != nil {
		return typ, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	switch {
	case err != nil:
		return typ, nil, err
	case int64(len(data)) > limit:
		return typ, nil, errMessageTooLarge
	}
	return typ, data, nil
}

// linger reads and drops what the browser still sends, until its close
// frame answers the session's (or for WriteTimeout at most), after the
// session's last frames were written. A socket closed with bytes unread is
// reset, and a reset may reach the browser before the error and close
// frame do, losing them: the rest of a message that was too large is such
// bytes.
func (ss *session) linger() {
	_ = ss.conn.SetReadDeadline(time.Now().Add(ss.srv.cfg.WriteTimeout))
	ss.conn.SetReadLimit(ss.srv.cfg.MaxMessageBytes)
	for {
		_, r, err := ss.conn.NextReader()
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			return
		}
	}
}

// Hooks a test may set: sessionHook sees each new session, handoverHook
// runs in the read goroutine between reading a message and handing it
// over, writeHook in the writer before each socket write.
var sessionHook, handoverHook, writeHook atomic.Pointer[func(*session)]
