package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/engine"
)

// maxQueue bounds the messages waiting for one browser. A run has at most
// engine.MaxEvents events and each makes at most two messages, so a run at
// full speed fits; a browser that falls further behind is dropped.
const maxQueue = 2*engine.MaxEvents + 64

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
	return slices.ContainsFunc(s.cfg.AllowedOrigins, func(o string) bool { return strings.EqualFold(o, origin) })
}

func (s *Server) wsRun(c echo.Context) error {
	r, w := c.Request(), c.Response()
	if !s.checkOrigin(r) {
		return &userError{Status: http.StatusForbidden, Field: "Origin", Msg: "this origin may not open a websocket here"}
	}
	if !s.conns.tryAcquire() {
		return errBusy
	}
	up := websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		ReadBufferSize:   4096, WriteBufferSize: 4096,
		CheckOrigin: s.checkOrigin,
	}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		s.conns.release()
		return nil // the upgrader has answered already
	}
	s.sessions.Add(1)
	defer s.sessions.Done()
	defer s.conns.release()
	sess := newSession(s, conn)
	sess.serve()
	return nil
}

// session is one websocket: a reader (the handler's goroutine), one writer
// goroutine, and at most one live run.
type session struct {
	srv  *Server
	conn *websocket.Conn
	log  *slog.Logger

	ctx    context.Context // ends when the connection or the server ends
	cancel context.CancelFunc

	mu      sync.Mutex
	queue   []ServerMessage
	closing bool          // no more messages are queued
	wake    chan struct{} // the queue has something, or closing
	writerW sync.WaitGroup

	run     *engine.Run   // the live run, if any (reader goroutine only)
	runDone chan struct{} // closed when the live run's summary is queued
}

func newSession(s *Server, conn *websocket.Conn) *session {
	ctx, cancel := context.WithCancel(s.ctx)
	return &session{srv: s, conn: conn, log: s.log, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
}

func (ss *session) serve() {
	ss.writerW.Add(1)
	go ss.writer()
	ss.readLoop()
	// The reader is done: end the run, let its summary be queued, then
	// flush and close.
	ss.cancel()
	if ss.runDone != nil {
		<-ss.runDone
	}
	ss.closeQueue()
	ss.writerW.Wait()
	ss.conn.Close()
}

// readLoop handles messages until the connection closes or the server
// shuts down.
func (ss *session) readLoop() {
	cfg := ss.srv.cfg
	ss.conn.SetReadLimit(cfg.MaxMessageBytes)
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
	bucket := newBucket(cfg.MessageRate, 2*cfg.MessageRate)
	msgs := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		defer close(msgs)
		for {
			typ, data, err := ss.conn.ReadMessage()
			if err != nil {
				readErr <- err
				return
			}
			_ = alive()
			if typ != websocket.TextMessage {
				data = nil // a binary frame is answered as malformed
			}
			select {
			case msgs <- data:
			case <-ss.ctx.Done():
				return
			}
		}
	}()
	defer func() {
		// End the read goroutine: the deadline ends a blocked read and ctx
		// a pending hand-over.
		ss.cancel()
		stopReading()
		for range msgs {
		}
	}()
	for {
		select {
		case <-ss.ctx.Done():
			// The server is shutting down, or the writer gave up on this
			// browser (then nothing more can be sent anyway).
			if ss.srv.ctx.Err() != nil {
				ss.send(ServerMessage{Type: MsgError, Code: "shutdown", Message: "the server is shutting down; your run was stopped"})
				ss.closeWith(websocket.CloseGoingAway, "server shutting down")
			}
			return
		case data, ok := <-msgs:
			if !ok {
				err := <-readErr
				if errors.Is(err, websocket.ErrReadLimit) {
					ss.log.Info("websocket message too large", slog.Int64("limit", cfg.MaxMessageBytes))
				}
				return
			}
			if !bucket.take(time.Now()) {
				ss.send(ServerMessage{Type: MsgError, Code: "too_fast", Message: fmt.Sprintf("too many messages: at most %g a second; the connection is closed", cfg.MessageRate)})
				ss.closeWith(websocket.ClosePolicyViolation, "too many messages")
				return
			}
			ss.handle(data)
		}
	}
}

