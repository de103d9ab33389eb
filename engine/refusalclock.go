package engine

import "fmt"

// refusedEndWords says by which clock a refusal's lease end, until,
// holds: that of node, the node that refused. Where node refused by a
// copy of a lease another node set (an async replica promoted with the
// primary's record), it judges that end by its own clock, not the
// setter's: "by node-2's clock, which reads true time, an end node-1's
// clock set 11.288s ahead of true time: in true time the lease was to
// run until 24.35s". When the service had already ended that lease
// before now (its setter's clock ran out first), the copy brought back
// an ended lease, and the words say so; once a refusal said so whole,
// the later ones name the copy alone ("by node-2's clock, its copy of
// the lease the lock service had ended at 16.35s: in true time the lease
// ran out at 24.35s"). Elsewhere it is leaseClockWords,
// told in the past ("in true time it ran out at 14.33s") when that end
// had passed before the answer arrived.
func (w *world) refusedEndWords(node, client string, token, until int64) string {
	g := w.ledger.find(client, token)
	clk, skew, ok := w.clockSkew(node)
	setter := ""
	if g != nil {
		setter = g.node
		if g.backEnded > 0 && g.node == node {
			setter = g.backSet // node's copy brought the lease back (bringBack)
		}
	}
	if _, split := w.svc.(splitter); !split || !ok || g == nil || g.released || g.forgotten || setter == "" || node == setter || g.leaseUntil != until {
		by, end, ok := w.leaseClockEnd(client, token, until)
		switch {
		case !ok:
			return ""
		case end <= w.s.now:
			return fmt.Sprintf("by %s's clock; in true time it ran out at %s", by, FormatMS(end))
		}
		return fmt.Sprintf("by %s's clock; in true time it runs until %s", by, FormatMS(end))
	}
	now := w.s.now
	endedAt := g.backEnded
	if !g.open(now) && g.endedAt > 0 && g.endedAt <= now {
		endedAt = g.endedAt
	}
	lets := clk.trueAt(until) // when node's clock reads until, in true time
	if lets == g.trueEnd && endedAt == 0 {
		return ""
	}
	var words string
	switch {
	case endedAt > 0 && g.backEndSaid:
		// The first refusal said it whole; grant_back said it too.
		words = fmt.Sprintf("by %s's clock, its copy of the lease the lock service had ended at %s", node, FormatMS(endedAt))
	default:
		words = "by " + node + "'s clock, which reads true time"
		if skew != 0 {
			words = "by " + node + "'s clock, " + skewWords(skew)
		}
		switch set := until - g.trueEnd; {
		case g.cutBack != "" && g.backEnded > 0:
			words += ", a copy without the renewals that kept the lease" // its end is an older renewal's
		case set != 0:
			words += fmt.Sprintf(", an end %s's clock set %s", setter, skewWords(set))
		}
		if lets != until {
			words += fmt.Sprintf(" (it reads %s at %s in true time)", FormatMS(until), FormatMS(lets))
		}
		if endedAt > 0 {
			words += fmt.Sprintf("; the lock service had ended that lease at %s, and %s's copy brought it back", FormatMS(endedAt), node)
			g.backEndSaid = g.backEnded > 0
		}
	}
	if now < g.trueEnd {
		return words + fmt.Sprintf(": in true time the lease was to run until %s", FormatMS(g.trueEnd))
	}
	return words + fmt.Sprintf(": in true time the lease ran out at %s", FormatMS(g.trueEnd))
}
