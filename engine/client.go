package engine

import (
	"fmt"
)

// maxRedo bounds how often a client with on_refused "retry" starts its job
// again, so that a run stays small whatever the scenario.
const maxRedo = 5

// client is one process that uses the lock, written the way such clients
// are written: a worker goroutine runs the scenario's steps, and while it
// holds the lock a renewal loop beside it sends a renewal every
// renew_every, each one a request of its own (renewal.go). The worker does
// not look at the lease unless it is told to: it learns that the lock is
// gone only from a failed check, a refused read or write, or, with
// watch_lease, from its own clock before a step. All of the client's
// goroutines belong to one group, so a pause freezes them together and a
// crash ends them together.
type client struct {
	w     *world
	cfg   *Client
	g     *group
	clock nodeClock
	reqID uint64
	// nodeTokens are the per-server grants a client that counts a majority
	// holds, by server index.
	nodeTokens []int64
	delays     map[string][]Fault // armed delay faults by message kind, in order

	// What the worker believes about its lock.
	holding  bool
	token    int64
	leaseEnd int64 // by the client's own clock, timed from when it sent the acquire or renewal
	lost     bool  // a check, read, write or its own watch told the worker the lock is gone

	// The renewal loop while it runs, and why it stopped when it stopped
	// on its own (a refusal, or its clock).
	renew     *renewLoop
	renewStop string

	lastRead int64
	done     bool
	crashed  bool
	// answerLost is set when the last lock call got no answer because
	// the answer was lost on the way back (the service did answer).
	answerLost bool
	// cutOff says, when the last lock call reached no server, that a
	// partition cut the client off from a lock service that could serve
	// (cutOffWords), or is "".
	cutOff string
	// served is the node that served the last lock call, when and by what
	// clock (servedBy), or zero.
	served served
	// unreleased names, after a release counted by its client among
	// independent servers, the servers it never reached: they still count
	// the lease until it runs out.
	unreleased []string
}

func newClient(w *world, cfg *Client) *client {
	return &client{w: w, cfg: cfg, g: &group{name: cfg.Name}, delays: map[string][]Fault{}}
}

func (c *client) start() {
	c.w.s.spawn(c.g, c.cfg.Start.MS(), c.work)
}

func (c *client) now() int64 { return c.clock.at(c.w.s.now) }

func (c *client) emit(e Event) {
	e.Actor = c.cfg.Name
	c.w.emit(e)
}

// work runs the steps and follows on_refused.
func (c *client) work(a *actor) {
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			c.emit(Event{Kind: KindRetrying, Attempt: attempt, Message: "takes the lock again and redoes the job"})
		}
		if c.runSteps(a) {
			c.finish("")
			return
		}
		if c.cfg.OnRefused != OnRefusedRetry || attempt >= maxRedo {
			c.finish("it lost the lock")
			return
		}
		c.lost = false
	}
}

// finish ends the worker. A client that ends while holding the lock stops
// renewing it: its process is gone, like a crash that happened to be clean.
func (c *client) finish(gaveUp string) {
	c.stopHolding()
	c.done = true
	if gaveUp != "" {
		c.emit(Event{Kind: KindGaveUp, Reason: gaveUp})
		return
	}
	c.emit(Event{Kind: KindDone})
}

// runSteps runs the job once; it returns false when the worker learned
// that it lost the lock.
func (c *client) runSteps(a *actor) bool {
	afterPause := false
	for _, st := range c.cfg.Steps {
		// A pause step is a pause inside the step that follows it, after
		// that step's own look at the lease: the gap no check can close.
		if !afterPause && !c.leaseStillGood(st) {
			return false
		}
		c.step(a, st)
		if c.lost {
			return false
		}
		afterPause = st.Do == StepPause
	}
	return true
}

// leaseStillGood is a careful client's look at its lease before a step
// (watch_lease): by its own clock, timed from when it sent the first
// request of the acquire or the renewal that was granted, less its
// lease_margin, is the lease it believes it holds still running, and has
// its renewal loop not stopped? Taking the lock and giving it back need no
// look. A client that does not watch its lease always carries on.
func (c *client) leaseStillGood(st Step) bool {
	if !c.cfg.WatchLease || !c.holding || st.Do == StepAcquire || st.Do == StepRelease {
		return true
	}
	c.watchLease()
	return !c.lost
}

