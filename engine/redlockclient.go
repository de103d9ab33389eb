package engine

import (
	"fmt"
	"strings"
)

// quorumClient is Redlock's client side: the client is its own
// coordinator, asking every server in turn and counting the grants.
type quorumClient struct{}

func (quorumClient) call(c *client, a *actor, op Op, _ int64) (Reply, string, bool) {
	return c.quorumCall(a, c.w.svc.(*redlockService), op)
}

func (quorumClient) renew(c *client, l *renewLoop) {
	sent := c.w.s.now
	c.redlockRenewal(l, c.w.svc.(*redlockService), sent, sent+c.renewTimeout())
}

// ownLease: the client computes the validity from the time the quorum
// took and the drift allowance.
func (quorumClient) ownLease() bool { return true }

// grantEnd is when fewer than a majority of servers still count the
// client's lease, each by its own clock.
func (quorumClient) grantEnd(w *world, g *grantRec) int64 {
	return w.svc.(*redlockService).majorityEnd(w.lockName, g.client)
}

// quorumCall runs one lock operation the Redlock way: the client asks
// every server in turn and counts. It holds the lock when a majority
// granted it and the time spent, by its own clock, leaves some of the lease
// after a drift allowance. A failed acquire gives back what it got. The
// answer carries no token: there is none to fence with.
//
// The quorum call is what the history records for Redlock: one operation
// with its invoke and return, checked against RedlockModel as one lock.
func (c *client) quorumCall(a *actor, rl *redlockService, op Op) (Reply, string, bool) {
	w := c.w
	c.cutOff, c.unreleased = "", nil
	callAt := w.history.tick()
	r, node, ok, trueUntil := c.quorum(a, rl, op)
	out := lockOutput{OK: r.OK, Holder: r.Holder, Now: w.s.now}
	if r.OK && op != OpRelease {
		out.LeaseUntil = trueUntil
	}
	w.history.add(lockInput{Op: op.String(), Client: c.cfg.Name, Lease: w.sc.Lock.Lease.MS()}, out, callAt, w.history.tick())
	return r, node, ok
}

// quorum asks the servers; trueUntil is when a granted or extended lock's
// validity ends in true simulated time.
func (c *client) quorum(a *actor, rl *redlockService, op Op) (Reply, string, bool, int64) {
	w := c.w
	lease := w.sc.Lock.Lease.MS()
	start := c.now()
	var granted, answered, cameBack []string
	holder := ""
	if len(c.nodeTokens) != len(rl.nodes) {
		c.nodeTokens = make([]int64, len(rl.nodes))
	}
	for i, n := range rl.nodes {
		if op != OpAcquire && c.nodeTokens[i] == 0 {
			continue // this server never granted it: nothing to renew, check or release
		}
		r, ok := c.nodeCall(a, rl, i, op, c.nodeTokens[i])
		if !ok {
			if op == OpRelease {
				c.unreleased = append(c.unreleased, n.name)
			}
			continue
		}
		answered = append(answered, n.name)
		switch {
		case r.OK:
			granted = append(granted, n.name)
			if op == OpAcquire {
				c.nodeTokens[i] = r.Token
			}
		case holder == "":
			holder = r.Holder
		}
		if !r.OK && op == OpAcquire && rl.cameBack(i, r.Holder) {
			cameBack = append(cameBack, n.name)
		}
		if op == OpRelease || (!r.OK && op != OpCheck) {
			c.nodeTokens[i] = 0
		}
	}
	need := rl.majority()
	if len(answered) < need {
		c.cutOff = rl.fewAnsweredWords(c.cfg.Name, len(answered))
	}
	elapsed := c.now() - start
	validity := lease - elapsed - (lease/100 + 2) // Redlock's drift allowance: 1% plus 2 ms
	summary := fmt.Sprintf("%d of %d servers (%s)", len(granted), len(rl.nodes), strings.Join(granted, ", "))
	if len(granted) == 0 {
		summary = fmt.Sprintf("none of the %d servers", len(rl.nodes))
	}
	if op == OpRelease {
		w.ledger.release(w, c.cfg.Name, 0)
		return Reply{OK: true, Reason: summary}, "", true, 0
	}
	if len(granted) >= need && validity > 0 {
		r := Reply{OK: true, LeaseUntil: c.now() + validity, Reason: "granted by " + summary}
		switch op {
		case OpAcquire:
			w.ledger.add(w, &grantRec{client: c.cfg.Name, lease: validity, trueEnd: w.s.now + validity,
				end: rl.majorityEnd(w.lockName, c.cfg.Name)})
		case OpRenew:
			if g := w.ledger.latest(c.cfg.Name); g != nil && !g.released {
				g.trueEnd = w.s.now + validity
				g.end = rl.majorityEnd(w.lockName, c.cfg.Name)
				g.gen++
				w.ledger.watch(w, g)
			}
		}
		return r, "", true, w.s.now + validity
	}
	if op == OpAcquire {
		// Give back the minority it got, so others need not wait for it.
		for i, tok := range c.nodeTokens {
			if tok != 0 {
				c.nodeCall(a, rl, i, OpRelease, tok)
				c.nodeTokens[i] = 0
			}
		}
	}
	r := Reply{Holder: holder, Reason: fmt.Sprintf("only %s agreed; %d are needed", summary, need)}
	if len(granted) == 0 {
		r.Reason = fmt.Sprintf("%s agreed; %d are needed", summary, need)
	}
	if len(granted) >= need {
		r.Reason = fmt.Sprintf("a majority agreed, but too late: %s of the %s lease was left", FormatMS(max(validity, 0)), FormatMS(lease))
	}
	r.Reason += rl.cameBackWords(cameBack)
	return r, "", len(answered) >= need, 0
}

