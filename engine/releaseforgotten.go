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
func (w *world) releaseForgotten(how func(holder string, releasedAt int64) string) {
	if w.svc == nil {
		return
	}
	e, held, clk := w.svc.record(w.lockName)
	if !held || clk == nil || clk.at(w.s.now) >= e.LeaseUntil {
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
		if words := w.checkClockWords(actor, e.LeaseUntil); words != "" {
			reason += " " + words
		}
	}
	w.emit(Event{Actor: actor, Kind: KindReleaseForgotten, Holder: g.client, Token: g.token, LeaseUntil: e.LeaseUntil, Node: actor, Reason: reason})
}

// cameBackWords says, for an acquire refused because holder holds the lock
// with token, that holder had released it and the service lost that
// release, when it did: "; the server restarted from the state it saved at
// 15s, before client-2's release reached it at 16.15s, so the lock came
// back".
func (w *world) cameBackWords(holder string, token int64) string {
	g := w.ledger.find(holder, token)
	if g == nil || !g.released || g.back == "" {
		return ""
	}
	return "; " + g.back + ", so the lock came back"
}
