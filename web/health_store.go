package web

import (
	"context"
	"sync"
	"time"
)

// storeHealth is what the liveness probe knows of the classroom store: the
// answer of its last ping, and whether one is under way. Under a burst of
// writes (a lecture hall joining at once) every connection of the store's
// pool may be waiting for the write lock, and a ping waits with them; the
// liveness probe, which says whether the process serves, must not wait
// behind the database. So /healthz pings in the background, one ping at a
// time, and answers with the last one's result; only the very first
// /healthz, with nothing known yet, waits for its ping. /readyz still pings
// and waits: whether to send the replica work does depend on the store.
type storeHealth struct {
	mu      sync.Mutex
	known   bool
	err     error
	pinging bool
	done    chan struct{} // closed when the ping under way ends
}

// storeState returns the store's last known state, starting a ping if none
// is under way; it waits only while nothing is known yet.
func (s *Server) storeState() error {
	h := &s.storeHealth
	h.mu.Lock()
	if !h.pinging {
		h.pinging = true
		h.done = make(chan struct{})
		go s.pingInBackground()
	}
	known, err, done := h.known, h.err, h.done
	h.mu.Unlock()
	if known {
		return err
	}
	<-done
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

func (s *Server) pingInBackground() {
	// The server's context, not a request's: a probe that gave up must
	// not cut short the ping the next probe reads.
	ctx, cancel := context.WithTimeout(s.ctx, 2*time.Second)
	defer cancel()
	err := s.cfg.Classroom.Ping(ctx)
	h := &s.storeHealth
	h.mu.Lock()
	h.known, h.err, h.pinging = true, err, false
	close(h.done)
	h.mu.Unlock()
}
