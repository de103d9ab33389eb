package main

import (
	"net"
	"net/http"
	"sync"
)

// freshConns tracks the connections that have not yet begun a request.
// http.Server.Shutdown closes idle connections at once but counts a new
// one as busy until it has been silent for 5 s, longer than the shutdown
// grace: a browser's preconnect, or a client whose dial raced its own
// cancel, would hold the shutdown until the grace ran out and fail it.
// Such a connection carries nothing to finish, so it is closed as the
// shutdown begins.
type freshConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// track is an http.Server ConnState hook.
func (f *freshConns) track(c net.Conn, state http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if state == http.StateNew {
		if f.conns == nil {
			f.conns = map[net.Conn]struct{}{}
		}
		f.conns[c] = struct{}{}
		return
	}
	delete(f.conns, c)
}

// closeAll closes every connection that has not begun a request. It is
// registered with http.Server.RegisterOnShutdown, so it runs once the
// server has stopped taking new connections' requests.
func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		c.Close()
	}
	clear(f.conns)
}
