package engine

import "fmt"

// The renewal loop runs beside the worker while it holds the lock. Every
// renew_every it sends a renewal as a request of its own: the next one goes
// out on schedule whether or not the previous one was answered, so one
// renewal held up in the network costs nothing while the others get
// through. A renewal unanswered after renew_timeout is shown as timed out;
// its answer, if it comes later, is still applied and shown.
//
// The loop stops when the lock service refuses a renewal, or when its own
// clock says the lease ran out with no renewal granted; it says so in the
// timeline (renew_stopped). The worker is not told: it carries on until a
// check, a refused read or write, or its own look at the lease (watch_lease)
// tells it.

// renewLoop is one run of the renewal loop, for one token.
type renewLoop struct {
	token int64
	actor *actor
	// gaveUp says why the loop stopped on its own; over is set when the
	// client ended it (a release, the end of the job).
	gaveUp string
	over   bool
}

func (l *renewLoop) running() bool { return l.gaveUp == "" && !l.over }

// startRenewals starts the renewal loop for token, when the client renews.
func (c *client) startRenewals(token int64) {
	every := c.cfg.RenewEvery.MS()
	if every <= 0 {
		return
	}
	l := &renewLoop{token: token}
	c.renew = l
	l.actor = c.w.s.spawn(c.g, c.w.s.now+every, func(a *actor) {
		for l.running() {
			if now := c.now(); now >= c.leaseEnd {
				c.stopRenewing(l, true, fmt.Sprintf("its own clock reads %s: the lease ran out at %s with no renewal granted", FormatMS(now), FormatMS(c.leaseEnd)))
				return
			}
			c.sendRenewal(l)
			a.sleep(every)
		}
	})
}

// renewTimeout is how long a renewal waits for its answer before it is
// shown as timed out: renew_timeout, or renew_every when not set.
func (c *client) renewTimeout() int64 {
	if c.cfg.RenewTimeout.IsSet() {
		return c.cfg.RenewTimeout.MS()
	}
	return c.cfg.RenewEvery.MS()
}

// sendRenewal sends one renewal the backend's way and returns at once.
func (c *client) sendRenewal(l *renewLoop) { c.w.backend.client.renew(c, l) }

// renewAtService sends one renewal to the node that serves. Its answer is
// taken when it arrives, by the client's own group: a paused client takes
// it when it wakes, a crashed one never.
func (c *client) renewAtService(l *renewLoop) {
	w := c.w
	sentOwn, sent := c.now(), w.s.now
	deadline := sent + c.renewTimeout()
	cmd := c.command(OpRenew, l.token)
	callAt := w.history.tick()
	var r Reply
	var node string
	var ok bool
	var by served
	var cutOff string // cutOffWords, when no server was reached
	x := c.dispatch(MsgRenew, func() string {
		if r, node, ok = w.serve(cmd); !ok {
			cutOff = w.cutOffWords(c.cfg.Name)
			return ""
		}
		by = w.servedBy(node)
		return node
	}, func() { w.answerLost(cmd, r, node, by, callAt) }, func(x *exchange) {
		c.inGroup(func() {
			switch {
			case !ok || x.lost:
				if l.running() {
					why := "no lock server answered"
					if ok && w.flightOf(cmd) == nil {
						why = "its answer was lost on the way back (the lock service had applied it)"
					} else if cutOff != "" {
						why = cutOff
					}
					c.emit(Event{Kind: KindUnavailable, Message: "renew", Reason: why + "; the next renewal goes out on schedule"})
					c.renewFailed(l, "a renewal got no answer")
				}
			case l.gaveUp != "":
				// The loop gave up waiting before this answer came.
				w.answerLost(cmd, r, node, by, callAt)
			case l.over:
				// The client has moved on (released, finished): the answer
				// reaches it and is dropped.
				w.history.record(cmd, r, by, callAt, w.history.tick())
			default:
				w.history.record(cmd, r, by, callAt, w.history.tick())
				c.renewAnswered(l, r, by, sentOwn+w.sc.Lock.Lease.MS(), sent, x.at > deadline)
			}
		})
	})
	x.deadline = deadline // an answer after it is late (msgLog)
	c.renewTimer(l, x, sent, deadline)
}

// renewTimer shows a renewal that got no answer by its deadline.
func (c *client) renewTimer(l *renewLoop, x *exchange, sent, deadline int64) {
	c.w.s.atGroup(c.g, deadline, func() {
		if (!x.arrived || x.at > deadline) && l.running() && !c.done {
			c.emit(Event{Kind: KindRenewTimeout, Token: l.token, For: c.renewTimeout(),
				Message: fmt.Sprintf("the renewal sent at %s got no answer within %s; the next one goes out on schedule", FormatMS(sent), FormatMS(c.renewTimeout()))})
			c.renewFailed(l, fmt.Sprintf("the renewal sent at %s got no answer within %s", FormatMS(sent), FormatMS(c.renewTimeout())))
		}
	})
}

// inGroup runs fn now, or when the client's pause ends: the client takes
// what arrives only while it runs.
func (c *client) inGroup(fn func()) {
	w := c.w
	if c.g.pausedUntil > w.s.now {
		w.s.atGroup(c.g, w.s.now, func() {
			if !c.done {
				fn()
			}
		})
		return
	}
	fn()
}

