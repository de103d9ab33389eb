package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// Live dashboard updates are server-sent events: one-way, plain HTTP
// (nothing for a proxy to upgrade), and the browser reconnects on its own,
// to any replica, after a restart or a deploy. Each event carries the
// whole dashboard, re-read from the store, so a merged or missed change
// loses nothing.
const (
	// dashboardInterval bounds how often one stream re-reads the
	// dashboard: a class answering at once costs a few reads a second,
	// not one per answer.
	dashboardInterval = 300 * time.Millisecond
	// sseKeepAlive is how often an idle stream sends a comment, so
	// proxies do not time it out and a gone browser is noticed.
	sseKeepAlive = 20 * time.Second
)

// apiEvents: GET /api/classes/{code}/events streams "dashboard" events
// until the browser goes away or the server shuts down.
func (w *classWeb) apiEvents(c echo.Context) error {
	code, key := c.Param("code"), teacherKey(c)
	cl, err := w.store().Teacher(c.Request().Context(), code, key)
	if err != nil {
		return err
	}
	s := w.s
	ctx, cancel := context.WithCancel(c.Request().Context())
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	s.sessions.Add(1)
	defer s.sessions.Done()
	changes, err := w.store().Subscribe(ctx, cl.ID)
	if err != nil {
		return err
	}
	w.m.streams.Inc()
	defer w.m.streams.Dec()

	res := c.Response()
	h := res.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	res.WriteHeader(http.StatusOK)
	// The server's write timeout is for ordinary answers; a stream lives
	// as long as the page.
	rc := http.NewResponseController(res.Writer)
	_ = rc.SetWriteDeadline(time.Time{})

	send := func(event string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		if _, err := fmt.Fprintf(res, "event: %s\ndata: %s\n\n", event, data); err != nil {
			return err
		}
		return rc.Flush()
	}
	// The dashboard is read with the key, not the code, from here on: the
	// code may be rotated under an open page.
	reload := func() error {
		cl, err := w.store().TeacherClass(ctx, key)
		if err != nil {
			return err
		}
		d, err := w.store().Dashboard(ctx, cl.Code, key)
		if err != nil {
			return err
		}
		return send("dashboard", w.view(d))
	}
	if err := reload(); err != nil {
		return nil
	}
	// bye tells the page that the server is going away; it reconnects,
	// to this server once it is back or to another replica.
	bye := func() error {
		if s.ctx.Err() != nil && c.Request().Context().Err() == nil {
			_ = send("bye", map[string]string{"reason": "the server is restarting"})
		}
		return nil
	}
	keep := time.NewTicker(sseKeepAlive)
	defer keep.Stop()
	var last time.Time
	var pending <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return bye()
		case _, ok := <-changes:
			if !ok {
				// The subscription ends with ctx, or when the store closes.
				return bye()
			}
			if pending == nil {
				wait := dashboardInterval - time.Since(last)
				if wait < 0 {
					wait = 0
				}
				pending = time.After(wait)
			}
		case <-pending:
			pending, last = nil, time.Now()
			if err := reload(); err != nil {
				return nil
			}
		case <-keep.C:
			_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
			if _, err := fmt.Fprint(res, ": keep-alive\n\n"); err != nil {
				return nil
			}
			if rc.Flush() != nil {
				return nil
			}
		}
	}
}
