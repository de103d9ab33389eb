package engine

import "fmt"

// ledger is the world's account of the grants the lock service made, kept
// in true simulated time: when each began, when the service stopped
// counting it (its lease ran out by the service's clock, it was released,
// or the service lost it), and when it was meant to end. The summary's
// double grants and duplicate tokens are judged against it.
type ledger struct {
	grants []*grantRec
	tokens map[int64]string // each token handed out, and to whom
}

// grantRec is one grant and how long it lasted.
type grantRec struct {
	client string
	token  int64 // 0 under a backend without tokens
	node   string
	start  int64
	lease  int64
	// leaseUntil is the lease end by the service's clock; end is when the
	// service stops counting the grant, in true time.
	leaseUntil int64
	end        int64
	// trueEnd is when the grant was meant to end in true time: the last
	// renewal plus the lease, or its release. Clock faults move end, not this.
	trueEnd   int64
	released  bool
	forgotten bool
	// lostRunning marks a grant the service forgot while its lease ran,
	// lostBy naming the node that served then ("" none) and lostAt when:
	// a node that kept it can bring it back (seeBack).
	lostRunning bool
	lostBy      string
	lostAt      int64
	// releasedAt is when it was released; back, when the service then lost
	// that release and holds the lease again, says how (releaseForgotten).
	releasedAt int64
	back       string
	backGen    int // bumps each time the service brings it back
	backSaid   int // the backGen whose first refusal said how (cameBackWords)
	// grantedBy names the node that made the grant (node is the one that
	// last renewed it); grantedDeposed marks a grant a deposed primary
	// made, still serving its side, unaware.
	grantedBy      string
	grantedDeposed bool
	// endedAt is when the timeline said the lease ran out (lease_expired):
	// the true time the service stopped counting it, which a clock jump
	// past its end makes later than end. 0 until then.
	endedAt int64
	// backEnded is the endedAt of a lease a serving node's record brought
	// back after the service had ended it (bringBack), backSet the node
	// whose clock set the end that record holds, backUntil the lease end
	// the ledger held before (also when a deposed primary's clock ended
	// it and the serving primary's record holds it on: handOver), and
	// backEndSaid whether a refusal by it said so whole (refusedEndWords).
	backEnded   int64
	backSet     string
	backUntil   int64
	backEndSaid bool
	// splitSaid is the last disagreement between two primaries that a
	// refusal naming this grant said whole (splitRefusalWords).
	splitSaid string
	accessed  bool // its holder read or wrote the storage under it
	gen       int  // bumps on every change, so stale expiry timers do nothing
	// unseen is set when the lease ran out while no node that could know
	// it was up and serving: the event waits for one that can.
	unseen bool
	// double: made while another client's grant was still unexpired in
	// true time; dupToken: its token had been handed to another client.
	double, dupToken bool
	// beside names the other primary that served at once, on its own
	// side of a partition, when node made or last renewed this grant ("":
	// none did); splitBrain marks a double grant whose overlapping lease
	// was kept by that other primary: two primaries, each granting.
	beside     string
	splitBrain bool
	// cutBack says why the service's record holds this lease to an
	// earlier end than its last renewal did: the renewals that kept it
	// were lost (world.renewalsLost).
	cutBack string
}

func (g *grantRec) open(now int64) bool { return !g.released && !g.forgotten && now < g.end }

func (l *ledger) find(client string, token int64) *grantRec {
	for i := len(l.grants) - 1; i >= 0; i-- {
		if g := l.grants[i]; g.client == client && g.token == token {
			return g
		}
	}
	return nil
}