// closeWith queues a close frame after what is queued and stops reading.
func (ss *session) closeWith(code int, reason string) {
	ss.mu.Lock()
	ss.queue = append(ss.queue, ServerMessage{closeCode: code, Message: reason})
	ss.mu.Unlock()
	ss.signal()
}

// handle acts on one message from the browser. Bad input is answered with
// an error message; the connection stays open.
func (ss *session) handle(data []byte) {
	var m ClientMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if data == nil {
		ss.sendErr("", "bad_message", "messages must be JSON text, like {\"type\":\"start\",...}")
		return
	}
	if err := dec.Decode(&m); err != nil || dec.More() {
		why := "more than one JSON value"
		if err != nil {
			why = err.Error()
		}
		ss.sendErr("", "bad_message", "message is not valid: "+why+`; send one JSON object like {"type":"pause"}`)
		return
	}
	live := ss.run != nil
	if live {
		select {
		case <-ss.runDone:
			live = false
		default:
		}
	}
	switch m.Type {
	case MsgStart:
		ss.start(m)
	case MsgPause, MsgResume, MsgStep, MsgStop, MsgSpeed, MsgInject:
		if !live {
			ss.sendErr("type", "no_run", fmt.Sprintf("%q needs a live run: send \"start\" first", m.Type))
			return
		}
		ss.control(m)
	default:
		ss.sendErr("type", "bad_message", fmt.Sprintf("unknown message type %q: use start, inject, pause, resume, step, speed or stop", m.Type))
	}
}

func (ss *session) control(m ClientMessage) {
	r := ss.run
	switch m.Type {
	case MsgPause:
		r.Pause()
	case MsgResume:
		r.Resume()
	case MsgStep:
		r.Step()
	case MsgStop:
		r.Stop()
	case MsgSpeed:
		if m.Speed == nil {
			ss.sendErr("speed", "bad_message", "is required: simulated seconds per wall second, 0 for as fast as possible")
			return
		}
		if err := r.SetSpeed(*m.Speed); err != nil {
			ss.sendError(err)
		}
	case MsgInject:
		var f engine.Fault
		dec := json.NewDecoder(bytes.NewReader(m.Fault))
		dec.DisallowUnknownFields()
		if len(m.Fault) == 0 {
			ss.sendErr("fault", "bad_message", `is required, like {"do":"pause","target":"client-1","for":"15s"}`)
			return
		}
		if err := dec.Decode(&f); err != nil {
			ss.sendErr("fault", "bad_message", "is not a fault: "+err.Error())
			return
		}
		if err := r.Inject(f); err != nil {
			ss.sendError(err)
		}
	}
}

