package engine

import "fmt"

// lostReleases follows the releases Redlock servers lost by restarting
// from a save older than them: each such server counts its holder's lease
// again. One server is one vote: the lock came back only when a majority
// of the servers count the lease again, and only then is it said as a
// release the lock service forgot (release_forgotten, counted in the
// summary), with the lease's end. A server that counts it alone says so
// in the refusals it causes.
type lostReleases struct {
	// releasedAt holds when each server last applied each client's
	// release, in true time.
	releasedAt map[string]map[string]int64
	// back holds, per server, the lease a lost release brought back there.
	back map[string]*lostLease
	// gen bumps each time a lease is said brought back to a majority, so
	// that only the latest watch shows its end (watchBack).
	gen int
	// said holds the holders whose lease is said brought back to a
	// majority and has not ended yet.
	said map[string]bool
}

// lostLease is a lease a server counts again after it lost its holder's
// release at releasedAt; refused is set once a refusal named it.
type lostLease struct {
	holder     string
	until      int64
	releasedAt int64
	refused    bool
}

// applied notes that server applied client's release at now.
func (l *lostReleases) applied(server, client string, now int64) {
	if l.releasedAt == nil {
		l.releasedAt = map[string]map[string]int64{}
	}
	if l.releasedAt[server] == nil {
		l.releasedAt[server] = map[string]int64{}
	}
	l.releasedAt[server][client] = now
}

// lostRelease notes that server n, restarted from a save older than
// holder's release, counts holder's lease again, when that lease still
// runs by its clock; when a majority of the servers now count it so, the
// lock came back: the service says it forgot the release.
func (s *redlockService) lostRelease(n *simNode, holder string) {
	w := s.w
	_, _, until, _ := n.fsm.Entry(w.lockName)
	at, ok := s.lost.releasedAt[n.name][holder]
	if !ok || at < n.savedAt || n.clock.at(w.s.now) >= until {
		return
	}
	if s.lost.back == nil {
		s.lost.back, s.lost.said = map[string]*lostLease{}, map[string]bool{}
	}
	s.lost.back[n.name] = &lostLease{holder: holder, until: until, releasedAt: at}
	servers := s.countingAgain(holder)
	if len(servers) < s.majority() || s.lost.said[holder] {
		return
	}
	s.lost.said[holder] = true
	end := s.majorityEnd(w.lockName, holder)
	reason := fmt.Sprintf("%s restarted from saves older than %s's release: %d of the %d servers count %s's lease again, a majority, until %s",
		listWords(servers, "and"), holder, len(servers), len(s.nodes), holder, FormatMS(end))
	w.emit(Event{Actor: w.backend.Actor, Kind: KindReleaseForgotten, Holder: holder, LeaseUntil: end, Reason: reason})
	s.lost.gen++
	s.watchBack(holder, at, s.lost.gen)
}

// countingAgain lists the servers up that count holder's lease again
// because they lost its release, while that lease runs by their clocks.
func (s *redlockService) countingAgain(holder string) []string {
	var out []string
	for _, n := range s.nodes {
		if s.broughtBack(n, holder) != nil {
			out = append(out, n.name)
		}
	}
	return out
}

// broughtBack is the lease server n counts again for holder after losing
// its release, while its record still holds it and it runs; nil if none.
func (s *redlockService) broughtBack(n *simNode, holder string) *lostLease {
	l := s.lost.back[n.name]
	if l == nil || l.holder != holder || !n.up() {
		return nil
	}
	h, _, until, held := n.fsm.Entry(s.w.lockName)
	if !held || h != holder || until != l.until || n.clock.at(s.w.s.now) >= until {
		return nil
	}
	return l
}

// watchBack shows the end of a lease that lost releases brought back to a
// majority of servers: nobody else can gather a majority before, so the
// timeline says when, and that it was that lease. The end is not shown
// when the holder took the lock again, or another restart moved it.
func (s *redlockService) watchBack(holder string, releasedAt int64, gen int) {
	w := s.w
	w.s.at(s.majorityEnd(w.lockName, holder), func() {
		if s.lost.gen != gen {
			return
		}
		if g := w.ledger.latest(holder); g != nil && !g.released {
			s.lost.said[holder] = false
			return // it holds the lock again: its own lease
		}
		if s.holders(w.lockName)[holder] >= s.majority() { // a clock moved back: not yet
			s.watchBack(holder, releasedAt, gen)
			return
		}
		s.lost.said[holder] = false
		w.emit(Event{Actor: w.backend.Actor, Kind: KindLeaseExpired, Holder: holder,
			Message: fmt.Sprintf("it was the lease lost releases brought back to a majority of the servers; %s had given the lock back at %s", holder, FormatMS(releasedAt))})
	})
}

// cameBack reports whether server i refused an acquire because of the
// lease its lost release brought back (holder's), the first time it does:
// a later refusal names no cause again.
func (s *redlockService) cameBack(i int, holder string) bool {
	l := s.broughtBack(s.nodes[i], holder)
	if l == nil || l.refused {
		return false
	}
	l.refused = true
	return true
}

// cameBackWords says which servers refused for a lease that a lost
// release brought back: "; node-1 and node-2 count client-1's lease
// again: they restarted from saves older than its release".
func (s *redlockService) cameBackWords(servers []string) string {
	if len(servers) == 0 {
		return ""
	}
	holder := s.lost.back[servers[0]].holder
	return fmt.Sprintf("; %s %s %s's lease again: %s from %s older than its release", listWords(servers, "and"),
		pluralWord(len(servers), "counts", "count"), holder, pluralWord(len(servers), "it restarted", "they restarted"), pluralWord(len(servers), "a save", "saves"))
}