// add records a new grant made now, noting whether it is a double grant
// or hands out a duplicate token.
func (l *ledger) add(w *world, g *grantRec) {
	now := w.s.now
	if old := l.find(g.client, g.token); old != nil && old.open(now) {
		// The holder asked again and got its own grant back; where any
		// request starts the lease again, so did this one.
		if w.backend.touches {
			old.node, old.leaseUntil, old.trueEnd, old.beside = g.node, g.leaseUntil, max(old.trueEnd, g.trueEnd), g.beside
			old.end = w.serviceEnd(old)
			old.gen++
			l.watch(w, old)
		}
		return
	}
	if l.tokens == nil {
		l.tokens = map[int64]string{}
	}
	// A token is a duplicate when another client had it: handed again to
	// the same client (whose first grant was lost, its answer never heard)
	// it still names one holder.
	if g.token != 0 {
		if had, seen := l.tokens[g.token]; seen && had != g.client {
			g.dupToken = true
		}
		l.tokens[g.token] = g.client
	}
	for _, h := range l.grants {
		if h.client != g.client && h.start <= now && now < h.trueEnd {
			g.double = true
			g.splitBrain = g.splitBrain || (h.beside != "" && h.beside == g.node && g.beside == h.node) ||
				(g.beside != "" && g.beside == h.node && w.besideKeeps(h))
		}
	}
	g.start = now
	l.grants = append(l.grants, g)
	l.watch(w, g)
}

// grant records a grant of a leader-based service (Raft, single, replica).
func (l *ledger) grant(w *world, cmd Command, r Reply, node string) {
	l.grantFrom(w, cmd, r, node, w.s.now)
}

// grantFrom records a grant whose lease runs from the true time stamped,
// when the leader stamped the command: a command that commits later (an
// ambiguous commit, ambiguous.go) holds the lease it was stamped with.
func (l *ledger) grantFrom(w *world, cmd Command, r Reply, node string, stamped int64) {
	g := &grantRec{client: cmd.Client, token: r.Token, node: node, lease: cmd.Lease, leaseUntil: r.LeaseUntil,
		trueEnd: stamped + cmd.Lease + heldBack(cmd, r), beside: w.primaryBeside(node), grantedBy: node}
	if sp, ok := w.svc.(splitter); ok && node != "" {
		_, _, _, g.grantedDeposed, _ = sp.primaryRecord(node)
	}
	if old := l.find(cmd.Client, r.Token); old != nil && old.leaseUntil == r.LeaseUntil && r.LeaseUntil < r.Now+cmd.Lease {
		// The state machine answered with the lease it already held for
		// this client (a record that brought it back after another node
		// ended it by its clock): the lease runs as it was granted, not
		// from now.
		g.trueEnd = old.trueEnd
	}
	g.end = w.serviceEnd(g)
	l.add(w, g)
}

func (l *ledger) renew(w *world, cmd Command, r Reply, node string) {
	l.renewFrom(w, cmd, r, node, w.s.now)
}

// renewFrom records a renewal whose lease runs from the true time stamped.
func (l *ledger) renewFrom(w *world, cmd Command, r Reply, node string, stamped int64) {
	g := l.find(cmd.Client, cmd.Token)
	if g == nil || g.forgotten {
		return
	}
	g.node, g.leaseUntil, g.beside, g.cutBack = node, r.LeaseUntil, w.primaryBeside(node), ""
	g.backEnded, g.backSet, g.backUntil = 0, "", 0 // a renewed lease is no copy of an ended one
	g.end = w.serviceEnd(g)
	g.trueEnd = stamped + cmd.Lease + heldBack(cmd, r)
	g.gen++
	l.watch(w, g)
}

// heldBack is how far the state machine's time, by which it timed the
// lease, ran ahead of the clock of the node that stamped cmd (cmd.Now): a
// state machine's time never goes back, so after that clock jumped back
// (or a leader with a slower clock took over) it times a lease from the
// last command's time, and the lease lasts that much longer in true time
// than its length. The service lets nobody else in until then: that is
// the lease's true end.
func heldBack(cmd Command, r Reply) int64 {
	return max(r.Now-cmd.Now, 0)
}

func (l *ledger) release(w *world, client string, token int64) {
	g := l.find(client, token)
	if g == nil {
		return
	}
	now := w.s.now
	g.released, g.releasedAt = true, now
	g.end = min(g.end, now)
	g.trueEnd = min(g.trueEnd, now)
	g.gen++
}

// rewatch recomputes when open grants end after the service's clock
// changed (a clock jump, a new leader with another clock).
func (l *ledger) rewatch(w *world) {
	for _, g := range l.grants {
		if g.open(w.s.now) {
			if end := w.serviceEnd(g); end != g.end {
				g.end = end
				g.gen++
				l.watch(w, g)
			}
		}
	}
}

// watch schedules the lease_expired event for the grant's current end.
func (l *ledger) watch(w *world, g *grantRec) {
	gen := g.gen
	w.s.at(g.end, func() {
		if g.gen != gen || g.released || g.forgotten {
			return
		}
		l.expired(w, g)
	})
}

