package web

import "sync"

// connPool counts long-lived connections (websockets, or dashboard
// streams) with a cap for all of them and a share for each address, and
// never waits: a caller past either is told at once, so it can answer
// "busy, try again". Without the share one address (a script behind a
// school's NAT) could hold every place and shut everyone else out.
//
// A pool made withSessions also counts the connections of each session
// the server issued (a learner, a signed visitor): each session has
// perSession places of its own, which do not spend the address's share,
// and past them its connections take the address's share like any other;
// the address all together holds at most sessionsMax. A lecture hall of
// 400 behind one NAT, each learner with a session of its own, so fits, and
// a browser with many tabs open still gets the address's share; a script
// without sessions has the address's share, and one that collects them
// (they are issued at visitorRate) still leaves every other address the
// rest of the pool.
type connPool struct {
	mu      sync.Mutex
	used    int
	max     int
	perAddr int
	byAddr  map[string]int // connections without a session, by address

	perSession  int            // 0: sessions are not counted apart
	sessionsMax int            // an address's connections, with a session or not
	bySession   map[string]int // by address and session
	addrTotal   map[string]int // every connection of an address
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

// withSessions counts the connections of issued sessions apart (see
// connPool); addrMax is at least the address share.
func (p *connPool) withSessions(perSession, addrMax int) *connPool {
	p.perSession, p.sessionsMax = perSession, min(max(addrMax, p.perAddr), p.max)
	p.bySession, p.addrTotal = map[string]int{}, map[string]int{}
	return p
}

// tryAcquire takes a place for a connection of addr without a session, or
// says which cap refused it.
func (p *connPool) tryAcquire(addr string) int {
	why, _, _ := p.tryAcquireFor(addr, "")
	return why
}

// tryAcquireFor takes a place for a connection of session (issued by the
// server; "" for none) at addr: one of the session's own places while it
// has one (own), else one of the address's share. Give it back with
// releaseFor and the same own. A refusal says the cap that refused it
// (limit).
func (p *connPool) tryAcquireFor(addr, session string) (why int, own bool, limit int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.used >= p.max:
		return poolFull, false, p.max
	case p.perSession > 0 && p.addrTotal[addr] >= p.sessionsMax:
		return poolAddressFull, false, p.sessionsMax
	}
	key := addr + " " + session
	if own = session != "" && p.perSession > 0 && p.bySession[key] < p.perSession; own {
		p.bySession[key]++
	} else {
		if p.byAddr[addr] >= p.perAddr {
			return poolAddressFull, false, p.perAddr
		}
		p.byAddr[addr]++
	}
	if p.perSession > 0 {
		p.addrTotal[addr]++
	}
	p.used++
	return poolOK, own, 0
}

// release gives back a place taken by tryAcquire.
func (p *connPool) release(addr string) { p.releaseFor(addr, "", false) }

// releaseFor gives back a place taken by tryAcquireFor.
func (p *connPool) releaseFor(addr, session string, own bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.used--
	if own {
		key := addr + " " + session
		if p.bySession[key]--; p.bySession[key] <= 0 {
			delete(p.bySession, key)
		}
	} else if p.byAddr[addr]--; p.byAddr[addr] <= 0 {
		delete(p.byAddr, addr)
	}
	if p.perSession > 0 {
		if p.addrTotal[addr]--; p.addrTotal[addr] <= 0 {
			delete(p.addrTotal, addr)
		}
	}
}

func (p *connPool) inUse() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}
