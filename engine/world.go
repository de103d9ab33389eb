package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// world is everything one run owns: the scheduler, the lock service, the
// storage, the clients and the record of what happened.
type world struct {
	ctx       context.Context // the run's: waits in real time give up when it ends
	waits     waiter          // the same, for the lock group's waits
	sc        Scenario        // normalised and valid
	s         *scheduler
	events    []Event
	sink      func(Event)
	maxEvents int
	truncated bool
	err       error

	lockName string
	backend  *Backend // the scenario's registry entry
	svc      lockService
	store    *store
	sms      *smsProvider
	clients  []*client
	byName   map[string]*client

	net     network
	ledger  ledger       // the lock service's grants, as it answered them
	unavail availability // when the lock service could answer nobody
	// believes holds the clients that believe they hold the lock now, as
	// their own events say.
	believes map[string]bool
	history  history
	audit    *auditor // keeps the summary, from outside

	probe *raftProbe // tests only
	msgs  *msgLog    // the messages, when the run keeps them (nil otherwise)
	// pool is where the run's group came from, and where it goes back to
	// when the pool keeps finished groups (raftreuse.go); nil: none.
	pool *RaftPool
	// held, while an answer arrives, collects what it emits (arriving).
	held *heldEvents
	// flight is the command the lock service just took and has yet to
	// commit, while the request is served (ambiguous.go).
	flight *inflight
}

func newWorld(ctx context.Context, sc Scenario, sink func(Event), maxEvents int, pool *RaftPool, probe *raftProbe) (w *world, err error) {
	w = &world{
		ctx:       ctx,
		pool:      pool,
		waits:     waiter{ctx: ctx},
		probe:     probe,
		sc:        sc,
		s:         newScheduler(),
		sink:      sink,
		maxEvents: maxEvents,
		lockName:  sc.Lock.Name,
		byName:    map[string]*client{},
		believes:  map[string]bool{},
		sms:       newSMSProvider(),
	}
	w.audit = newAuditor(w)
	if w.backend = backendEntry(sc.Lock.Backend); w.backend == nil {
		return w, fmt.Errorf("lock.backend: %q is not available", sc.Lock.Backend)
	}
	w.history.model, w.history.atClient = w.backend.history, w.backend.client.ownLease()
	w.history.clockModel = w.backend.clockHistory
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	if w.store, err = openStore(pool.storePool(), sc.Storage.Table, sc.Storage.Key, sc.Storage.Initial); err != nil {
		return w, err
	}
	if UsesLock(&sc) {
		if err := w.startService(pool); err != nil {
			return w, err
		}
	}
	for i := range sc.Clients {
		c := newClient(w, &sc.Clients[i])
		w.clients = append(w.clients, c)
		w.byName[c.cfg.Name] = c
	}
	return w, nil
}

// startService starts the scenario's lock service, as its backend's
// registry entry does it.
func (w *world) startService(pool *RaftPool) error {
	svc, err := w.backend.start(w, pool)
	if err != nil {
		return err
	}
	w.svc = svc
	return nil
}

// begin schedules the clients and the scenario's faults.
func (w *world) begin() {
	if w.svc != nil {
		w.s.atFirst(0, func() {
			if w.backend.intro != nil {
				w.emit(w.backend.intro(w))
				return
			}
			if lead := w.svc.serving(); lead != "" {
				e := Event{Actor: lead, Kind: KindLeader, Node: lead, Message: fmt.Sprintf("serves the lock (%s, %d node(s))", w.sc.Lock.Backend, len(w.svc.nodeNames()))}
				if e.Term = w.svc.currentTerm(); e.Term != 0 {
					e.Message += fmt.Sprintf(", elected in term %d", e.Term)
				}
				w.emit(e)
			}
		})
	}
	for _, c := range w.clients {
		c.start()
	}
	// Faults due at the same instant as a client's action apply first.
	for _, f := range w.sc.Faults {
		w.s.atFirst(f.At.MS(), func() { w.applyFault(f) })
	}
}