// start begins a run; one run per connection at a time.
func (ss *session) start(m ClientMessage) {
	if ss.run != nil {
		select {
		case <-ss.runDone:
			ss.run, ss.runDone = nil, nil
		default:
			ss.sendErr("type", "run_live", "a run is live on this connection: send \"stop\" and wait for its summary first")
			return
		}
	}
	speed := 0.0
	if m.Speed != nil {
		speed = *m.Speed
	}
	if speed < 0 || speed > engine.MaxSpeed || speed != speed {
		ss.sendErr("speed", "bad_message", fmt.Sprintf("must be between 0 (as fast as possible) and %g", engine.MaxSpeed))
		return
	}
	if len(m.Scenario) == 0 {
		ss.sendErr("scenario", "bad_message", "is required")
		return
	}
	sc, err := engine.DecodeScenario(m.Scenario)
	if err == nil {
		sc, err = engine.Prepare(sc)
	}
	if err != nil {
		ss.sendError(err)
		return
	}
	if !ss.srv.runs.tryAcquire() {
		ss.send(ServerMessage{Type: MsgError, Code: "busy", Message: errBusy.Error()})
		return
	}
	state := NewState(sc)
	ss.send(ServerMessage{Type: MsgState, State: ptr(state)})
	sink := func(e engine.Event) {
		ev := e
		ss.send(ServerMessage{Type: MsgEvent, Event: &ev, Text: engine.Describe(e)})
		if state.Apply(e) {
			ss.send(ServerMessage{Type: MsgState, State: ptr(state)})
		}
	}
	limit := ss.srv.cfg.MaxRunTime
	runCtx, cancelRun := context.WithTimeout(ss.ctx, limit)
	run, err := engine.Start(runCtx, sc, engine.Options{Speed: speed, Sink: sink})
	if err != nil {
		cancelRun()
		ss.srv.runs.release()
		ss.sendError(err)
		return
	}
	done := make(chan struct{})
	ss.run, ss.runDone = run, done
	go func() {
		defer close(done)
		defer ss.srv.runs.release()
		defer cancelRun()
		res, err := run.Wait()
		if errors.Is(err, context.DeadlineExceeded) {
			ss.send(ServerMessage{Type: MsgError, Code: "too_long", Message: fmt.Sprintf("the run was stopped: a live run may last at most %s of wall time", limit)})
		}
		stopped := err != nil && (errors.Is(err, engine.ErrStopped) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
		if err != nil && !stopped {
			ss.log.Error("live run failed", slog.Any("err", err))
			ss.send(ServerMessage{Type: MsgError, Code: "internal", Message: "internal error: the run failed; sorry, it has been logged"})
			return
		}
		ss.send(ServerMessage{Type: MsgSummary, Summary: &res.Summary, Verdict: engine.Verdict(res.Summary), Stopped: stopped})
	}()
}

func (ss *session) sendErr(field, code, msg string) {
	ss.send(ServerMessage{Type: MsgError, Field: field, Code: code, Message: msg})
}

// sendError reports a validation error with its field.
func (ss *session) sendError(err error) {
	var fe *engine.FieldError
	if errors.As(err, &fe) {
		ss.send(ServerMessage{Type: MsgError, Field: fe.Field, Code: "invalid", Message: fe.Error()})
		return
	}
	ss.log.Error("websocket request failed", slog.Any("err", err))
	ss.sendErr("", "internal", "internal error: sorry, something went wrong on our side")
}

// send queues a message for the writer. It never blocks (the engine calls
// it on the run's goroutine); a browser too far behind is dropped.
func (ss *session) send(m ServerMessage) {
	ss.mu.Lock()
	if ss.closing {
		ss.mu.Unlock()
		return
	}
	if len(ss.queue) >= maxQueue {
		ss.closing = true
		ss.mu.Unlock()
		ss.log.Info("websocket dropped: the browser is not keeping up")
		ss.cancel()
		ss.signal()
		return
	}
	ss.queue = append(ss.queue, m)
	ss.mu.Unlock()
	ss.signal()
}

func (ss *session) signal() {
	select {
	case ss.wake <- struct{}{}:
	default:
	}
}

func (ss *session) closeQueue() {
	ss.mu.Lock()
	ss.closing = true
	ss.mu.Unlock()
	ss.signal()
}

// writer is the connection's only writer. It sends queued messages in
// order; a write slower than WriteTimeout drops the connection and with it
// the run.
func (ss *session) writer() {
	defer ss.writerW.Done()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	ping := time.NewTicker(ss.srv.cfg.PingInterval)
	defer ping.Stop()
	for {
		ss.mu.Lock()
		batch, closing := ss.queue, ss.closing
		ss.queue = nil
		ss.mu.Unlock()
		for _, m := range batch {
			_ = ss.conn.SetWriteDeadline(time.Now().Add(ss.srv.cfg.WriteTimeout))
			if m.closeCode != 0 {
				_ = ss.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(m.closeCode, m.Message))
				ss.cancel()
				ss.drain()
				return
			}
			buf.Reset()
			if err := enc.Encode(m); err != nil {
				continue
			}
			if err := ss.conn.WriteMessage(websocket.TextMessage, bytes.TrimRight(buf.Bytes(), "\n")); err != nil {
				ss.cancel()
				ss.drain()
				return
			}
		}
		if closing && len(batch) == 0 {
			return
		}
		if len(batch) == 0 {
			select {
			case <-ss.wake:
			case <-ping.C:
				if err := ss.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(ss.srv.cfg.WriteTimeout)); err != nil {
					ss.cancel()
					ss.drain()
					return
				}
			}
		}
	}
}

// drain stops queueing once the writer has given up.
func (ss *session) drain() {
	ss.mu.Lock()
	ss.closing, ss.queue = true, nil
	ss.mu.Unlock()
}

func ptr[T any](v T) *T { return &v }
