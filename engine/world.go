package engine

import (
	"errors"
	"fmt"
)

// world is everything one run owns: the scheduler, the lock service, the
// storage, the clients and the record of what happened.
type world struct {
	sc        Scenario // normalised and valid
	s         *scheduler
	events    []Event
	sink      func(Event)
	maxEvents int
	truncated bool
	err       error

	lockName string
	svc      lockService
	store    *store
	sms      *smsProvider
	clients  []*client
	byName   map[string]*client
	faultSeq int

	ledger   ledger
	expected int64 // what the value would be had every accepted write been based on a fresh read
	unavail  availability
	stats    Summary // counters kept as the run goes
}

func newWorld(sc Scenario, sink func(Event), maxEvents int) (w *world, err error) {
	w = &world{
		sc:        sc,
		s:         newScheduler(),
		sink:      sink,
		maxEvents: maxEvents,
		lockName:  sc.Lock.Name,
		byName:    map[string]*client{},
		expected:  sc.Storage.Initial,
		sms:       newSMSProvider(),
	}
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	if w.store, err = openStore(sc.Storage.Key, sc.Storage.Initial); err != nil {
		return w, err
	}
	if !w.usesLock() {
		// A scenario without lock steps (conditional updates only) starts no
		// lock service at all.
	} else if err := w.startService(); err != nil {
		return w, err
	}
	for i := range sc.Clients {
		c := newClient(w, &sc.Clients[i])
		w.clients = append(w.clients, c)
		w.byName[c.cfg.Name] = c
	}
	return w, nil
}

// startService starts the scenario's lock service.
func (w *world) startService() (err error) {
	sc := w.sc
	switch sc.Lock.Backend {
	case BackendRaft:
		var svc *raftService
		if svc, err = startRaft(w, sc.Lock.Nodes, sc.Lock.FirstToken); err != nil {
			return err
		}
		w.svc = svc
	case BackendSingle:
		w.svc = newSingleService(w)
	default:
		return fmt.Errorf("lock.backend: %q is not available", sc.Lock.Backend)
	}
	return nil
}

// begin schedules the clients and the scenario's faults.
func (w *world) begin() {
	if w.svc != nil {
		w.s.atFirst(0, func() {
			w.emit(Event{Actor: w.svc.serving(), Kind: KindLeader, Node: w.svc.serving(),
				Message: fmt.Sprintf("%s serves the lock (%s, %d node(s))", w.svc.serving(), w.sc.Lock.Backend, len(w.svc.nodeNames()))})
		})
	}
	for _, c := range w.clients {
		c.start()
	}
	for _, f := range w.sc.Faults {
		w.scheduleFault(f)
	}
}

// usesLock reports whether any client talks to the lock service.
func (w *world) usesLock() bool {
	for _, c := range w.sc.Clients {
		for _, st := range c.Steps {
			switch st.Do {
			case StepAcquire, StepCheck, StepRelease:
				return true
			}
		}
	}
	return false
}

// emit appends an event at the current simulated time and hands it to the
// sink. Past the event limit the run is truncated.
func (w *world) emit(e Event) {
	if w.truncated {
		return
	}
	e.T = w.s.now
	if len(w.events) >= w.maxEvents {
		w.truncated = true
		e = Event{T: w.s.now, Actor: "engine", Kind: KindTruncated,
			Message: fmt.Sprintf("the run reached the limit of %d events and was stopped", w.maxEvents)}
	}
	w.events = append(w.events, e)
	if w.sink != nil {
		w.sink(e)
	}
}

// fail records an internal error; the run stops at the next item.
func (w *world) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// serve sends a command to the lock service and keeps the service's record
// of grants and expiries in true time.
func (w *world) serve(cmd Command) (Reply, string, bool) {
	r, node, ok := w.svc.serve(cmd)
	if !ok {
		return r, node, false
	}
	switch {
	case cmd.Op == OpAcquire && r.OK:
		w.ledger.grant(w, cmd, r, node)
	case cmd.Op == OpRenew && r.OK:
		w.ledger.renew(w, cmd, r, node)
	case cmd.Op == OpRelease && r.OK:
		w.ledger.release(w, cmd)
	}
	return r, node, true
}

// trueTime converts a node's clock reading to true simulated time.
func (w *world) trueTime(node string, nodeTime int64) int64 {
	return nodeTime - w.nodeOffset(node)
}

func (w *world) nodeOffset(node string) int64 {
	switch s := w.svc.(type) {
	case *singleService:
		return s.clock.offset
	case *raftService:
		for _, nd := range s.nodes {
			if nd.name == node {
				return nd.clock.offset
			}
		}
	}
	return 0
}

// close releases everything the run started.
func (w *world) close() error {
	w.s.shutdown()
	var errs []error
	if w.svc != nil {
		errs = append(errs, w.svc.close())
	}
	if w.store != nil {
		errs = append(errs, w.store.close())
	}
	return errors.Join(errs...)
}
