package engine

import "fmt"

// A grant a deposed async primary keeps for the clients that reach it,
// or keeps with the renewals another never received, is neither
// forgotten nor cut back when the promoted replica lacks it (keeper): its
// holder is still served it, and a grant made over it is two primaries
// granting at once (split brain), which the promotion's words name.

// keeper names the node that still keeps grant g for the clients it
// answers: a primary, or a deposed one, that some client reaches and
// whose record counts g, its lease running by its clock (and ending at
// until, when until is not 0: the lease g's last renewal gave); "" when
// none does, or the service cannot split.
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
// that reach it", or the renewals that keep one. Those grants are
// neither forgotten nor cut back (forgetLostBy).
func (w *world) keptWords(st fsmState) string {
	words := ""
	for _, g := range w.ledger.grants {
		if !g.open(w.s.now) || w.ledger.find(g.client, g.token) != g {
			continue
		}
		if e, ok := st.Locks[w.lockName]; ok && e.Holder == g.client && e.Token == g.token {
			if k := w.keeper(g, g.leaseUntil); e.LeaseUntil < g.leaseUntil && k != "" {
				words += fmt.Sprintf("; it never received the renewals that keep %s's grant of token %d, which %s, deposed, still holds for the clients that reach it", g.client, g.token, k)
			}
			continue
		}
		if k := w.keeper(g, 0); k != "" {
			words += fmt.Sprintf("; it never received %s's grant of token %d, which %s, deposed, still holds for the clients that reach it", g.client, g.token, k)
		}
	}
	return words
}
