package engine

// ledger is the lock service's own record of grants, renewals, releases and
// expiries, kept in true simulated time. The summary is judged against it,
// never against what clients believe.
type ledger struct {
	grants []*grantRec
	tokens map[int64]bool
}

// grantRec is one grant and how long it lasted.
type grantRec struct {
	client string
	token  int64
	node   string
	start  int64
	// end is when the service stops counting the grant: its lease end by
	// the serving node's clock (converted to true time), or its release.
	end int64
	// trueEnd is when the grant was meant to end in true time: the last
	// renewal plus the lease, or its release. Clock faults move end, not this.
	trueEnd  int64
	released bool
	gen      int // bumps on every change, so stale expiry timers do nothing
}

func (l *ledger) find(client string, token int64) *grantRec {
	for i := len(l.grants) - 1; i >= 0; i-- {
		if g := l.grants[i]; g.client == client && g.token == token {
			return g
		}
	}
	return nil
}

func (l *ledger) grant(w *world, cmd Command, r Reply, node string) {
	now := w.s.now
	if g := l.find(cmd.Client, r.Token); g != nil && !g.released && now < g.end {
		return // the holder asked again and got its own grant back
	}
	if l.tokens == nil {
		l.tokens = map[int64]bool{}
	}
	if l.tokens[r.Token] {
		w.stats.DuplicateTokens++
	}
	l.tokens[r.Token] = true
	for _, h := range l.grants {
		if h.client != cmd.Client && h.start <= now && now < h.trueEnd {
			w.stats.DoubleGrants++
			break
		}
	}
	g := &grantRec{client: cmd.Client, token: r.Token, node: node, start: now,
		end: w.trueTime(node, r.LeaseUntil), trueEnd: now + cmd.Lease}
	l.grants = append(l.grants, g)
	w.stats.Grants++
	l.watch(w, g)
}

func (l *ledger) renew(w *world, cmd Command, r Reply, node string) {
	g := l.find(cmd.Client, cmd.Token)
	if g == nil {
		return
	}
	g.node = node
	g.end = w.trueTime(node, r.LeaseUntil)
	g.trueEnd = w.s.now + cmd.Lease
	g.gen++
	l.watch(w, g)
}

func (l *ledger) release(w *world, cmd Command) {
	g := l.find(cmd.Client, cmd.Token)
	if g == nil {
		return
	}
	now := w.s.now
	g.released = true
	g.end = min(g.end, now)
	g.trueEnd = min(g.trueEnd, now)
	g.gen++
}

// watch schedules the lease_expired event for the grant's current end.
func (l *ledger) watch(w *world, g *grantRec) {
	gen := g.gen
	w.s.at(g.end, func() {
		if g.gen != gen || g.released {
			return
		}
		w.emit(Event{Actor: g.node, Kind: KindLeaseExpired, Holder: g.client, Token: g.token, Node: g.node})
	})
}

// validHolder reports whether client held an unexpired grant at time t by
// the service's record.
func (l *ledger) validHolder(client string, t int64) bool {
	for _, g := range l.grants {
		if g.client == client && g.start <= t && t < g.end {
			return true
		}
	}
	return false
}

// availability accumulates the time during which no lock server could
// answer.
type availability struct {
	down  bool
	since int64
	total int64
}

func (a *availability) set(now int64, up bool) {
	switch {
	case !up && !a.down:
		a.down, a.since = true, now
	case up && a.down:
		a.down = false
		a.total += now - a.since
	}
}

func (a *availability) until(now int64) int64 {
	if a.down {
		return a.total + now - a.since
	}
	return a.total
}
