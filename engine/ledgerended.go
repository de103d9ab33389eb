package engine

import "fmt"

// A lease the lock service ended can come back too: the node whose clock
// ended it (a fast clock, a jump ahead) is not the only one with a record.
// A replica promoted with its copy of the lease, which its own clock
// holds longer, or a primary whose record kept it while a deposed one's
// clock ran it out and no client reached it (one that some client
// reaches holds the lease on: handOver), counts the lease again and
// refuses everybody else for its holder. The ledger counts the grant again from the moment that
// first matters, the promotion or the first request such a node serves
// by it (seeEndedBack), and grant_back says so: the summary's double
// grants and the stale writes are judged by the lease the service holds.

// seeEndedBack brings back each lease the timeline said ended
// (lease_expired) that a node serving as primary and answering some
// client still holds for the same holder and token, its lease running by
// its clock: the grant counts again, with the lease that node holds, and
// grant_back says so.
func (l *ledger) seeEndedBack(w *world) {
	sp, ok := w.svc.(splitter)
	if !ok {
		return
	}
	for _, g := range l.grants {
		if l.ended(w, g) {
			if node := sp.copyHolder(g.client, g.token); node != "" {
				l.bringBack(w, g, node)
			}
		}
	}
}

// seeEndedServed brings back the lease that node's record holds, when the
// timeline said it ended, as node serves a request it answers by that
// lease: another client's acquire, which it refuses, or the holder's
// renewal or check.
func (l *ledger) seeEndedServed(w *world, node string, cmd Command) {
	sp, ok := w.svc.(splitter)
	if !ok {
		return
	}
	e, held, _, _, ok := sp.primaryRecord(node)
	if !ok || !held || e.Token == 0 {
		return
	}
	switch {
	case cmd.Op == OpAcquire && cmd.Client != e.Holder:
	case (cmd.Op == OpRenew || cmd.Op == OpCheck) && cmd.Client == e.Holder && cmd.Token == e.Token:
	default:
		return
	}
	g := l.find(e.Holder, e.Token)
	if g == nil || !l.ended(w, g) {
		return
	}
	if _, _, kept := sp.kept(node, e.Holder, e.Token); kept {
		l.bringBack(w, g, node)
	}
}

// ended reports whether the timeline said grant g's lease ended and the
// service has counted it no more since: not released, not forgotten, not
// granted again.
func (l *ledger) ended(w *world, g *grantRec) bool {
	return g.endedAt > 0 && !g.released && !g.forgotten && !g.open(w.s.now) && l.find(g.client, g.token) == g
}

// bringBack counts grant g again, held by node's record until its lease
// end there, by node's clock, and says so (grant_back with ended).
func (l *ledger) bringBack(w *world, g *grantRec, node string) {
	sp := w.svc.(splitter)
	e, clk, _ := sp.kept(node, g.client, g.token)
	g.backEnded, g.backSet, g.backUntil, g.backEndSaid = g.endedAt, g.node, g.leaseUntil, false
	g.cutBack = ""
	if e.LeaseUntil < g.leaseUntil {
		// node's copy is of an older renewal: its lease ends before the
		// one the last renewal gave, as a lost renewal's does.
		g.cutBack = node + " never received the renewals that kept this lease"
	}
	g.node, g.leaseUntil, g.beside = node, e.LeaseUntil, w.primaryBeside(node)
	g.end = w.serviceEnd(g)
	g.gen++
	l.watch(w, g)
	w.emit(Event{Actor: node, Kind: KindGrantBack, Holder: g.client, Token: g.token, Node: node, LeaseUntil: e.LeaseUntil, Ended: true,
		Reason: w.endedBackWords(g, node, e.LeaseUntil, clk)})
}

// endedBackWords says why the lease of grant g, which the service had
// ended, is back, held by node until until by its clock clk: "node-2's
// copy of client-3's lease (token 35) outlives its end at 16.35s: the
// promoted replica counts it until 35.638s by its clock (24.35s in true
// time)".
func (w *world) endedBackWords(g *grantRec, node string, until int64, clk *nodeClock) string {
	role := "the primary"
	_, _, _, deposed, _ := w.svc.(splitter).primaryRecord(node)
	switch {
	case deposed:
		role = "a deposed primary, still serving its side,"
	case g.backSet != node:
		role = "the promoted replica"
	}
	words := fmt.Sprintf("%s's copy of %s's lease (token %d) outlives its end at %s: %s counts it until %s by its clock",
		node, g.client, g.token, FormatMS(g.backEnded), role, FormatMS(until))
	if clk != nil {
		if at := clk.trueAt(until); at != until {
			words += fmt.Sprintf(" (%s in true time)", FormatMS(at))
		}
	}
	return words
}
