package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// applyFault makes a fault happen now. Faults wrap what exists (a client's
// goroutines, its clock, the network between actors, a lock node) rather
// than adding branches inside the lock logic. A fault that cannot apply at
// this moment (a restart of a node that is up) is reported, not hidden.
func (w *world) applyFault(f Fault) {
	if f.Do == FaultPartition {
		w.partition(f)
		w.serviceChanged()
		return
	}
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
		if target = w.leaderNow(); target == "" {
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
	case FaultLoseDisk:
		w.loseDisk(n)
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
	case FaultClockJump:
		n.clock.jump(f.By.MS())
		w.emit(Event{Actor: n.name, Kind: KindClockJump, Node: n.name, By: f.By.MS(),
			Message: fmt.Sprintf("its clock jumps %s: it now reads %s", signed(f.By.MS()), FormatMS(n.clock.at(w.s.now)))})
		w.ledger.rewatch(w)
	case FaultClockDrift:
		w.drift(n.name, &n.clock, f, func() { w.ledger.rewatch(w) })
	}
	w.serviceChanged()
}

// partition cuts the side off from the rest until it heals: every node
// and client listed, and the storage when it is listed (otherwise both
// sides reach it). A lock node on the side can reach only what is on the
// side with it; so can a client.
func (w *world) partition(f Fault) {
	members := f.Side
	if members == nil {
		members = []string{f.Target}
	}
	side := map[string]bool{}
	var order []string
	for _, m := range members {
		if m == TargetLeader {
			if w.svc == nil || w.leaderNow() == "" {
				w.ignored(f, "no node leads right now")
				return
			}
			m = w.leaderNow()
		}
		if !side[m] {
			side[m] = true
			order = append(order, m)
		}
	}
	if f.Side == nil {
		if n := w.svc.node(order[0]); n == nil || n.down {
			w.ignored(f, order[0]+" is down")
			return
		}
	}
	cut := &cut{side: side, until: w.s.now + f.For.MS()}
	w.net.add(cut)
	for _, m := range order {
		w.emit(Event{Actor: m, Kind: KindPartitioned, Node: w.nodeName(m), Until: cut.until, For: f.For.MS(), Message: w.cutWords(m, order)})
	}
	if w.svc != nil {
		w.svc.netChanged()
	}
	w.s.atFirst(cut.until, func() {
		w.net.remove(cut)
		for _, m := range order {
			w.emit(Event{Actor: m, Kind: KindHealed, Node: w.nodeName(m), Message: "can reach the others again"})
		}
		if w.svc != nil {
			w.svc.netChanged()
		}
		w.serviceChanged()
	})
}

// nodeName is m when it names a lock node, else "".
func (w *world) nodeName(m string) string {
	if w.svc != nil && w.svc.node(m) != nil {
		return m
	}
	return ""
}

// cutWords says what a member of a partition's side is cut off from.
func (w *world) cutWords(m string, side []string) string {
	var with []string
	for _, o := range side {
		if o != m {
			with = append(with, o)
		}
	}
	if len(with) == 0 {
		if w.nodeName(m) != "" {
			return "is cut off from every other node and every client"
		}
		return "is cut off from everything else"
	}
	return "is cut off, with " + strings.Join(with, ", ") + ", from the rest"
}

// drift makes a clock read f.Rate ms per true ms, until f.For has passed
// (to the end of the run when not set). changed runs whenever the rate
// changes, so that leases judged by this clock are judged again.
func (w *world) drift(actor string, clk *nodeClock, f Fault, changed func()) {
	clk.setRate(w.s.now, f.Rate)
	clk.driftGen++
	gen := clk.driftGen
	e := Event{Actor: actor, Kind: KindClockDrift, Node: w.nodeName(actor), Rate: f.Rate, For: f.For.MS(),
		Message: fmt.Sprintf("its clock now reads %gs per true second (it reads %s now)", f.Rate, FormatMS(clk.at(w.s.now)))}
	if f.For.IsSet() {
		e.Until = w.s.now + f.For.MS()
		w.s.atFirst(e.Until, func() {
			if clk.driftGen != gen {
				return // a later drift took over
			}
			clk.setRate(w.s.now, 1)
			w.emit(Event{Actor: actor, Kind: KindClockDrift, Node: w.nodeName(actor), Rate: 1,
				Message: fmt.Sprintf("its clock runs at the true rate again; it reads %s", FormatMS(clk.at(w.s.now)))})
			changed()
		})
	}
	w.emit(e)
	changed()
}

func (w *world) restartNote(n *simNode) string {
	if w.sc.Lock.PersistEvery.IsSet() && n.hasSave {
		return "starts again from the state it saved at " + FormatMS(n.savedAt)
	}
	if w.backend.restarted != "" {
		return w.backend.restarted
	}
	return "starts again with everything it had"
}

// clientFault applies a fault aimed at a client.
func (w *world) clientFault(c *client, f Fault) {
	if c.done {
		w.ignored(f, c.endedWords())
		return
	}
	switch f.Do {
	case FaultPause:
		c.pause(nil, f.For.MS())
	case FaultCrash:
		// The process dies where it stands: it never releases, and what it
		// already sent is still on its way.
		c.emit(Event{Kind: KindCrashed, Message: "the client dies without releasing; what it sent is still on its way"})
		c.holding = false
		c.done = true
		w.s.killGroup(c.g, nil)
	case FaultDelay:
		// The delay waits for the client's next message of that kind.
		c.delays[f.Kind] = append(c.delays[f.Kind], f)
	case FaultClockJump:
		c.clock.jump(f.By.MS())
		c.emit(Event{Kind: KindClockJump, By: f.By.MS(),
			Message: fmt.Sprintf("its clock jumps %s: it now reads %s", signed(f.By.MS()), FormatMS(c.now()))})
	case FaultClockDrift:
		w.drift(c.cfg.Name, &c.clock, f, func() {})
	}
}

// unsentDelays reports, at the end of the run, every delay fault whose
// message was never sent: it held nothing back.
func (w *world) unsentDelays() {
	for _, c := range w.clients {
		for _, kind := range slices.Sorted(maps.Keys(c.delays)) {
			for _, f := range c.delays[kind] {
				w.ignored(f, fmt.Sprintf("%s sent no %s message after it, before the run ended", c.cfg.Name, kind))
			}
		}
	}
}

// endedWords says why a client can no longer be struck.
func (c *client) endedWords() string {
	if c.crashed {
		return c.cfg.Name + " has crashed"
	}
	return c.cfg.Name + " has finished"
}

func (w *world) ignored(f Fault, why string) {
	target := f.Target
	if f.Side != nil {
		target = "[" + strings.Join(f.Side, ", ") + "]"
	}
	w.emit(Event{Actor: ActorEngine, Kind: KindFaultIgnored, Message: f.Do + " " + target, Reason: why})
}

func signed(ms int64) string {
	if ms >= 0 {
		return "+" + FormatMS(ms)
	}
	return FormatMS(ms)
}
