package engine

import "fmt"

// The failover monitor of the async replica: it stands with the rest of
// the system (on no partition's side), replaces a primary it lost after
// lock.election, and when it reaches no node to promote, waits for one
// and tries again, as a Sentinel-style monitor does.

// failover replaces primary old: the monitor chooses lock.election later.
func (s *asyncService) failover(old int) {
	s.primary = -1
	s.lost = old
	s.stuck = false
	s.chooseLater()
}

// retry has a failover that found no node to promote try again, as a
// Sentinel-style monitor does, once it reaches a node: one came back, or
// a partition that cut it off healed.
func (s *asyncService) retry() {
	if s.stuck && s.primary < 0 && (s.monitored(0) || s.monitored(1)) {
		s.stuck = false
		s.chooseLater()
	}
}

// chooseLater has the monitor choose a primary lock.election from now,
// unless a choice is already due: it judges the nodes as they are then.
func (s *asyncService) chooseLater() {
	if s.due {
		return
	}
	s.due = true
	s.w.s.at(s.w.s.now+s.w.sc.Lock.Election.MS(), func() {
		s.due = false
		if s.primary < 0 {
			s.choose()
		}
	})
}

// choose makes a primary of the node the monitor reaches: the primary it
// lost, which then serves again with all it had, or else the other node,
// promoted with what it has (the copies a replica received, or what a
// deposed primary granted alone); the grants and releases it never got
// are forgotten. With neither reachable, the monitor waits (retry).
func (s *asyncService) choose() {
	w := s.w
	// The lock service is available again from the promotion on, not
	// from the next request, and judges leases by the new primary's
	// clock.
	defer w.leaderChanged()
	old := s.lost
	to := s.other(old)
	if s.monitored(old) {
		// It came back before another could be promoted: it serves again,
		// and a deposed primary that reaches it rejoins as its replica.
		s.primary, s.missed[old] = old, false
		s.deposed[old], s.deposedAt[old] = false, 0
		w.nodeEvent(s.nodes[old].name, KindLeader, "serves again as primary")
		s.catchUp()
		return
	}
	if !s.monitored(to) {
		s.stuck = true
		w.emit(Event{Actor: s.nodes[to].name, Kind: KindNoLeader, Reason: "no node can be promoted: neither is up and reachable; the monitor tries again when it reaches one"})
		return
	}
	s.primary, s.missed[to] = to, false
	promoted, had, applier := "the promoted replica", "with the copies it had received", "the old primary"
	if s.deposed[to] {
		// A primary the monitor replaced: it granted alone while cut
		// off, and never heard what its successor did.
		s.deposed[to], s.deposedAt[to] = false, 0
		promoted = "the deposed primary made primary again"
		had = fmt.Sprintf("again with its own record: %s was cut off while %s served, and never received what %s did", s.nodes[to].name, s.nodes[old].name, s.nodes[old].name)
		applier = s.nodes[old].name
	}
	w.nodeEvent(s.nodes[to].name, KindLeader, fmt.Sprintf("is promoted to primary %s (next token %d)%s", had, s.nodes[to].fsm.NextToken(), w.keptWords(s.nodes[to].fsm.state())))
	w.forgetLost(s.nodes[to].fsm.state(), promoted+" never received this grant", promoted+" never received the renewals that kept this lease")
	w.releaseForgotten(func(holder string, at int64) string {
		return fmt.Sprintf("%s never received %s's release, which %s applied at %s", promoted, holder, applier, FormatMS(at))
	})
	s.catchUp()
}

// catchUp brings up to date each node that reaches the primary and needs
// it: a deposed primary, or a replica that missed copies.
func (s *asyncService) catchUp() {
	for i := range s.nodes {
		if s.primary < 0 || i == s.primary || !s.linked(i, s.primary) || (!s.deposed[i] && !s.missed[i]) {
			continue
		}
		s.deposed[i] = false
		s.rejoin(s.nodes[i])
	}
}