// renewAnswered takes a renewal's answer: a grant extends the lease the
// client believes it holds (never shortens it: a late answer to an older
// renewal does not undo a newer one); a refusal stops the renewals.
func (c *client) renewAnswered(l *renewLoop, r Reply, by served, believedEnd, sent int64, late bool) {
	node := by.node
	if r.OK {
		c.leaseEnd = max(c.leaseEnd, believedEnd)
		msg := r.Reason
		if late {
			msg = fmt.Sprintf("a late answer to the renewal sent at %s", FormatMS(sent))
			if r.Reason != "" {
				msg += ": " + r.Reason
			}
		}
		msg = c.w.withForgotSince(msg, c.cfg.Name, l.token, by)
		e := Event{Kind: KindRenewed, Token: l.token, LeaseUntil: r.LeaseUntil, Node: node, Message: msg}
		if l.token != 0 {
			e.Reason = c.w.leaseClockWords(c.cfg.Name, l.token, r.LeaseUntil)
		}
		c.emit(e)
		return
	}
	reason := c.refusalClockWords(r, l.token, by)
	if r.Token == l.token {
		reason += c.w.twiceWords(node, c.cfg.Name, r.Holder, l.token) // a token two primaries handed out
	}
	c.emit(Event{Kind: KindRenewRefused, Token: l.token, Node: node, Reason: reason})
	c.stopRenewing(l, false, "the lock service refused a renewal: "+reason)
}

// renewFailed follows a renewal that got no answer (in time). A careful
// client with stop_on_renew_timeout stops renewing and counts the lock as
// lost, as Curator does on SUSPENDED: its worker gives up at its next look
// at the lease (at once, with interrupt, during work).
func (c *client) renewFailed(l *renewLoop, why string) {
	if c.cfg.StopOnRenewTimeout && c.cfg.WatchLease {
		c.stopRenewing(l, false, why+" (stop_on_renew_timeout)")
	}
}

// stopRenewing ends the renewal loop on its own account (a refusal, its
// clock) and says so. The worker is not told. byLoop is set when the loop
// itself stops (it returns rather than being ended).
func (c *client) stopRenewing(l *renewLoop, byLoop bool, reason string) {
	if !l.running() {
		return
	}
	l.gaveUp = reason
	c.renewStop = reason
	c.emit(Event{Kind: KindRenewStopped, Token: l.token, Reason: reason})
	if c.renew == l {
		c.renew = nil
	}
	if !byLoop {
		c.w.s.killActor(l.actor)
	}
}

// stopRenewals ends the renewal loop quietly (the client releases, gives
// up or finishes). Renewals already on their way stay on their way.
func (c *client) stopRenewals() {
	l := c.renew
	if l == nil {
		return
	}
	c.renew = nil
	l.over = true
	c.w.s.killActor(l.actor)
}

// answerLost records a command the lock service applied whose answer never
// reached its client: a lock-service event, and an operation of unknown
// outcome in the history.
func (w *world) answerLost(cmd Command, r Reply, node string, by served, callAt int64) {
	if f := w.flightOf(cmd); f != nil {
		// Not committed yet: it goes into the history only if the next
		// leader commits it (ambiguous.go).
		f.lost, f.callAt = true, callAt
		return
	}
	w.history.pending(cmd, r, by, callAt)
	w.lostAnswerEvent(cmd, r, node)
}

// lostAnswerLease is what an answer_lost says of cmd, which a node
// applied with the answer r that never reached its client: the token it
// concerns (the one granted, for an acquire), and the lease the service
// now holds for a client that never heard of it, 0 unless an acquire or a
// renewal was granted. A refusal's LeaseUntil is the holder's lease, not
// the client's, and is never said.
func lostAnswerLease(cmd Command, r Reply) (token, until int64) {
	token = cmd.Token
	if !r.OK {
		return token, 0
	}
	if cmd.Op == OpAcquire {
		token = r.Token
	}
	if cmd.Op == OpAcquire || cmd.Op == OpRenew {
		until = r.LeaseUntil
	}
	return token, until
}

// lostAnswerEvent shows that node applied cmd and its answer was lost.
func (w *world) lostAnswerEvent(cmd Command, r Reply, node string) {
	token, until := lostAnswerLease(cmd, r)
	outcome := "refused: " + r.Reason
	if r.OK {
		outcome = "applied"
		if until != 0 {
			outcome = "granted until " + FormatMS(until)
		}
	}
	reason := fmt.Sprintf("%s %s, but %s never got the answer", cmd.Op, outcome, cmd.Client)
	if w.svc != nil {
		if n := w.svc.node(node); n != nil && n.down {
			// Told when the client gives up waiting, which may be after
			// the node stopped: the event says it is the node's past act.
			reason += "; " + node + " had applied it, then stopped before its answer went out"
		}
	}
	w.emit(Event{Actor: node, Kind: KindAnswerLost, Node: node, Client: cmd.Client, Token: token, LeaseUntil: until, Message: cmd.Op.String(), Reason: reason})
}