// watchLease is the look itself: it gives the lock up when the lease ran
// out by the client's own clock (less the margin) or its renewals stopped.
func (c *client) watchLease() {
	switch now, end := c.now(), c.watchedEnd(); {
	case now >= end:
		c.loseLock(c.ranOutWords(now, end))
	case c.renewStop != "":
		c.loseLock("its renewals stopped: " + c.renewStop)
	}
}

// watchedEnd is when, by its own clock, a careful client counts its lease
// as over: the lease it believes it holds, less lease_margin.
func (c *client) watchedEnd() int64 { return c.leaseEnd - c.cfg.LeaseMargin.MS() }

func (c *client) ranOutWords(now, end int64) string {
	if m := c.cfg.LeaseMargin.MS(); m > 0 {
		return fmt.Sprintf("its own clock reads %s: the lease it believes it holds runs out at %s, less its margin of %s", FormatMS(now), FormatMS(c.leaseEnd), FormatMS(m))
	}
	return fmt.Sprintf("its own clock reads %s: the lease it believes it holds ran out at %s", FormatMS(now), FormatMS(end))
}

// compute works for d. A careful client with interrupt keeps its watch on
// the lease during the step and stops it as soon as the lease runs out by
// its own clock or its renewals stop; it looks again at least every tenth
// of the time its clock says is left (a clock may run up to ten times
// fast), so the wake-ups it adds are few and the same on every run.
func (c *client) compute(a *actor, d int64) {
	until := c.w.s.now + d
	c.emit(Event{Kind: KindWork, For: d, Until: until})
	if !c.cfg.Interrupt || !c.cfg.WatchLease {
		a.sleep(d)
		return
	}
	for c.w.s.now < until {
		if c.holding {
			c.watchLease()
			if c.lost {
				c.emit(Event{Kind: KindWorkInterrupted, Reason: "its lease watch stops the work"})
				return
			}
		}
		next := until - c.w.s.now
		if c.holding {
			left := c.watchedEnd() - c.now()
			next = min(next, max(1, left/int64(MaxDriftRate)))
			if c.cfg.StopOnRenewTimeout && c.renew != nil {
				// A renewal failure is noticed within a renewal period.
				next = min(next, max(1, c.cfg.RenewEvery.MS()/2))
			}
		}
		a.sleep(next)
	}
}

func (c *client) step(a *actor, st Step) {
	w := c.w
	switch st.Do {
	case StepAcquire:
		c.acquire(a)
	case StepRead:
		c.read(a)
	case StepWork:
		c.compute(a, st.For.MS())
	case StepCheck:
		token := c.token
		if st.Read != "" && st.Read != ReadLog {
			c.checkLocal(a, st.Read, token)
			return
		}
		r, node, ok := c.call(a, OpCheck, token)
		switch {
		case !ok:
			c.emit(Event{Kind: KindUnavailable, Message: "check", Reason: c.noAnswerWords()})
		case r.OK:
			e := Event{Kind: KindCheckOK, Token: token, LeaseUntil: r.LeaseUntil, Node: node,
				Message: c.w.withForgotSince("", c.cfg.Name, token, c.served)}
			if token != 0 {
				e.Reason = c.w.checkClockWords(c.cfg.Name, token, node, r.LeaseUntil)
			}
			c.emit(e)
		default:
			reason := c.refusalClockWords(r, token, c.servedAs(node))
			if r.Token == token {
				reason += c.w.twiceWords(node, c.cfg.Name, r.Holder, token) // a token two primaries handed out
			}
			c.emit(Event{Kind: KindCheckFailed, Token: token, Node: node, Reason: reason})
			c.loseLock("the lock service says it no longer holds the lock: " + reason)
		}
	case StepWrite:
		c.write(a, st)
	case StepRelease:
		if !c.holding {
			return
		}
		tok := c.token
		c.stopRenewals()
		r, node, ok := c.call(a, OpRelease, tok)
		c.stopHolding()
		switch {
		case !ok:
			reason := c.noAnswerWords()
			if !c.answerLost { // a release applied needs no lease to run out
				reason += c.w.leaseLeftWords(c.cfg.Name, tok)
			}
			c.emit(Event{Kind: KindUnavailable, Message: "release", Reason: reason})
		case r.OK:
			e := Event{Kind: KindReleased, Token: tok, Node: node}
			if len(c.unreleased) > 0 {
				e.Reason = fmt.Sprintf("the release never reached %s, which still %s the lease until it runs out",
					listWords(c.unreleased, "and"), map[bool]string{true: "counts", false: "count"}[len(c.unreleased) == 1])
			}
			if words := c.w.releasedForgottenWords(c.cfg.Name, tok); words != "" {
				e.Reason = joinWords(words, e.Reason)
			}
			c.emit(e)
		default:
			reason := r.Reason
			if r.Token == tok {
				reason += c.w.twiceWords(node, c.cfg.Name, r.Holder, tok) // a token two primaries handed out
			}
			c.emit(Event{Kind: KindReleaseRefused, Token: tok, Node: node, Reason: reason})
		}
	case StepPause:
		c.pause(a, st.For.MS())
	case StepCrash:
		c.emit(Event{Kind: KindCrashed, Message: "the client dies without releasing"})
		c.holding = false
		c.done, c.crashed = true, true
		w.s.killGroup(c.g, a)
	case StepClaim:
		c.claim(a)
	case StepSend:
		c.sendSMS(a, st)
	}
}

