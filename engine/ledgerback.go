package engine

import "fmt"

// A grant the lock service forgot while its lease ran can come back: a
// deposed async primary, cut off from every client when the promoted
// replica forgot the grant, still holds it, and once a client reaches it
// again (a partition heals, the primary that forgot it crashes, the
// monitor makes it primary again with its own record) it renews the
// grant for its holder and refuses everybody else. The ledger counts the
// grant again from then (seeBack), and the timeline says so; the
// summary's forgotten_grants counts only the grants that stayed
// forgotten. A grant such a node keeps for its holder, the node the
// holder's requests reach, when another forgets it, or keeps with the
// renewals another never received, is neither forgotten nor cut back
// (keeper): its holder is still served it, and a grant made over it is
// two primaries granting at once (split brain), which the promotion's
// words name. A holder served by the node that forgot its grant is
// refused as if it held nothing: that grant is forgotten, though the
// other primary still counts it.

// keeper names the node that still keeps grant g for its holder: a
// primary, or a deposed one, that answers the holder (or, when the holder
// reaches no node, some client) and whose record counts g, its lease
// running by its clock (and ending at until, when until is not 0: the
// lease g's last renewal gave); "" when none does, or the service cannot
// split.
func (w *world) keeper(g *grantRec, until int64) string {
	if sp, ok := w.svc.(splitter); ok {
		return sp.keeper(g.client, g.token, until)
	}
	return ""
}

// keptWords says, on the promotion of a node whose state is st, which
// open grants it never received that another primary, serving its own
// side, keeps for the clients it answers: "; it never received client-1's
// grant of token 35, which node-1, deposed, still holds for the clients
// that reach it", or the renewals that keep one ("; it lacks client-1's
// renewals of token 33, which node-1, deposed, still holds for the
// clients that reach it"). Those grants are
// neither forgotten nor cut back (forgetLostBy).
func (w *world) keptWords(st fsmState) string {
	words := ""
	for _, g := range w.ledger.grants {
		if !g.open(w.s.now) || w.ledger.find(g.client, g.token) != g {
			continue
		}
		if e, ok := st.Locks[w.lockName]; ok && e.Holder == g.client && e.Token == g.token {
			if k := w.keeper(g, g.leaseUntil); e.LeaseUntil < g.leaseUntil && k != "" {
				words += fmt.Sprintf("; it lacks %s's renewals of token %d, which %s, deposed, still holds for the clients that reach it", g.client, g.token, k)
			}
			continue
		}
		if k := w.keeper(g, 0); k != "" {
			words += fmt.Sprintf("; it never received %s's grant of token %d, which %s, deposed, still holds for the clients that reach it", g.client, g.token, k)
		}
	}
	return words
}

// seeBack brings back each grant the service forgot while its lease ran
// that a node serving as primary keeps again for the clients that reach
// it (keeper): the grant counts again, with the lease that node holds,
// by its clock, and grant_back says so.
func (l *ledger) seeBack(w *world) {
	sp, ok := w.svc.(splitter)
	if !ok {
		return
	}
	defer l.seeEndedBack(w)
	for _, g := range l.grants {
		if !g.forgotten || !g.lostRunning || g.released || l.find(g.client, g.token) != g {
			continue
		}
		node := sp.keeper(g.client, g.token, 0)
		if node == "" {
			continue
		}
		e, clk, _ := sp.kept(node, g.client, g.token)
		if e.LeaseUntil != g.leaseUntil {
			g.trueEnd = clk.trueAt(e.LeaseUntil)
		}
		g.forgotten, g.unseen, g.cutBack = false, false, ""
		g.node, g.leaseUntil, g.beside = node, e.LeaseUntil, w.primaryBeside(node)
		g.end = w.serviceEnd(g)
		g.gen++
		l.watch(w, g)
		w.emit(Event{Actor: node, Kind: KindGrantBack, Holder: g.client, Token: g.token, Node: node, LeaseUntil: e.LeaseUntil,
			Reason: w.backWords(g, node, e.LeaseUntil)})
	}
}

// backWords says why grant g is back, kept by node with its lease until
// (by node's clock): "still holds client-2's grant of token 34, which
// node-2 forgot at 22.753s, and clients reach it, a deposed primary: the
// grant is back, its lease running until 42s".
func (w *world) backWords(g *grantRec, node string, until int64) string {
	how := "serving as primary"
	if w.svc.serving() != node {
		how = "a deposed primary"
	}
	who := "the lock service"
	if g.lostBy != "" {
		who = g.lostBy
	}
	words := fmt.Sprintf("still holds %s's grant of token %d, which %s forgot at %s, and clients reach it, %s: the grant is back, its lease running until %s",
		g.client, g.token, who, FormatMS(g.lostAt), how, FormatMS(g.trueEnd))
	if until != g.trueEnd {
		words += fmt.Sprintf(" (%s by %s's clock)", FormatMS(until), node)
	}
	return words
}
