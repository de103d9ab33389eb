package engine

import "fmt"

// splitRefusalWords says, for a request node refused because by its
// record holder holds the lock with token, that two primaries serve at
// once, each its own side of a partition, and disagree about who holds
// it: the refusal is node's record, and the other primary's differs
// ("; node-1, deposed but still serving its side of a partition, holds
// it for client-3, while node-2, the primary on the other side, forgot
// that grant at 5.568s and counts client-1 as its holder of token 34: the
// two primaries disagree about who holds the lock"). The later refusals
// of the same disagreement name whose record refused ("; by the record
// of node-1, deposed but still serving its side of a partition: node-2,
// the primary on the other side, disagrees"). "" when node serves alone,
// or the other primary is a deposed one that answers no client still at
// work (it grants nobody: its record is no longer the service's), or
// counts the same grant, its lease running.
func (w *world) splitRefusalWords(node, holder string, token int64) string {
	sp, ok := w.svc.(splitter)
	if !ok || node == "" || holder == "" {
		return ""
	}
	other := sp.primaryBeside(node)
	if other == "" {
		return ""
	}
	_, _, _, deposed, ok := sp.primaryRecord(node)
	if !ok {
		return ""
	}
	oe, oheld, oclk, odeposed, ok := sp.primaryRecord(other)
	if !ok || odeposed && !sp.servesClients(other) {
		return "" // a deposed primary no working client reaches grants nobody
	}
	live := oheld && oclk != nil && oclk.at(w.s.now) < oe.LeaseUntil
	if live && oe.Holder == holder && oe.Token == token {
		return ""
	}
	g := w.ledger.find(holder, token)
	says := "counts nobody as holder"
	if live {
		says = fmt.Sprintf("counts %s as its holder of token %d", oe.Holder, oe.Token)
	}
	if g != nil && g.lostRunning && g.lostBy == other {
		says = fmt.Sprintf("forgot that grant at %s and %s", FormatMS(g.lostAt), says)
	}
	role, orole := "the primary", "the primary on the other side"
	if deposed {
		role = "deposed but still serving its side of a partition"
	}
	switch {
	case odeposed && deposed:
		orole = "deposed too, serving the other side"
	case odeposed:
		orole = "deposed but still serving the other side"
	}
	// The first refusal of each disagreement says it whole; the later
	// ones, while it lasts, name whose record refused.
	key := node + " " + other + " " + says
	if g != nil && g.splitSaid == key {
		return fmt.Sprintf("; by the record of %s, %s: %s, %s, disagrees", node, role, other, orole)
	}
	if g != nil {
		g.splitSaid = key
	}
	about := "who holds the lock"
	if live && oe.Holder == holder {
		about = "which of " + holder + "'s grants holds the lock" // the same client, by another grant
	}
	return fmt.Sprintf("; %s, %s, holds it for %s, while %s, %s, %s: the two primaries disagree about %s",
		node, role, holder, other, orole, says, about)
}

// twiceWords says, of a request by client naming token that node, a
// deposed primary still serving its side, refused because by its record
// holder has that token, which two nodes handed it out, each serving as
// primary by its own record: "; node-2 granted it to client-1 at 3s, and
// node-1, deposed, never having received that grant, to client-2 at
// 5.6s". (The primary's own refusals follow its promotion, whose
// grant_forgotten already says which grant it lacked.) "" when node is
// not a deposed primary, or the ledger does not hold both grants, made
// by two nodes, the later one a duplicate token.
func (w *world) twiceWords(node, client, holder string, token int64) string {
	sp, ok := w.svc.(splitter)
	if !ok || token == 0 || holder == "" || holder == client {
		return ""
	}
	if _, _, _, deposed, ok := sp.primaryRecord(node); !ok || !deposed {
		return ""
	}
	g, h := w.ledger.find(client, token), w.ledger.find(holder, token)
	if g == nil || h == nil || g.grantedBy == "" || h.grantedBy == "" || g.grantedBy == h.grantedBy {
		return ""
	}
	if h.start < g.start {
		g, h = h, g
	}
	if !h.dupToken {
		return ""
	}
	first, second := g.grantedBy, h.grantedBy+","
	if g.grantedDeposed {
		first += ", deposed,"
	}
	if h.grantedDeposed {
		second += " deposed,"
	}
	return fmt.Sprintf("; %s granted it to %s at %s, and %s never having received that grant, to %s at %s",
		first, g.client, FormatMS(g.start), second, h.client, FormatMS(h.start))
}