// pause freezes every goroutine of the client, renewals included, until
// now+d. Called by the client itself (a pause step) or by a fault.
func (c *client) pause(self *actor, d int64) {
	w := c.w
	until := w.s.now + d
	c.emit(Event{Kind: KindPauseStart, Until: until, For: d})
	w.s.pause(c.g, until)
	w.s.atFirst(until, func() {
		if !c.done && c.g.pausedUntil == until {
			c.emit(Event{Kind: KindPauseEnd})
		}
	})
	if self != nil {
		self.sleep(0) // parks; the wake-up is deferred to the pause's end
	}
}

func (c *client) acquire(a *actor) {
	if c.holding {
		return
	}
	// first is when the first request that may have been granted was sent:
	// an attempt that got no answer may have been applied (its answer lost
	// on the way), and the service keeps that grant's end when the retry
	// comes. A refusal says no grant of this client stands, so the next
	// attempt starts the count again.
	first := int64(-1)
	for {
		sent := c.now()
		if first < 0 {
			first = sent
		}
		r, node, ok := c.call(a, OpAcquire, 0)
		switch {
		case !ok:
			c.emit(Event{Kind: KindUnavailable, Message: "acquire", Reason: c.noAnswerWords()})
		case r.OK:
			c.holding, c.token, c.leaseEnd = true, r.Token, first+c.w.sc.Lock.Lease.MS()
			if c.ownLease() {
				c.leaseEnd = r.LeaseUntil // the validity the client computed itself
			}
			c.renewStop = ""
			e := Event{Kind: KindGranted, Token: r.Token, LeaseUntil: r.LeaseUntil, Node: node, Message: r.Reason}
			if r.Token != 0 {
				e.Reason = c.w.leaseClockWords(c.cfg.Name, r.Token, r.LeaseUntil)
			}
			c.emit(e)
			c.startRenewals(r.Token)
			return
		default:
			first = -1
			reason := r.Reason
			if r.Holder != "" && r.Token != 0 && r.LeaseUntil > 0 {
				// "held by client-3 until 22s" is the node's clock reading:
				// say whose, and the true end, when that clock is off.
				if words := c.w.refusedEndWords(node, r.Holder, r.Token, r.LeaseUntil); words != "" {
					reason += " " + words
				}
				// A holder that had released it: the service lost the release.
				reason += c.w.cameBackWords(r.Holder, r.Token)
				// Two primaries at once: whose record refused it.
				reason += c.w.splitRefusalWords(node, r.Holder, r.Token)
			}
			c.emit(Event{Kind: KindAcquireRefused, Holder: r.Holder, Token: r.Token, Node: node, Reason: reason})
		}
		a.sleep(c.cfg.RetryEvery.MS())
	}
}

func (c *client) write(a *actor, st Step) {
	value := c.lastRead
	if st.Add != nil {
		value += *st.Add
	} else if st.Set != nil {
		value = *st.Set
	}
	token := c.token
	c.emit(Event{Kind: KindWriteSent, Token: token, Value: ptr(value), Add: st.Add, Set: st.Set})
	if st.Guard == GuardTxn {
		c.txnWrite(a, st, value, token)
		return
	}
	var rows int64
	c.storageCall(a, MsgWrite, func() { rows = c.storeWrite(value, token, st) })
	if rows == 0 {
		c.loseLock(fmt.Sprintf("the storage refused its write with token %d", token))
	}
}

