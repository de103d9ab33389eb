package web

import "sync"

// connPool counts long-lived connections (websockets, or dashboard
// streams) with a cap for all of them and a share for each address, and
// never waits: a caller past either is told at once, so it can answer
// "busy, try again". Without the share one address (a script behind a
// school's NAT) could hold every place and shut everyone else out.
type connPool struct {
	mu      sync.Mutex
	used    int
	max     int
	perAddr int
	byAddr  map[string]int
}

// Why a connection was refused.
const (
	poolOK = iota
	poolFull
	poolAddressFull
)

func newConnPool(max, perAddr int) *connPool {
	return &connPool{max: max, perAddr: min(perAddr, max), byAddr: map[string]int{}}
}

// tryAcquire takes a place for addr, or says which cap refused it.
func (p *connPool) tryAcquire(addr string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.used >= p.max:
		return poolFull
	case p.byAddr[addr] >= p.perAddr:
		return poolAddressFull
	}
	p.used++
	p.byAddr[addr]++
	return poolOK
}

func (p *connPool) release(addr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.used--
	if p.byAddr[addr]--; p.byAddr[addr] <= 0 {
		delete(p.byAddr, addr)
	}
}

func (p *connPool) inUse() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}
