package engine

import "fmt"

// The lock service answers a renew or a check with a lease end read on the
// answering node's clock ("still holds token 33 until 22s", "the lease of
// token 33 ran out at 22s"). When that clock is off true time (a jump, a
// drift), the answer says whose clock it is and what the end is in true
// time, as a grant does (leaseClockWords). A clock that reads true time
// needs no words, so the answers of runs without clock faults stay as they
// are. A granted check is judged by the clock as it reads when the answer
// arrives (the lease end it quotes is then read on it); a refusal by the
// clock as it read when the node served it, which judged it.

// clockSkew is how far node's clock reads from true time now; ok is false
// when the node is unknown.
func (w *world) clockSkew(node string) (clk *nodeClock, skew int64, ok bool) {
	if w.svc == nil {
		return nil, 0, false
	}
	n := w.svc.node(node)
	if n == nil {
		return nil, 0, false
	}
	return &n.clock, n.clock.at(w.s.now) - w.s.now, true
}

// skewWords says how far a clock is from true time: "3s ahead of true
// time".
func skewWords(skew int64) string {
	if skew < 0 {
		return FormatMS(-skew) + " behind true time"
	}
	return FormatMS(skew) + " ahead of true time"
}

// checkClockWords says by whose clock a check's "still holds token 33
// until 22s" is read, when that clock is off true time: "by node-1's clock;
// in true time it runs until 13s", the true time at which that clock will
// read the end, as a grant says it. When that is not the end the lease was
// granted or renewed for (the clock moved since, or another node's clock
// set it), it says both: "by node-1's clock, which reads 13s at 40s in true
// time; in true time it ran out at 13s".
func (w *world) checkClockWords(client string, token int64, node string, until int64) string {
	clk, skew, ok := w.clockSkew(node)
	if !ok || until <= 0 {
		return ""
	}
	return w.skewedCheckWords(client, token, node, skew, until, clk.trueAt(until))
}

// skewedCheckWords is checkClockWords for a clock skew off true time that
// reads the lease end until at trueUntil.
func (w *world) skewedCheckWords(client string, token int64, node string, skew, until, trueUntil int64) string {
	if skew == 0 {
		return ""
	}
	g := w.ledger.find(client, token)
	if g == nil || g.released || g.leaseUntil != until || g.trueEnd == trueUntil || token == 0 {
		return fmt.Sprintf("by %s's clock; in true time it runs until %s", node, FormatMS(trueUntil))
	}
	return fmt.Sprintf("by %s's clock, which reads %s at %s in true time", node, FormatMS(until), FormatMS(trueUntil)) +
		trueEndWords(g.trueEnd, w.s.now)
}

// ranOutClockWords says by whose clock a refusal's "the lease of token 33
// ran out at 22s" is read, when that clock is off true time: "by node-1's
// clock, 9s ahead of true time; in true time it was to last until 22s",
// trueEnd being the end the lease was granted or renewed for (0: unknown).
// The skew is the one by.node's clock had when it served the refusal
// (by.skew, as servedBy read it), which judged it: a jump while the
// answer travels back changed nothing in it. A refusal whose serving was
// not seen is judged by the clock as it reads now.
func (w *world) ranOutClockWords(by served, trueEnd int64) string {
	skew, ok := by.skew, by.skewed
	if !ok {
		_, skew, ok = w.clockSkew(by.node)
	}
	if !ok || skew == 0 {
		return ""
	}
	return fmt.Sprintf("by %s's clock, %s", by.node, skewWords(skew)) + trueEndWords(trueEnd, w.s.now)
}

// servedBy is node serving a command now: the true time, and how far the
// node's clock reads from it.
func (w *world) servedBy(node string) served {
	by := served{node: node, at: w.s.now}
	_, by.skew, by.skewed = w.clockSkew(node)
	return by
}

// trueEndWords says when a lease granted or renewed until trueEnd (in true
// time; 0: unknown) ran out, or was to, judged at now.
func trueEndWords(trueEnd, now int64) string {
	switch {
	case trueEnd <= 0:
		return ""
	case trueEnd <= now:
		return "; in true time it ran out at " + FormatMS(trueEnd)
	}
	return "; in true time it was to last until " + FormatMS(trueEnd)
}

// ranOutWords is the lock service's refusal of a renew or check whose
// lease ran out at until, by the answering node's clock.
func ranOutWords(token, until int64) string {
	return fmt.Sprintf("the lease of token %d ran out at %s", token, FormatMS(until))
}

// refusalClockWords adds to the lock service's refusal r of the client's
// renew or check the clock words of the lease end it quotes, when that end
// is the client's own latest grant's (or, for a lease another node's copy
// brought back or holds on, the end it had before) and the answering node's clock was
// off true time when it served the refusal (by).
func (c *client) refusalClockWords(r Reply, token int64, by served) string {
	reason := r.Reason
	g := c.w.ledger.find(c.cfg.Name, token)
	if g == nil || token == 0 || reason != ranOutWords(token, g.leaseUntil) && (g.backUntil == 0 || reason != ranOutWords(token, g.backUntil)) {
		return reason
	}
	if words := c.w.ranOutClockWords(by, g.trueEnd); words != "" {
		return reason + " " + words
	}
	return reason
}

// servedAs is how node served the client's last lock call: as callService
// saw it serve, or, for a call answered otherwise (a quorum's), by its
// name alone, its clock read when the answer is judged.
func (c *client) servedAs(node string) served {
	if c.served.node == node {
		return c.served
	}
	return served{node: node}
}
