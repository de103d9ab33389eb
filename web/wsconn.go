package web

import (
	"bufio"
	"net"
	"net/http"
	"sync"
)

// batchConn is a websocket's connection with its writes gathered: between
// begin and flush, every frame (the writer's messages, and a pong or close
// the reader answers meanwhile) goes into one buffer that reaches the
// socket in one write. Outside a batch, writes go straight through. The
// buffer is borrowed from batchBuffers for the batch and given back after
// it: a watched run sends a few small messages a second, so a session
// between batches holds no buffer (1,000 sessions kept 1,000 of them).
type batchConn struct {
	net.Conn
	mu       sync.Mutex
	buf      []byte
	batching bool
	writes   int // socket writes so far
}

// maxKeptBuffer is the largest batch buffer given back to batchBuffers
// for another batch; a larger one (a burst) is left to the garbage
// collector.
const maxKeptBuffer = 2 * writerBatchBytes

// batchBuffers holds the batch buffers no session is filling (*[]byte).
var batchBuffers sync.Pool

func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.batching {
		if b.buf == nil {
			if kept, ok := batchBuffers.Get().(*[]byte); ok {
				b.buf = (*kept)[:0]
			}
		}
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	b.writes++
	return b.Conn.Write(p)
}

func (b *batchConn) begin() {
	b.mu.Lock()
	b.batching = true
	b.mu.Unlock()
}

// flush writes the batch under the deadline last set on the connection.
func (b *batchConn) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batching = false
	if len(b.buf) == 0 {
		return nil
	}
	b.writes++
	_, err := b.Conn.Write(b.buf)
	if cap(b.buf) <= maxKeptBuffer {
		buf := b.buf[:0]
		batchBuffers.Put(&buf)
	}
	b.buf = nil
	return err
}

// batchingWriter hands the websocket upgrader a batchConn when it hijacks
// the connection.
type batchingWriter struct {
	http.ResponseWriter
	conn *batchConn
}

func (w *batchingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.conn = &batchConn{Conn: c}
	return w.conn, brw, nil
}