// UsesLock reports whether any client talks to the lock service. A
// scenario that does not (conditional updates only, like ride-claim) runs
// no lock service and has no lock nodes.
func UsesLock(sc *Scenario) bool {
	uses := lockSteps()
	for _, c := range sc.Clients {
		for _, st := range c.Steps {
			if uses[st.Do] {
				return true
			}
		}
	}
	return false
}

// lockSteps is the set of steps that talk to the lock service.
var lockSteps = sync.OnceValue(func() map[string]bool {
	uses := map[string]bool{}
	for _, s := range catalog().Steps {
		uses[s.Do] = s.UsesLock
	}
	return uses
})

// emit appends an event at the current simulated time and hands it to the
// sink. Past the event limit the run is truncated.
func (w *world) emit(e Event) {
	if w.truncated {
		return
	}
	if w.held != nil {
		w.hold(e)
		return
	}
	e.T = w.s.now
	if len(w.events) >= w.maxEvents {
		w.truncated = true
		e = Event{T: w.s.now, Actor: ActorEngine, Kind: KindTruncated,
			Message: fmt.Sprintf("the run reached the limit of %d events and was stopped", w.maxEvents)}
	}
	w.judge(&e)
	w.audit.observe(e)
	w.events = append(w.events, e)
	if w.sink != nil {
		w.sink(e)
	}
}

// judge keeps the world's record as an event is emitted: an accepted
// write is stale when the lock service's own record no longer counts the
// writer as holder and a client granted the lock later already used the
// record (a late write that lands before the next holder begins is merely
// ordered before its work); and who believes it holds the lock.
func (w *world) judge(e *Event) {
	if e.Kind == KindWriteAccepted {
		if !w.holds(e.Client, e.Token) && w.ledger.supersededBy(e.Client) {
			e.Stale = true
			e.Reason = "stale: the lock service no longer counts this client as holder, and a newer holder had already begun"
		}
		w.ledger.touched(e.Client, e.Token)
	}
	if e.Kind == KindWriteRefused && w.holds(e.Client, e.Token) {
		// Refused, though the service counts the writer as its holder:
		// another primary granted a higher token, or the service forgot
		// the grant of a higher one, or its token was handed out again,
		// lower than one the storage had seen. Not a stale
		// write, and the verdict must not call it one.
		e.Holder = e.Client
		why := w.splitFenceWords(e.Client, e.Token, deref(e.Fence))
		if why == "" {
			why = w.forgottenFenceWords(e.Client, e.Token, deref(e.Fence))
		}
		if why == "" {
			why = "the lock service counts " + e.Client + " as its holder: token " + fmt.Sprint(e.Token) + " was handed out again, lower than one the storage had seen"
		}
		e.Reason += "; " + why
	}
	switch beliefChange(*e) {
	case beliefBegins:
		w.believes[e.Actor] = true
	case beliefEnds:
		delete(w.believes, e.Actor)
	}
}

// readBy notes, at the storage, that a client read the record: under the
// grant it believes it holds, that is the holder beginning to use the data.
func (w *world) readBy(client string, token int64) {
	if w.believes[client] {
		w.ledger.touched(client, token)
	}
}

// nodeEvent emits an event of a lock node.
func (w *world) nodeEvent(node, kind, msg string) {
	w.emit(Event{Actor: node, Kind: kind, Node: node, Message: msg})
}

// fail records an internal error; the run stops at the next item.
func (w *world) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// serve sends a command to the lock service and keeps the ledger.
func (w *world) serve(cmd Command) (Reply, string, bool) {
	w.flight = nil
	r, node, ok := w.svc.serve(cmd)
	w.noteAvailability()
	if !ok {
		return r, node, false
	}
	if w.flight == nil { // a command still to commit is kept when it does (ambiguous.go)
		if clk, _, ok := w.clockSkew(node); ok {
			cmd.Now = clk.at(w.s.now) // as the node stamped it
		}
		w.committed(cmd, r, node, w.s.now)
	}
	return r, node, true
}

