package web

import (
	"net/http"
	"sync"
)

// sessionGroup counts the long-lived connections that Shutdown waits for:
// websockets, learner and dashboard streams, and the class feeds behind
// them. A sync.WaitGroup must not gain its first member while it is being
// waited for, and a connection can arrive while the server shuts down; so
// once Shutdown has begun waiting, a late arrival is refused instead of
// counted (errShuttingDown), and it ends on its own.
type sessionGroup struct {
	mu      sync.Mutex
	wg      sync.WaitGroup
	closing bool
}

// add counts one more connection, or reports false once the server has
// begun shutting down.
func (g *sessionGroup) add() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing {
		return false
	}
	g.wg.Add(1)
	return true
}

// done ends a connection that add counted.
func (g *sessionGroup) done() { g.wg.Done() }

// wait refuses new connections and waits for the counted ones to end.
func (g *sessionGroup) wait() {
	g.mu.Lock()
	g.closing = true
	g.mu.Unlock()
	g.wg.Wait()
}

// errShuttingDown answers a connection that arrived as the server shut
// down.
var errShuttingDown = &userError{Status: http.StatusServiceUnavailable, Code: "shutting_down", Msg: "the server is shutting down: try again in a moment"}
