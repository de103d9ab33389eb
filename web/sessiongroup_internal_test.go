package web

import (
	"runtime"
	"testing"
)

// TestSessionGroupRefusesLateArrivals: once Shutdown waits, a connection
// that arrives is refused rather than counted (a WaitGroup may not gain
// its first member while waited for: the race detector caught a
// websocket doing so in CI), and the wait still lasts until every
// counted connection has ended.
func TestSessionGroupRefusesLateArrivals(t *testing.T) {
	var g sessionGroup
	if !g.add() {
		t.Fatal("a connection was refused before the shutdown")
	}
	waited := make(chan struct{})
	go func() {
		g.wait()
		close(waited)
	}()
	for {
		g.mu.Lock()
		closing := g.closing
		g.mu.Unlock()
		if closing {
			break
		}
		runtime.Gosched()
	}
	if g.add() {
		t.Fatal("a connection was counted after the shutdown began waiting")
	}
	select {
	case <-waited:
		t.Fatal("the wait ended with a connection still open")
	default:
	}
	g.done()
	<-waited
}
