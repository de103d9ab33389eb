package engine

import "fmt"

// releaseForgotten shows a release the lock service lost with its state (a
// restart from a save older than the release, a promoted replica that never
// got the copy): its record holds the lock again for a holder that gave it
// back, whose lease by that record still runs, so others are refused as
// though it held the lock until that lease runs out. how says what lost the
// release, given the holder and when the service applied it: "the server
// restarted from the state it saved at 15s, before client-2's release
// reached it at 16.15s".
//
// Where a release can be lost, the backend calls this: a single server
// restarting from an older save (singleService.restart); an async replica
// promoted, or a primary rejoining as a replica, without the release's
// copy, or a deposed primary that alone applied it (asyncService.failover,
// rejoin, releaseSplit); a Raft group electing a leader after a node lost
// its disk (raftService.elect: the copies a majority stored may be gone).
// A backend of independent servers says it of the one server that lost it.
// A Raft group whose nodes keep their disks loses no committed release:
// every majority's logs hold it, and a release whose commit is in doubt is
// not one the world counts until it commits (ambiguous.go). A backend that
// cannot lose one says why beside its entry.
func (w *world) releaseForgotten(how func(holder string, releasedAt int64) string) {
	if w.svc == nil {
		return
	}
	e, held, clk := w.svc.record(w.lockName)
	if !held || clk == nil || w.machineAt(clk) >= e.LeaseUntil {
		return
	}
	g := w.ledger.find(e.Holder, e.Token)
	if g == nil || !g.released {
		return
	}
	g.back = how(g.client, g.releasedAt)
	actor := w.svc.serving()
	reason := fmt.Sprintf("%s: by its record %s holds the lock again, until %s", g.back, g.client, FormatMS(e.LeaseUntil))
	if actor != "" {
		if words := w.checkClockWords("", 0, actor, e.LeaseUntil); words != "" {
			reason += " " + words
		}
	}
	w.emit(Event{Actor: actor, Kind: KindReleaseForgotten, Holder: g.client, Token: g.token, LeaseUntil: e.LeaseUntil, Node: actor, Reason: reason})
	g.backGen++
	w.watchBroughtBack(g, g.backGen)
}

// watchBroughtBack shows the end of a lease that a lost release brought
// back (g), when the service's record ends it by its clock: nobody else
// is granted the lock before, so the timeline says when, and why the lock
// is free only then. The end is not shown when the record changed first
// (another restart, a grant), or while no node serves.
func (w *world) watchBroughtBack(g *grantRec, gen int) {
	e, held, clk := w.svc.record(w.lockName)
	if !held || e.Holder != g.client || e.Token != g.token {
		return
	}
	w.s.at(max(clk.trueAt(e.LeaseUntil), w.s.now), func() {
		e, held, clk := w.svc.record(w.lockName)
		actor := w.svc.serving()
		if g.backGen != gen || !held || e.Holder != g.client || e.Token != g.token || actor == "" {
			return
		}
		if w.machineAt(clk) < e.LeaseUntil { // its clock moved back: not yet
			w.watchBroughtBack(g, gen)
			return
		}
		w.emit(Event{Actor: actor, Kind: KindLeaseExpired, Holder: g.client, Token: g.token, Node: actor,
			Message: "it was the lease a lost release brought back; " + g.client + " had given the lock back at " + FormatMS(g.releasedAt)})
		w.lockDelayEvent(actor, &grantRec{client: g.client, token: g.token, leaseUntil: e.LeaseUntil})
	})
}

// cameBackWords says, for an acquire refused because holder holds the lock
// with token, that holder had released it and the service lost that
// release, when it did: "; the server restarted from the state it saved at
// 15s, before client-2's release reached it at 16.15s, so the lock came
// back". It says so on the first refusal of each lease brought back; the
// later ones, while that lease runs, name the holder alone.
func (w *world) cameBackWords(holder string, token int64) string {
	g := w.ledger.find(holder, token)
	if g == nil || !g.released || g.back == "" || g.backSaid == g.backGen {
		return ""
	}
	g.backSaid = g.backGen
	return "; " + g.back + ", so the lock came back"
}
