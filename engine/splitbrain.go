package engine

import "fmt"

// splitter is a lock service in which two nodes can serve at once, each
// as the primary of its own side of a partition: an asynchronous primary
// the monitor replaced goes on answering the clients it reaches, unaware
// (asyncService). A grant one of them makes while the other keeps another
// client's lease is a double grant the split caused, not a clock or a
// forgotten grant.
type splitter interface {
	// primaryBeside names the node that serves as primary now beside
	// node, itself serving as one, or "" when node serves alone.
	primaryBeside(node string) string
	// besideRecord returns the lock's entry as the other primary records
	// it, the one serving beside the node whose record is the service's
	// (lockService.record), with the clock that judges it, and names that
	// primary; node is "" when no other primary serves.
	besideRecord(lock string) (e lockEntry, held bool, clock *nodeClock, node string)
	// deposedServing names a deposed primary that is up while no
	// primary serves: it still answers the clients on its side, unaware,
	// and leads there. "" otherwise.
	deposedServing() string
	// kept returns the lock's entry as node records it, and its clock,
	// when node serves as a primary and its record counts client's grant
	// of token, its lease running by that clock.
	kept(node, client string, token int64) (e lockEntry, clock *nodeClock, ok bool)
	// keeper names the node serving as a primary that keeps client's
	// grant of token (kept) for its holder, the node answering it (or,
	// when the holder reaches none, some other client), with its lease
	// ending at until when until is not 0; "" when none does.
	keeper(client string, token, until int64) string
	// copyHolder names a node serving as a primary and answering some
	// client whose record counts client's grant of token, its lease
	// running by its clock (the primary first); "" when none does.
	copyHolder(client string, token int64) string
	// primaryRecord returns the lock's entry as node records it, with
	// the clock that judges it, and whether the monitor deposed node;
	// ok is false when node does not serve as a primary.
	primaryRecord(node string) (e lockEntry, held bool, clock *nodeClock, deposed, ok bool)
	// servesClients reports whether the requests of some client still
	// at work go to node.
	servesClients(node string) bool
}

// leaderNow names the node that leads now, the one a fault aimed at the
// leader strikes and the one a client left without an answer was cut off
// from (cutOffWords): the serving node, or, while none serves, a deposed
// primary still answering its side of a partition; "" when none does.
func (w *world) leaderNow() string {
	if lead := w.svc.serving(); lead != "" {
		return lead
	}
	if sp, ok := w.svc.(splitter); ok {
		return sp.deposedServing()
	}
	return ""
}

// primaryBeside names the primary that serves now beside node, on the
// other side of a partition, or "" (a service that cannot split).
func (w *world) primaryBeside(node string) string {
	if sp, ok := w.svc.(splitter); ok {
		return sp.primaryBeside(node)
	}
	return ""
}

// splitBrainWords says, after a verdict's count of double grants, how many
// two primaries made, each serving its own side of a partition; "" when
// none did.
func splitBrainWords(s Summary) string {
	switch {
	case s.SplitBrainGrants == 0:
		return ""
	case s.SplitBrainGrants == s.DoubleGrants:
		return " (by two primaries at once, each serving its own side of a partition)"
	}
	return fmt.Sprintf(" (%d of them by two primaries at once, each serving its own side of a partition)", s.SplitBrainGrants)
}

// splitFenceWords says why the storage refused client's token though the
// lock service counts client as its holder, having seen fence, a higher
// token, when another primary, serving the other side of a partition,
// granted fence to another client: two primaries granted the lock at
// once, "node-1, cut off from node-2 by a partition, counts
// client-2 as its holder of token 34, while node-2, primary on the other
// side, granted client-1 token 35 at 23.8s: two primaries granted the lock
// at once, each on its own side". "" when none did: the token was handed
// out again, lower than one the storage had seen.
func (w *world) splitFenceWords(client string, token, fence int64) string {
	if g := w.ledger.find(client, token); g != nil && g.node != "" {
		for _, h := range w.ledger.grants {
			if h.token == fence && h.client != client && h.node != "" && h.node != g.node && (h.beside == g.node || g.beside == h.node) {
				return fmt.Sprintf("%s, cut off from %s by a partition, counts %s as its holder of token %d, while %s, primary on the other side, granted %s token %d at %s: two primaries granted the lock at once, each on its own side",
					g.node, h.node, client, token, h.node, h.client, fence, FormatMS(h.start))
			}
		}
	}
	return ""
}

// besideKeeps reports whether the other primary, serving beside the one
// whose record is the service's, still keeps grant h, which it made or
// last renewed (before the partition too): its record holds h's lease,
// running by its clock. A grant the service's primary makes over it is
// two primaries granting, each on its own side.
func (w *world) besideKeeps(h *grantRec) bool {
	sp, ok := w.svc.(splitter)
	if !ok || h.node == "" {
		return false
	}
	e, held, clk, node := sp.besideRecord(w.lockName)
	return node == h.node && held && e.Holder == h.client && e.Token == h.token && clk != nil && clk.at(w.s.now) < e.LeaseUntil
}

// leaseClock is the clock that ends grant g's lease: the service record's,
// or, while the node that granted or last renewed g serves as a primary
// beside the one whose record is the service's and its record holds the
// lease g ends by, that node's own: it keeps the lease, and ends it when
// its clock reads the lease's end. (A lease the service's record holds
// to an earlier end, its renewals lost there, ends by that record's
// clock.)
func (w *world) leaseClock(g *grantRec) *nodeClock {
	if sp, ok := w.svc.(splitter); ok && g.node != "" {
		e, held, clk, node := sp.besideRecord(w.lockName)
		if node == g.node && held && e.Holder == g.client && e.Token == g.token && e.LeaseUntil == g.leaseUntil {
			return clk
		}
	}
	_, _, clk := w.svc.record(w.lockName)
	return clk
}
