package engine

import "fmt"

// applyFault makes a fault happen now. Faults wrap what exists (a client's
// goroutines, its clock, the network between actors, a lock node) rather
// than adding branches inside the lock logic. A fault that cannot apply at
// this moment (a restart of a node that is up) is reported, not hidden.
func (w *world) applyFault(f Fault) {
	if c := w.byName[f.Target]; c != nil {
		w.clientFault(c, f)
		return
	}
	if w.svc == nil {
		w.ignored(f, "no lock service runs in this scenario")
		return
	}
	target := f.Target
	if target == TargetLeader {
		if target = w.svc.serving(); target == "" {
			w.ignored(f, "no node leads right now")
			return
		}
	}
	n := w.svc.node(target)
	if n == nil {
		w.ignored(f, "no lock node is named "+target)
		return
	}
	switch f.Do {
	case FaultCrash:
		if n.down {
			w.ignored(f, n.name+" is already down")
			return
		}
		w.nodeEvent(n.name, KindNodeCrashed, "stops: everything it had not saved or copied is gone")
		w.svc.crash(n)
	case FaultRestart:
		if !n.down {
			w.ignored(f, n.name+" is not down")
			return
		}
		w.nodeEvent(n.name, KindNodeRestarted, w.restartNote(n))
		w.svc.restart(n)
	case FaultPartition:
		if n.down || n.cutOff {
			w.ignored(f, n.name+" is already down or cut off")
			return
		}
		until := w.s.now + f.For.MS()
		w.emit(Event{Actor: n.name, Kind: KindPartitioned, Node: n.name, Until: until, For: f.For.MS(),
			Message: "is cut off from every other node and every client"})
		w.svc.partition(n)
		w.s.at(until, func() {
			if n.cutOff {
				w.nodeEvent(n.name, KindHealed, "can reach the others again")
				w.svc.heal(n)
				w.noteAvailability()
			}
		})
	case FaultClockJump:
		n.clock.offset += f.By.MS()
		w.emit(Event{Actor: n.name, Kind: KindClockJump, Node: n.name, By: f.By.MS(),
			Message: fmt.Sprintf("its clock jumps %s: it now reads %s", signed(f.By.MS()), FormatMS(n.clock.at(w.s.now)))})
		w.ledger.rewatch(w)
	}
	w.noteAvailability()
}

func (w *world) restartNote(n *simNode) string {
	switch {
	case w.sc.Lock.Backend == BackendRaft:
		return "starts again on its stored log and rejoins the group"
	case w.sc.Lock.PersistEvery.IsSet() && n.hasSave:
		return "starts again from the state it saved at " + FormatMS(n.savedAt)
	case w.sc.Lock.Backend == BackendAsyncReplica:
		return "starts again"
	}
	return "starts again with everything it had"
}

// clientFault applies a fault aimed at a client.
func (w *world) clientFault(c *client, f Fault) {
	if c.done {
		return
	}
	switch f.Do {
	case FaultPause:
		c.pause(nil, f.For.MS())
	case FaultDelay:
		// The delay waits for the client's next message of that kind.
		c.delays[f.Kind] = append(c.delays[f.Kind], f.By.MS())
	case FaultClockJump:
		c.clock.offset += f.By.MS()
		c.emit(Event{Kind: KindClockJump, By: f.By.MS(),
			Message: fmt.Sprintf("its clock jumps %s: it now reads %s", signed(f.By.MS()), FormatMS(c.now()))})
	}
}

func (w *world) ignored(f Fault, why string) {
	w.emit(Event{Actor: ActorEngine, Kind: KindFaultIgnored, Message: f.Do + " " + f.Target, Reason: why})
}

func signed(ms int64) string {
	if ms >= 0 {
		return "+" + FormatMS(ms)
	}
	return FormatMS(ms)
}