// storeWrite runs on arrival at the storage: one SQL statement.
func (c *client) storeWrite(value, token int64, st Step) int64 {
	w := c.w
	before, err := w.store.get()
	if err != nil {
		w.fail(fmt.Errorf("storage read: %w", err))
		return 0
	}
	query, rows, err := w.store.write(value, token, w.sc.Fencing)
	if err != nil {
		w.fail(fmt.Errorf("storage write: %w", err))
		return 0
	}
	e := Event{Actor: ActorStorage, Client: c.cfg.Name, Token: token, Value: ptr(value), Add: st.Add, Set: st.Set, SQL: query, Rows: ptr(rows)}
	if rows == 0 {
		e.Kind = KindWriteRefused
		e.Fence = ptr(before.Fence)
		e.Reason = fmt.Sprintf("token %d < %d, the highest token the storage has seen (a write or a fenced read)", token, before.Fence)
		w.emit(e)
		return 0
	}
	e.Kind = KindWriteAccepted
	if w.sc.Fencing {
		e.Fence = ptr(token)
	} else {
		e.Fence = ptr(before.Fence)
	}
	w.emit(e) // the auditor judges whether it is stale
	return rows
}

func (c *client) claim(a *actor) {
	w := c.w
	c.storageCall(a, MsgWrite, func() {
		before, err := w.store.get()
		if err != nil {
			w.fail(fmt.Errorf("storage read: %w", err))
			return
		}
		query, rows, err := w.store.claimRow(c.cfg.Name)
		if err != nil {
			w.fail(fmt.Errorf("storage claim: %w", err))
			return
		}
		e := Event{Actor: ActorStorage, Client: c.cfg.Name, SQL: query, Rows: ptr(rows), Message: w.sc.Storage.Key}
		if rows == 1 {
			e.Kind = KindClaimWon
		} else {
			e.Kind, e.Holder = KindClaimLost, before.Owner
			e.Reason = "already claimed by " + before.Owner
		}
		w.emit(e)
	})
}

func (c *client) sendSMS(a *actor, st Step) {
	w := c.w
	msg := st.Message
	if msg == "" {
		msg = "sms"
	}
	c.emit(Event{Kind: KindSMSRequested, Message: msg})
	c.roundTrip(a, MsgSend, func() string {
		e := Event{Actor: ActorSMS, Client: c.cfg.Name, Message: msg}
		if w.sms.deliver(st.IdempotencyKey) {
			e.Kind = KindSMSSent
		} else {
			e.Kind, e.Reason = KindSMSDropped, "repeat of idempotency key "+st.IdempotencyKey
		}
		w.emit(e)
		return ActorSMS
	}, nil)
}

// storageCall sends one request to the storage and waits for its answer.
// While the storage is out of reach (a partition), the client is told so
// and sends the request again every retry_every; so does it when the
// storage's answer was lost on the way back (the same statement runs
// again: it writes the same value with the same token).
func (c *client) storageCall(a *actor, kind string, apply func()) {
	for {
		reached := false
		x := c.roundTrip(a, kind, func() string {
			if !c.w.net.connected(c.cfg.Name, ActorStorage) {
				return ""
			}
			reached = true
			apply()
			return ActorStorage
		}, nil)
		if reached && !x.lost {
			return
		}
		c.emit(Event{Kind: KindUnavailable, Message: kind,
			Reason: fmt.Sprintf("the storage is out of reach; trying again in %s", FormatMS(c.cfg.RetryEvery.MS()))})
		a.sleep(c.cfg.RetryEvery.MS())
	}
}

// msgKind is the message kind of a lock command, for delay faults.
var msgKind = map[Op]string{OpAcquire: MsgAcquire, OpRenew: MsgRenew, OpRelease: MsgRelease, OpCheck: MsgCheck}

// command builds the client's next lock command; every command carries a
// fresh request id, so a retried one is never applied twice.
func (c *client) command(op Op, token int64) Command {
	c.reqID++
	cmd := Command{Op: op, Lock: c.w.lockName, Client: c.cfg.Name, Token: token, Lease: c.w.sc.Lock.Lease.MS(), ReqID: c.reqID}
	if op == OpAcquire {
		cmd.Delay = c.w.sc.Lock.LockDelay.MS() // the taker chooses its lock-delay, as in Chubby
	}
	return cmd
}

// call runs one lock operation the backend's way (its entry's client
// side) and waits for its answer; ok is false when none came back.
func (c *client) call(a *actor, op Op, token int64) (r Reply, node string, ok bool) {
	return c.w.backend.client.call(c, a, op, token)
}

