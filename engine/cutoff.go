package engine

import "fmt"

// cutOffWords says why no lock server answered client's request when
// the reason is a partition: a lock service that could serve (a server
// up, a leader with a majority, a deposed async primary still answering
// whoever reaches it) stood on the other side. "client-2 was cut off
// from the lock service by a partition" when it reached none of the lock
// servers that were up; "a partition cut client-2 off from node-1, which
// serves the lock" when it reached only others. It is "" when no server
// could serve anyone (all down, no leader, no deposed primary up), for
// which "no lock server answered" is the truth.
//
// The node named is the one that would have answered client but for the
// partition (leaderNow): the serving node, or, while none serves, a
// deposed primary the monitor replaced (or has found none to replace
// with), which still answers every client that reaches it.
func (w *world) cutOffWords(client string) string {
	if w.svc == nil {
		return ""
	}
	serving := w.leaderNow()
	if serving == "" || w.net.connected(client, serving) {
		return ""
	}
	for _, name := range w.svc.nodeNames() {
		if n := w.svc.node(name); n != nil && n.up() && w.net.connected(client, name) {
			return "a partition cut " + client + " off from " + serving + ", which serves the lock"
		}
	}
	return client + " was cut off from the lock service by a partition"
}

// leaseLeftWords ends the words of a release that reached no server: "; the
// lease will run out" while the service still counts the client's grant,
// else that it had already ended it, and when, in true time. A grant the
// service forgot that a node serving as primary still holds, cut off from
// client (a deposed async primary), runs on there: "; node-1, cut off,
// still counts the lease until 16s".
func (w *world) leaseLeftWords(client string, token int64) string {
	g := w.ledger.find(client, token)
	switch {
	case g == nil || g.released:
	case g.forgotten:
		if words := w.cutOffKeepsWords(client, token); words != "" {
			return words
		}
		return "; the lock service had already forgotten the grant"
	case g.end <= w.s.now:
		return "; its lease had already run out at " + FormatMS(g.end)
	}
	return "; the lease will run out"
}

// quorumService is a lock service of independent servers that no one node
// serves: it could serve while a majority of them is up.
type quorumService interface{ quorumUp() bool }

// cutOff reports whether the lock service could serve but no client
// could reach it: the unavailability is the partition's, not the
// servers'. A deposed primary that alone is up could serve: it answers
// whoever reaches it (leaderNow).
func (w *world) cutOff() bool {
	if q, ok := w.svc.(quorumService); ok {
		if !q.quorumUp() {
			return false
		}
	} else if w.svc == nil || w.leaderNow() == "" {
		return false
	}
	for _, c := range w.clients {
		if w.svc.answers(c.cfg.Name) {
			return false
		}
	}
	return true
}

// cutOffKeepsWords says which node serving as primary still counts
// client's grant of token, though the service forgot it, and until when
// in true time: "; node-1, cut off, still counts the lease until 16s"
// (the node that forgot it is named when another serves). "" when none
// does.
func (w *world) cutOffKeepsWords(client string, token int64) string {
	sp, ok := w.svc.(splitter)
	if !ok {
		return ""
	}
	for _, name := range w.svc.nodeNames() {
		e, clk, ok := sp.kept(name, client, token)
		if !ok {
			continue
		}
		words := fmt.Sprintf("; %s, cut off, still counts the lease until %s", name, FormatMS(clk.trueAt(e.LeaseUntil)))
		if lead := w.leaderNow(); lead != "" && lead != name {
			words = fmt.Sprintf("; %s had forgotten the grant, but %s", lead, words[2:])
		}
		return words
	}
	return ""
}
