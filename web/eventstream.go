package web

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// openEventStream answers c as a server-sent event stream (the teacher's
// dashboard, a learner's class) and returns how to write to it: write
// sends text and flushes it, within the server's write timeout for each
// write rather than for the whole stream, which lives as long as the page;
// bye tells the page, when the server is shutting down, that it is going
// away, so it reconnects to this server once it is back or to another
// replica.
func (s *Server) openEventStream(c echo.Context) (write func(string) error, bye func() error) {
	res := c.Response()
	h := res.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	res.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(res.Writer)
	_ = rc.SetWriteDeadline(time.Time{})
	write = func(text string) error {
		_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		if _, err := fmt.Fprint(res, text); err != nil {
			return err
		}
		return rc.Flush()
	}
	bye = func() error {
		if s.ctx.Err() != nil && c.Request().Context().Err() == nil {
			_ = write("event: bye\ndata: {\"reason\":\"the server is restarting\"}\n\n")
		}
		return nil
	}
	return write, bye
}