// callService sends one command to the lock service and waits for its
// answer; ok is false when none came back (no server could answer, or the
// answer was lost on the way).
func (c *client) callService(a *actor, op Op, token int64) (r Reply, node string, ok bool) {
	w := c.w
	c.answerLost, c.cutOff, c.served = false, "", served{}
	cmd := c.command(op, token)
	callAt := w.history.tick()
	var by served
	x := c.roundTrip(a, msgKind[op], func() string {
		if r, node, ok = w.serve(cmd); !ok {
			c.cutOff = w.cutOffWords(c.cfg.Name)
			return ""
		}
		by = w.servedBy(node)
		c.served = by
		return node
	}, func() { w.answerLost(cmd, r, node, by, callAt) })
	if !ok || x.lost {
		c.answerLost = ok && x.lost && w.flightOf(cmd) == nil
		return r, node, false
	}
	w.history.record(cmd, r, by, callAt, w.history.tick())
	return r, node, true
}

// read reads the record. With fencing, a holder's read carries its token
// too: the storage raises its fence to it, so that an older holder's write
// cannot land between this holder's read and its write.
func (c *client) read(a *actor) {
	w := c.w
	fenced := w.sc.Fencing && c.holding && c.token > 0
	var r row
	var query string
	rows := int64(1)
	c.storageCall(a, MsgRead, func() {
		var err error
		if fenced {
			if query, rows, err = w.store.raiseFence(c.token); err != nil {
				w.fail(fmt.Errorf("storage fence: %w", err))
				return
			}
		}
		if r, err = w.store.get(); err != nil {
			w.fail(fmt.Errorf("storage read: %w", err))
		}
		if rows == 1 {
			w.readBy(c.cfg.Name, c.token)
		}
	})
	if rows == 0 {
		why := "a newer holder has begun"
		if w.holds(c.cfg.Name, c.token) {
			// The service counts this client as its holder: no newer one
			// began; its token was handed out again, lower.
			why = "the storage has seen a higher token, though the lock service counts " + c.cfg.Name + " as its holder: its token was handed out again, lower"
			if split := w.splitFenceWords(c.cfg.Name, c.token, r.Fence); split != "" {
				why = split
			} else if forgot := w.forgottenFenceWords(c.cfg.Name, c.token, r.Fence); forgot != "" {
				why = forgot
			}
		}
		c.emit(Event{Kind: KindReadRefused, Token: c.token, Fence: ptr(r.Fence), SQL: query, Rows: ptr(rows),
			Reason: fmt.Sprintf("token %d < %d: %s", c.token, r.Fence, why)})
		c.loseLock(fmt.Sprintf("the storage refused its read with token %d", c.token))
		return
	}
	c.lastRead = r.Value
	e := Event{Kind: KindRead, Value: ptr(r.Value), Fence: ptr(r.Fence), Token: c.token, SQL: query}
	if fenced {
		e.Rows = ptr(rows)
	}
	c.emit(e)
}

// noAnswerWords says why the last lock call came back empty: one server
// answered and its answer was lost on the way, a partition cut the client
// off from a lock service that could serve, or no server could answer.
func (c *client) noAnswerWords() string {
	switch {
	case c.answerLost:
		return "its answer was lost on the way back (the lock service had applied it)"
	case c.cutOff != "":
		return c.cutOff
	}
	return "no lock server answered"
}

// loseLock records that the worker learned it no longer holds the lock.
func (c *client) loseLock(reason string) {
	c.lost = true
	if !c.holding {
		return
	}
	c.emit(Event{Kind: KindLockLost, Token: c.token, Reason: reason})
	c.stopHolding()
}

// stopHolding ends the client's belief and its renewals.
func (c *client) stopHolding() {
	if !c.holding {
		return
	}
	c.holding = false
	c.stopRenewals()
}

// ownLease reports whether the client computes its lease's validity
// itself, as a client that counts a majority does (its backend's client
// side says so).
func (c *client) ownLease() bool { return c.w.backend.client.ownLease() }

func ptr[T any](v T) *T { return &v }

// smsProvider is an external service that cannot check tokens. It drops a
// message whose idempotency key it has seen.
type smsProvider struct {
	keys map[string]bool
}

func newSMSProvider() *smsProvider {
	return &smsProvider{keys: map[string]bool{}}
}

func (p *smsProvider) deliver(key string) bool {
	if key != "" {
		if p.keys[key] {
			return false
		}
		p.keys[key] = true
	}
	return true
}