// committed keeps the ledger of a command the lock service committed,
// whose lease runs from the true time stamped, when the node's clock read
// cmd.Now.
func (w *world) committed(cmd Command, r Reply, node string, stamped int64) {
	switch {
	case cmd.Op == OpAcquire && r.OK:
		w.ledger.grantFrom(w, cmd, r, node, stamped)
	case cmd.Op == OpRenew && r.OK:
		w.ledger.renewFrom(w, cmd, r, node, stamped)
	case cmd.Op == OpCheck && r.OK && w.backend.touches:
		// The holder was heard from: its lease starts again, as a renewal.
		w.ledger.renewFrom(w, cmd, r, node, stamped)
	case cmd.Op == OpRelease && r.OK:
		w.ledger.release(w, cmd.Client, cmd.Token)
	}
}

// serviceEnd is when the service stops counting grant g, in true time.
func (w *world) serviceEnd(g *grantRec) int64 { return w.backend.client.grantEnd(w, g) }

// holds reports whether the service's own record counts client as the
// holder now (with token, when it has one). Where two primaries serve at
// once, each on its own side of a partition, the other's record counts
// too: a client the deposed primary granted, whose lease by that
// primary's record and clock still runs, holds the lock (split brain is
// two holders). A lease runs by the time the record's state machine
// judges it by (world.machineAt).
func (w *world) holds(client string, token int64) bool {
	if w.svc == nil {
		return false
	}
	counts := func(e lockEntry, held bool, clk *nodeClock) bool {
		return held && e.Holder == client && (token == 0 || e.Token == token) && w.machineAt(clk) < e.LeaseUntil
	}
	if counts(w.svc.record(w.lockName)) {
		return true
	}
	if sp, ok := w.svc.(splitter); ok {
		if e, held, clk, node := sp.besideRecord(w.lockName); node != "" && counts(e, held, clk) {
			return true
		}
	}
	return false
}

// leaderChanged re-judges open leases by the new leader's clock.
func (w *world) leaderChanged() {
	w.ledger.rewatch(w)
	w.serviceChanged()
}

// serviceChanged follows a change in which lock nodes run and serve:
// availability is recorded, a forgotten grant that a node clients reach
// again still holds is back (seeBack), and lease ends that no node could
// tell are told by one that now can.
func (w *world) serviceChanged() {
	w.noteAvailability()
	if w.svc != nil {
		w.ledger.seeBack(w)
		w.ledger.seeUnseen(w)
	}
}

// expiryWitness names the node that can tell now that grant g's lease ran
// out, or "", as its backend's entry says (under Raft only the leader that
// can commit; independent servers together); by default the node that
// granted it, if it runs (it judges by its own record and clock), or the
// node that serves now.
func (w *world) expiryWitness(g *grantRec) string {
	if w.backend.witness != nil {
		return w.backend.witness(w, g)
	}
	if n := w.svc.node(g.node); n != nil && n.up() {
		return g.node
	}
	return w.svc.serving()
}

// noteAvailability records whether the lock service can answer now: some
// client's request would get an answer. A service that answers only the
// clients on one side of a partition is available; one that answers
// nobody (down, or cut off from every client) is not.
func (w *world) noteAvailability() {
	if w.svc == nil {
		return
	}
	up := false
	for _, c := range w.clients {
		up = up || w.svc.answers(c.cfg.Name)
	}
	w.unavail.set(w.s.now, up, !up && w.cutOff())
}

// allDone reports whether every client has finished.
func (w *world) allDone() bool {
	for _, c := range w.clients {
		if !c.done {
			return false
		}
	}
	return true
}

// close releases everything the run started.
func (w *world) close() error {
	w.s.shutdown()
	var errs []error
	if g, ok := w.svc.(interface{ group() *raftService }); ok && w.err == nil && w.ctx.Err() == nil && w.pool.giveBack(g.group()) {
		w.svc = nil // another run's now
	}
	if w.svc != nil {
		errs = append(errs, w.svc.close())
	}
	if w.store != nil {
		errs = append(errs, w.store.close())
	}
	return errors.Join(errs...)
}