// expired shows that a lease ran out, told by a node that can know it; a
// crashed node, or a Raft node cut off from the majority, cannot. With no
// such node, the event waits until one serves (seeUnseen).
func (l *ledger) expired(w *world, g *grantRec) {
	if l.handOver(w, g) {
		return
	}
	actor := w.expiryWitness(g)
	if actor == "" {
		g.unseen = true
		return
	}
	told := g.unseen // told late: no node could when it ran out
	g.unseen = false
	g.endedAt = w.s.now
	if told {
		g.endedAt = g.end
	}
	e := Event{Actor: actor, Kind: KindLeaseExpired, Holder: g.client, Token: g.token, Node: actor}
	if actor == w.backend.Actor {
		e.Node = "" // no one node tells it
	}
	e.Message = w.expiryWords(g, told)
	e.RenewalsLost = g.cutBack != "" && g.end < g.trueEnd
	if w.backend.expired != nil {
		e.Message = joinWords(e.Message, w.backend.expired(w, g))
	}
	w.emit(e)
	w.lockDelayEvent(actor, g)
}

// leaseClockWords says by which clock a grant's or renewal's lease end,
// until, was set, when that clock did not read true time (a node's clock
// that jumped or drifts, a state machine's time held back by an earlier
// command's): "by node-1's clock; in true time it runs until 13s", the
// lease being its length from the true time it was granted. A clock that
// read true time needs no words.
func (w *world) leaseClockWords(client string, token, until int64) string {
	node, end, ok := w.leaseClockEnd(client, token, until)
	if !ok {
		return ""
	}
	return fmt.Sprintf("by %s's clock; in true time it runs until %s", node, FormatMS(end))
}

// leaseClockEnd names the clock that set the lease end until of client's
// grant of token, and when that lease runs out in true time; ok is false
// when that clock read true time, or the ledger holds no such lease.
func (w *world) leaseClockEnd(client string, token, until int64) (node string, end int64, ok bool) {
	g := w.ledger.find(client, token)
	if g == nil || g.released || g.leaseUntil != until || g.node == "" {
		return "", 0, false
	}
	node, end = g.node, g.trueEnd
	if g.cutBack != "" {
		// The service holds the lease by an older record, its renewals
		// lost: it ends when the serving node's clock reads until.
		node, end = w.svc.serving(), g.end
	}
	if end == until || node == "" {
		return "", 0, false
	}
	return node, end, true
}

// expiryWords says why a lease ended when it did, judged by true time:
// when the lock service's clock is off (a jump, a drift, a leader whose
// clock differs) and ended it before or after its true end, by how much
// and when it truly ran out; when no node that knew of it served as it
// ran out (told), that it is told late. A lease that simply ran its
// course needs no words.
func (w *world) expiryWords(g *grantRec, told bool) string {
	var words string
	skew := int64(0)
	if w.svc != nil {
		if clk := w.leaseClock(g); clk != nil {
			skew = clk.at(w.s.now) - w.s.now
		}
	}
	// set is how far the clock that recorded the lease's end (at its last
	// grant or renewal) was from true time: a successor judging that end
	// by a truer clock ends the lease early or late though its own clock
	// is right.
	set := g.leaseUntil - g.trueEnd
	switch {
	case g.cutBack != "" && g.end < g.trueEnd:
		words = fmt.Sprintf("%s: in true time it was to last until %s", g.cutBack, FormatMS(g.trueEnd))
	case skew > 0 && g.end < g.trueEnd:
		words = fmt.Sprintf("the lock service's clock, %s ahead of true time, ended it early: in true time it was to last until %s", FormatMS(skew), FormatMS(g.trueEnd))
	case g.end < g.trueEnd && set < 0 && g.leaseUntil > 0:
		words = fmt.Sprintf("its end, %s, was set by %s's clock, %s behind true time, and came early: in true time it was to last until %s", FormatMS(g.leaseUntil), g.node, FormatMS(-set), FormatMS(g.trueEnd))
	case skew < 0 && g.end > g.trueEnd:
		words = fmt.Sprintf("the lock service's clock, %s behind true time, ended it late: in true time it ran out at %s", FormatMS(-skew), FormatMS(g.trueEnd))
	}
	if told && w.s.now > g.end {
		if words == "" {
			return "it ran out at " + FormatMS(g.end) + ", while no node that knew of it served"
		}
		words = joinWords(words, "no node that knew of it served until now")
	}
	return words
}

