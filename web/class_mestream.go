package web

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
)

// learnerStreamRetryMS is the reconnection delay a learner stream asks
// of the browser (the "retry" field): after a stream reaches its age or
// the server restarts, the page follows the class again two seconds
// later, whatever the browser's own default.
const learnerStreamRetryMS = 2000

// apiMeEvents: GET /api/me/events, the learner's class as server-sent
// "class" events (the same JSON as /api/me's class and poll_ms): once on
// connect and after every change a learner sees (a push, the settings,
// archiving, a new code), with a comment every
// Config.Class.Live.KeepAlive so proxies keep it open. The learner is the
// one of the session cookie; a made-up or removed session is refused
// like /api/me (401). A stream counts in the learners' pool of its own
// (Config.Class.Live: 503 past MaxStreams, 429 past the address's or the
// learner's share, with Retry-After) and lives at most MaxAge, after
// which the browser reconnects by itself.
func (w *classWeb) apiMeEvents(c echo.Context) error {
	token := learnerToken(c)
	l, cl, err := w.store().Learner(c.Request().Context(), token)
	if err != nil {
		return err
	}
	s := w.s
	lv := s.cfg.Class.Live
	addr := clientAddress(c)
	if err := s.connRefusal(c, s.mestreams.tryAcquire(addr), "learner streams", lv.MaxStreams, lv.StreamsPerAddress); err != nil {
		return err
	}
	defer s.mestreams.release(addr)
	f, err := w.learnerFeeds.join(cl.ID, l.ID, token)
	if err != nil {
		s.metrics.connsRefused.WithLabelValues("learner streams", "learner").Inc()
		c.Response().Header().Set("Retry-After", strconv.Itoa(streamRetryAfter))
		return err
	}
	defer w.learnerFeeds.leave(f, l.ID, token)
	ctx, cancel := context.WithCancel(c.Request().Context())
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	if !s.sessions.add() {
		return errShuttingDown
	}
	defer s.sessions.done()

	write, bye := s.openEventStream(c)
	if write("retry: "+strconv.Itoa(learnerStreamRetryMS)+"\n\n") != nil {
		return nil
	}
	// Between three quarters of MaxAge and all of it, so that streams
	// opened together end apart.
	age := time.NewTimer(lv.MaxAge - time.Duration(rand.Int64N(int64(lv.MaxAge/4)+1)))
	defer age.Stop()
	keep := time.NewTicker(lv.KeepAlive)
	defer keep.Stop()
	var sent uint64
	for {
		seq, data, gone, done, ready := f.following(l.ID, token)
		if gone {
			// Removed from the class, or gone on in another browser: the
			// reconnection is refused (401), and the page stops following.
			return nil
		}
		if seq > sent {
			if write("event: class\ndata: "+string(data)+"\n\n") != nil {
				return nil
			}
			sent = seq
		}
		if done {
			return bye()
		}
		select {
		case <-ctx.Done():
			return bye()
		case <-age.C:
			return nil // the browser reconnects after the retry delay
		case <-ready:
		case <-keep.C:
			if write(": keep-alive\n\n") != nil {
				return nil
			}
		}
	}
}
