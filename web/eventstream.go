package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// eventStream is one open server-sent event stream (the teacher's
// dashboard, a learner's class), compressed or not.
type eventStream struct {
	s  *Server
	c  echo.Context
	rc *http.ResponseController
	gz *gzipStream // nil when the stream goes as it is
}

// keepAlive is the comment an idle stream sends, and its piece for a
// compressed stream.
var (
	keepAlive      = []byte(": keep-alive\n\n")
	keepAlivePiece = deflateAlone(keepAlive)
)

// startEventStream answers c as a server-sent event stream, gzip-encoded
// when compress is set and the browser accepts it (eventstream_gzip.go).
// Each write has the server's write timeout rather than the whole stream,
// which lives as long as the page.
func (s *Server) startEventStream(c echo.Context, compress bool) *eventStream {
	res := c.Response()
	h := res.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	e := &eventStream{s: s, c: c, rc: http.NewResponseController(res.Writer)}
	if compress {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(c.Request()) {
			h.Set("Content-Encoding", "gzip")
			e.gz = &gzipStream{}
		}
	}
	res.WriteHeader(http.StatusOK)
	_ = e.rc.SetWriteDeadline(time.Time{})
	return e
}

// send writes the event text and flushes it. piece is text deflated by
// deflateAlone, done once for every stream that sends it; nil has a
// compressed stream deflate it here.
func (e *eventStream) send(text, piece []byte) error {
	_ = e.rc.SetWriteDeadline(time.Now().Add(e.s.cfg.WriteTimeout))
	res := e.c.Response()
	out := text
	if e.gz != nil {
		if piece == nil {
			piece = deflateAlone(text)
		}
		if head := e.gz.begin(); head != nil {
			if _, err := res.Write(head); err != nil {
				return err
			}
		}
		e.gz.count(text)
		out = piece
	}
	if _, err := res.Write(out); err != nil {
		return err
	}
	return e.rc.Flush()
}

// keepAlive sends the idle stream's comment, so proxies do not time it
// out and a gone browser is noticed.
func (e *eventStream) keepAlive() error { return e.send(keepAlive, keepAlivePiece) }

// finish ends the stream: when the server is shutting down it tells the
// page it is going away, so it reconnects to this server once it is back
// or to another replica; a compressed stream then sends its trailer, so
// the browser reads a whole gzip body rather than a cut one.
func (e *eventStream) finish() error {
	if e.s.ctx.Err() != nil && e.c.Request().Context().Err() == nil {
		if e.send([]byte("event: bye\ndata: {\"reason\":\"the server is restarting\"}\n\n"), nil) != nil {
			return nil
		}
	}
	if e.gz != nil && e.c.Request().Context().Err() == nil {
		_ = e.rc.SetWriteDeadline(time.Now().Add(e.s.cfg.WriteTimeout))
		if _, err := e.c.Response().Write(e.gz.end()); err == nil {
			_ = e.rc.Flush()
		}
	}
	return nil
}

// openEventStream is startEventStream uncompressed, as two functions:
// write sends text and flushes it; bye ends the stream (finish).
func (s *Server) openEventStream(c echo.Context) (write func(string) error, bye func() error) {
	e := s.startEventStream(c, false)
	return func(text string) error { return e.send([]byte(text), nil) }, e.finish
}
