package engine

// A lease two primaries both hold, one deposed, ends when the primary the
// clients reach ends it: a deposed primary whose clock runs the lease out
// first (a jump ahead) ends its own record's copy, not the service's. The
// ledger then holds the lease by the serving primary's record, which
// counts it until its own clock ends it, and says no lease_expired: the
// service never stopped counting it (handOver). The deposed primary's
// own end shows where its side sees it, in its answers to the holder.

// handOver moves grant g, whose lease ran out by the clock of the deposed
// primary that last renewed it, to the record of the primary that still
// holds it for the same holder and token and answers some client, and
// reports whether it did. A copy of an older renewal holds the lease to
// an earlier end, as a lost renewal's does (cutBack).
func (l *ledger) handOver(w *world, g *grantRec) bool {
	sp, ok := w.svc.(splitter)
	if !ok || g.node == "" {
		return false
	}
	if _, _, _, deposed, serves := sp.primaryRecord(g.node); !serves || !deposed {
		return false
	}
	node := sp.copyHolder(g.client, g.token)
	if node == "" || node == g.node {
		return false
	}
	if _, _, _, deposed, _ := sp.primaryRecord(node); deposed {
		return false
	}
	e, _, _ := sp.kept(node, g.client, g.token)
	if e.LeaseUntil < g.leaseUntil {
		g.cutBack = node + " never received the renewals that kept this lease"
	}
	g.backUntil = g.leaseUntil // the deposed primary's answers still quote it
	g.node, g.leaseUntil, g.beside = node, e.LeaseUntil, w.primaryBeside(node)
	g.end = w.serviceEnd(g)
	g.gen++
	l.watch(w, g)
	return true
}
