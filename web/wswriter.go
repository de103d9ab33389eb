package web

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/gorilla/websocket"

	"github.com/leaselab/playground/engine"
)

// maxQueue bounds the messages waiting for one browser. A run has at most
// engine.MaxEvents events and each makes at most two messages, so a run at
// full speed fits; a browser that falls further behind is dropped.
const maxQueue = 2*engine.MaxEvents + 64

func (ss *session) sendErr(field, code, msg string) {
	ss.send(ServerMessage{Type: MsgError, Field: field, Code: code, Message: msg})
}

// sendError reports an error as the HTTP API would (mapError): its kind,
// field and message. An error that is not the user's is logged and told
// as an apology.
func (ss *session) sendError(err error) {
	p := mapError(err)
	if p.Code == codeInternal {
		ss.log.Error("websocket request failed", slog.Any("err", err))
	}
	ss.send(ServerMessage{Type: MsgError, Field: p.Field, Code: p.Code, Message: p.Message})
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
