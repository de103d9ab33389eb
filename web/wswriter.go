package web

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/gorilla/websocket"
)

// Close codes a session ends with when its browser falls behind: its own
// queue passed MaxQueueBytes (it does not read), or the queues of every
// session together passed their share of MemoryBudget and this one was
// behind. The first is the browser's doing; the second says "try again".
const (
	closeNotReading  = websocket.ClosePolicyViolation // 1008
	closeServerFull  = websocket.CloseTryAgainLater   // 1013
	behindBytes      = 256 << 10                      // a queue this long is behind
	writerBatchBytes = 64 << 10                       // at most this much per socket write
)

// frame is one message waiting for the writer, already encoded: each
// message is encoded once, when it is sent, and the queue is counted in
// bytes.
type frame struct {
	data  []byte // the JSON message; nil when superseded
	close int    // not a message: a close frame with this code (data is the reason)
}

// sendErr sends an error the session wrote itself; what it quotes of the
// input is an excerpt, so it stays within mapError's bounds.
func (ss *session) sendErr(field, code, msg string) {
	ss.send(ServerMessage{Type: MsgError, Field: field, Code: code, Message: msg})
}

// sendError reports an error as the HTTP API would (mapError): its kind,
// field and message. An error that is not the user's is logged and told
// as an apology.
func (ss *session) sendError(err error) { ss.send(ss.errorMessage(err)) }

// errorMessage is the error message sendError sends.
func (ss *session) errorMessage(err error) ServerMessage {
	p := mapError(err)
	if p.Code == codeInternal {
		ss.log.Error("websocket request failed", slog.Any("err", err))
	}
	return ServerMessage{Type: MsgError, Field: p.Field, Code: p.Code, Message: p.Message}
}

// encodeMessage is a message as it goes on the wire (SQL's "<=" kept
// readable).
func encodeMessage(m ServerMessage) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// send queues a message for the writer. It never blocks (the engine calls
// it on the run's goroutine). A state message replaces an earlier one the
// writer has not taken yet: the browser needs the latest state, and a
// browser that is behind catches up sooner. A browser whose queue passes
// its bound, or that is behind when all queues together pass theirs, is
// dropped with a close code and its queue freed at once.
func (ss *session) send(m ServerMessage) { ss.enqueue(m, 0, "") }

// sendAndClose queues m and, right behind it, a close frame with code and
// reason, under one lock: nothing another goroutine sends (the run's last
// observation, say) can come between, so m is the browser's last message.
func (ss *session) sendAndClose(m ServerMessage, code int, reason string) {
	ss.enqueue(m, code, reason)
}

// enqueue is send, followed by a close frame when code is not 0.
func (ss *session) enqueue(m ServerMessage, code int, reason string) {
	data := encodeMessage(m)
	if data == nil {
		ss.log.Error("websocket message could not be encoded", slog.String("type", m.Type))
		if code != 0 {
			ss.closeWith(code, reason)
		}
		return
	}
	n := int64(len(data))
	srv := ss.srv
	ss.mu.Lock()
	if ss.closing {
		ss.mu.Unlock()
		return
	}
	if m.Type == MsgState && ss.lastState >= 0 {
		old := &ss.queue[ss.lastState]
		ss.queued -= int64(len(old.data))
		srv.wsQueued.Add(-int64(len(old.data)))
		old.data = nil
	}
	switch {
	case ss.queued+ss.inflight+n > srv.cfg.MaxQueueBytes:
		ss.dropLocked(closeNotReading, "not reading: too many messages waiting")
	case srv.wsQueued.Load()+n > srv.cfg.MemoryBudget/4 && ss.queued+ss.inflight+n > behindBytes:
		ss.dropLocked(closeServerFull, "server busy: too many messages waiting for slow browsers")
	default:
		ss.queue = append(ss.queue, frame{data: data})
		if m.Type == MsgState {
			ss.lastState = len(ss.queue) - 1
		}
		ss.queued += n
		srv.wsQueued.Add(n)
	}
	if code != 0 && !ss.closing {
		ss.queue = append(ss.queue, frame{close: code, data: []byte(reason)})
		ss.closing = true
	}
	ss.mu.Unlock()
	ss.signal()
}