// lockDelayEvent shows the lock-delay window that a lease's end without a
// release opens (lock.lock_delay): nobody is granted the lock until it
// closes, by the clock of the service's record. The window runs from the
// lease's end by that clock, as the state machine times it: a lease whose
// end is told late (no node that knew of it served) or that a clock jump
// ended past its end opened its window then, not now. Where a key stands
// until a command deletes it, the window opens at that delete, which is
// now.
func (w *world) lockDelayEvent(actor string, g *grantRec) {
	d := w.sc.Lock.LockDelay.MS()
	if d <= 0 {
		return
	}
	clk := w.leaseClock(g)
	from := clk.at(w.s.now)
	if g.leaseUntil > 0 && !w.keysStand() {
		from = min(from, g.leaseUntil)
	}
	until := clk.trueAt(from + d)
	msg := fmt.Sprintf("lock-delay: the lease ended without a release, so nobody gets the lock until %s", FormatMS(until))
	if until <= w.s.now {
		msg = fmt.Sprintf("lock-delay: the lease ended without a release, so nobody could get the lock until %s, which has passed", FormatMS(until))
	}
	w.emit(Event{Actor: actor, Kind: KindLockDelay, Holder: g.client, Token: g.token, For: d, Until: until, Message: msg})
}

// keysStand reports whether the backend's lock stays held until a command
// deletes it, whatever a clock says (fsmRules.keysStand).
func (w *world) keysStand() bool {
	return w.backend.store != nil && w.backend.store().rules().keysStand
}

// joinWords joins two sentences, either of which may be empty.
func joinWords(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// seeUnseen shows the lease ends that no node could tell when they
// happened, now that one can.
func (l *ledger) seeUnseen(w *world) {
	for _, g := range l.grants {
		if g.unseen && !g.released && !g.forgotten {
			l.expired(w, g)
		}
	}
}

// latest returns the client's most recent grant.
func (l *ledger) latest(client string) *grantRec {
	for i := len(l.grants) - 1; i >= 0; i-- {
		if l.grants[i].client == client {
			return l.grants[i]
		}
	}
	return nil
}

// touched marks that a client used the storage under its current grant.
func (l *ledger) touched(client string, token int64) {
	g := l.find(client, token)
	if token == 0 {
		g = l.latest(client)
	}
	if g != nil {
		g.accessed = true
	}
}

// supersededBy reports whether another client, granted the lock after
// client's own latest grant, had already used the storage: the one case in
// which a write from a client the service no longer counts as holder
// breaks mutual exclusion (a write before the next holder begins is merely
// ordered before its work).
func (l *ledger) supersededBy(client string) bool {
	own := l.latest(client)
	after := own == nil
	for _, g := range l.grants {
		if g == own {
			after = true
			continue
		}
		if after && g.client != client && g.accessed {
			return true
		}
	}
	return false
}

// availability accumulates the time during which no lock server could
// answer, and within it the time during which the lock service could serve
// but a partition cut every client off from it.
type availability struct {
	down  bool
	since int64
	total int64
	// cut: the current down time is a partition's; cutSince is when it
	// became one, cutTotal the earlier such time.
	cut      bool
	cutSince int64
	cutTotal int64
}

// set records at now whether some client's request would be answered
// (up) and, when none would, whether a partition is why (cut).
func (a *availability) set(now int64, up, cut bool) {
	if a.down && a.cut {
		a.cutTotal += now - a.cutSince
	}
	switch {
	case !up && !a.down:
		a.down, a.since = true, now
	case up && a.down:
		a.down = false
		a.total += now - a.since
	}
	a.cut, a.cutSince = a.down && cut, now
}

func (a *availability) until(now int64) int64 {
	if a.down {
		return a.total + now - a.since
	}
	return a.total
}

// cutUntil is the part of until(now) during which a partition cut every
// client off from a lock service that could serve.
func (a *availability) cutUntil(now int64) int64 {
	if a.down && a.cut {
		return a.cutTotal + now - a.cutSince
	}
	return a.cutTotal
}
