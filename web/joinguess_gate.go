package web

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// A code is only known to be wrong once the store has looked it up, so
// the wrong-code bucket is spent after the lookup. Checked alone, before
// it, a burst of guesses sent at once would all find the bucket full and
// all be looked up: as many guesses as a script keeps in flight, not the
// bucket's. guessGate counts the guesses in flight from each address as
// already wrong: a guess goes in only while the bucket would still hold a
// token if every one in flight turned out wrong, and otherwise waits its
// turn for one of them to settle. A right code settles without spending
// anything, so a lecture hall joining at once, all codes right, goes
// through as fast as the bucket's size lets codes be looked up at once;
// a guessing script gets the bucket and no more.
type guessGate struct {
	codes   *ipLimiter       // the wrong codes' bucket per address
	waiting prometheus.Gauge // guesses waiting their turn, all addresses

	mu       sync.Mutex
	inFlight map[string]int           // guesses being looked up, by address
	settled  map[string]chan struct{} // closed when one of the address's settles
}

func newGuessGate(codes *ipLimiter, waiting prometheus.Gauge) *guessGate {
	return &guessGate{codes: codes, waiting: waiting, inFlight: map[string]int{}, settled: map[string]chan struct{}{}}
}

// enter lets a guess from addr be looked up, waiting while the guesses in
// flight could spend the bucket. It returns how long the bucket needs to
// hold a token again when it has none (and nothing is in flight to wait
// for), or ctx's error when the request ends first; either way the guess
// did not enter. A guess that entered is ended with leave.
func (g *guessGate) enter(ctx context.Context, addr string) (time.Duration, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	counted := false
	defer func() {
		if counted {
			g.waiting.Dec()
		}
	}()
	for {
		n := g.inFlight[addr]
		if g.codes.tokens(addr)-float64(n) >= 1 {
			g.inFlight[addr] = n + 1
			return 0, nil
		}
		if n == 0 {
			return max(g.codes.wait(addr), time.Second), nil
		}
		ch := g.settled[addr]
		if ch == nil {
			ch = make(chan struct{})
			g.settled[addr] = ch
		}
		if !counted {
			counted = true
			g.waiting.Inc()
		}
		g.mu.Unlock()
		select {
		case <-ch:
			g.mu.Lock()
		case <-ctx.Done():
			g.mu.Lock()
			return 0, ctx.Err()
		}
	}
}

// leave settles a guess that entered: a wrong one spends a token of its
// address's bucket; either way the guesses waiting behind it look again.
func (g *guessGate) leave(addr string, wrong bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if wrong {
		g.codes.take(addr)
	}
	if g.inFlight[addr]--; g.inFlight[addr] <= 0 {
		delete(g.inFlight, addr)
	}
	if ch := g.settled[addr]; ch != nil {
		close(ch)
		delete(g.settled, addr)
	}
}