// dropLocked gives up on a browser that is behind: its queue is freed and
// replaced by a close frame, and its run is ended.
func (ss *session) dropLocked(code int, reason string) {
	ss.srv.wsQueued.Add(-ss.queued)
	ss.queue, ss.queued, ss.lastState = []frame{{close: code, data: []byte(reason)}}, 0, -1
	ss.closing = true
	ss.srv.metrics.wsDropped.Inc()
	ss.log.Info("websocket dropped: the browser is not keeping up", slog.Int("close", code))
	ss.cancel()
}

func (ss *session) signal() {
	select {
	case ss.wake <- struct{}{}:
	default:
	}
}

// closeWith queues a close frame after what is queued: the session ends
// once the browser has what came before.
func (ss *session) closeWith(code int, reason string) {
	ss.mu.Lock()
	if !ss.closing {
		ss.queue = append(ss.queue, frame{close: code, data: []byte(reason)})
		ss.closing = true
	}
	ss.mu.Unlock()
	ss.signal()
}

// isClosing reports whether the session takes no more messages.
func (ss *session) isClosing() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.closing
}

func (ss *session) closeQueue() {
	ss.mu.Lock()
	ss.closing = true
	ss.mu.Unlock()
	ss.signal()
}

// take removes up to writerBatchBytes of frames from the queue (at least
// one), for one socket write.
func (ss *session) take() (batch []frame, size int64, closing bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	i := 0
	for i < len(ss.queue) && (i == 0 || size < writerBatchBytes) {
		size += int64(len(ss.queue[i].data))
		i++
	}
	batch = ss.queue[:i:i]
	ss.queue = ss.queue[i:]
	ss.queued -= size
	ss.inflight = size
	if len(ss.queue) == 0 {
		ss.queue = nil
	}
	ss.lastState -= i
	if ss.lastState < 0 {
		ss.lastState = -1
	}
	return batch, size, ss.closing && len(ss.queue) == 0
}

// writer is the connection's only writer. It sends queued messages in
// order, one frame each; the frames of a batch reach the socket in one
// write, so a browser that is behind gets many small events at once. A
// write slower than WriteTimeout drops the connection and with it the run.
func (ss *session) writer() {
	defer ss.writerW.Done()
	ping := time.NewTicker(ss.srv.cfg.PingInterval)
	defer ping.Stop()
	for {
		batch, size, closing := ss.take()
		if len(batch) > 0 {
			done, err := ss.write(batch)
			ss.mu.Lock()
			ss.inflight = 0
			ss.mu.Unlock()
			ss.srv.wsQueued.Add(-size)
			if done || err != nil {
				ss.cancel()
				ss.drain()
				return
			}
			continue
		}
		if closing {
			return
		}
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

// write sends a batch in one socket write; done reports a close frame.
func (ss *session) write(batch []frame) (done bool, err error) {
	if h := writeHook.Load(); h != nil {
		(*h)(ss)
	}
	_ = ss.conn.SetWriteDeadline(time.Now().Add(ss.srv.cfg.WriteTimeout))
	ss.wire.begin()
	for _, f := range batch {
		switch {
		case f.close != 0:
			_ = ss.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(f.close, string(f.data)))
			done = true
		case f.data != nil:
			err = ss.conn.WriteMessage(websocket.TextMessage, f.data)
		}
		if done || err != nil {
			break
		}
	}
	if ferr := ss.wire.flush(); err == nil {
		err = ferr
	}
	return done, err
}

// drain stops queueing once the writer has given up.
func (ss *session) drain() {
	ss.mu.Lock()
	ss.srv.wsQueued.Add(-ss.queued)
	ss.closing, ss.queue, ss.queued, ss.lastState = true, nil, 0, -1
	ss.mu.Unlock()
}

func ptr[T any](v T) *T { return &v }