// nodeCall sends one command to one Redlock server.
func (c *client) nodeCall(a *actor, rl *redlockService, i int, op Op, token int64) (r Reply, ok bool) {
	w := c.w
	cmd := c.command(op, token)
	name := rl.nodes[i].name
	x := c.roundTrip(a, msgKind[op], func() string {
		r, ok = rl.serveNode(i, cmd)
		w.noteAvailability()
		if !ok {
			w.msgs.aim(name)
			return ""
		}
		return name
	}, func() { w.lostAnswerEvent(cmd, r, name) })
	return r, ok && !x.lost
}

// redlockRenewal renews with every server in turn, the client being its own
// coordinator under Redlock; it runs as an actor of the client's group.
func (c *client) redlockRenewal(l *renewLoop, rl *redlockService, sent, deadline int64) {
	w := c.w
	x := &exchange{}
	c.renewTimer(l, x, sent, deadline)
	w.s.spawn(c.g, w.s.now, func(a *actor) {
		r, node, ok := c.quorumCall(a, rl, OpRenew)
		x.arrived, x.at = true, w.s.now
		switch {
		case !l.running():
		case !ok:
			why := "no majority of lock servers answered"
			if c.cutOff != "" {
				why = c.cutOff
			}
			c.emit(Event{Kind: KindUnavailable, Message: "renew", Reason: why + "; the next renewal goes out on schedule"})
			c.renewFailed(l, "a renewal got no answer from a majority")
		default:
			c.renewAnswered(l, r, served{node: node}, r.LeaseUntil, sent, w.s.now > deadline)
		}
	})
}

// fewAnsweredWords says why fewer than a majority of the independent
// servers answered client, when some did or a partition is why: "a
// partition cut client-1 off from node-2, node-3, node-4 and node-5: 1 of
// the 5 servers answered; 3 are needed". It is "" when no server answered
// and none that was up stood across a partition.
func (s *redlockService) fewAnsweredWords(client string, answered int) string {
	var cut []string
	for _, n := range s.nodes {
		if n.up() && !s.w.net.connected(client, n.name) {
			cut = append(cut, n.name)
		}
	}
	counts := fmt.Sprintf("%d of the %d servers answered; %d are needed", answered, len(s.nodes), s.majority())
	switch {
	case len(cut) > 0:
		return fmt.Sprintf("a partition cut %s off from %s: %s", client, listWords(cut, "and"), counts)
	case answered > 0:
		return "only " + counts
	}
	return ""
}

// quorumUp reports whether a majority of the servers is up: they could
// serve a client that reaches them (cutOff).
func (s *redlockService) quorumUp() bool {
	up := 0
	for _, n := range s.nodes {
		if n.up() {
			up++
		}
	}
	return up >= s.majority()
}
