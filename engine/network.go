package engine

// The network between a client and what it talks to (the lock service, the
// storage, the SMS provider). A request leaves at once, travels for
// lock.latency (plus any delay fault armed for its kind), is handled on
// arrival, and its answer travels back for lock.latency. The message is the
// network's from the moment it leaves: a pause or crash of the client does
// not stop its delivery. The answer is handed to the client only if the
// client can still take it: a crashed client, or one cut off from the
// answering side by then, never sees it.

// exchange is one request in flight and, once it came back, its answer.
type exchange struct {
	arrived bool  // the answer (or the news that none will come) reached the client's side
	at      int64 // when it did
	lost    bool  // the far end answered, but the answer never reached the client
	// For the message log (msgLog), when the run keeps one: the request's
	// record, and when its sender stops waiting for the answer (0: never).
	msg      int
	deadline int64
}

// dispatch sends a request of the given kind and returns at once. serve
// runs when the request arrives and names the endpoint that handled it (""
// when nothing could: the client then learns there was no answer). When
// the answer comes back, answered runs, unless the client is gone (it
// crashed or finished) by then. When the answer cannot reach the client
// (gone, or cut off from the answering side), onLost runs first.
func (c *client) dispatch(kind string, serve func() string, onLost func(), answered func(x *exchange)) *exchange {
	w := c.w
	lat := w.sc.Lock.Latency.MS()
	d, sent, by := lat, w.s.now, int64(0)
	if q := c.delays[kind]; len(q) > 0 {
		by = q[0].By.MS()
		d += by
		c.delays[kind] = q[1:]
		c.emit(Event{Kind: KindDelayed, Message: kind, For: by, Until: w.s.now + d})
	}
	x := &exchange{}
	w.s.at(w.s.now+d, func() {
		from := serve()
		fl := w.takeFlight() // an answer that waits for its command to commit (ambiguous.go)
		back := lat + fl.wait()
		w.msgs.request(c, kind, sent, by, from, x)
		servedAt := w.s.now + fl.wait() // when the answer leaves
		arrive := func() {
			x.arrived, x.at = true, w.s.now
			if c.done {
				w.msgs.answer(c, kind, from, servedAt, x, true)
				if from != "" && onLost != nil {
					onLost()
				}
				return
			}
			if from != "" && (!w.net.connected(c.cfg.Name, from) || w.crashedSince(from) || fl.uncommitted()) {
				x.lost = true
				if !fl.uncommitted() { // an uncommitted command was never answered: no answer left
					w.msgs.answer(c, kind, from, servedAt, x, true)
				}
				if onLost != nil {
					onLost()
				}
			} else {
				w.msgs.answer(c, kind, from, servedAt, x, false)
			}
			answered(x)
		}
		if back == 0 {
			w.arriving(arrive)
			return
		}
		w.s.at(w.s.now+back, func() { w.arriving(arrive) })
	})
	return x
}

// roundTrip sends a request and blocks the actor until its answer (or the
// news that none will come) is back.
func (c *client) roundTrip(a *actor, kind string, serve func() string, onLost func()) *exchange {
	x := c.dispatch(kind, serve, onLost, func(*exchange) { c.w.s.wakeAt(a, c.w.s.now) })
	for !x.arrived {
		a.park()
	}
	return x
}

// network knows which endpoints (lock nodes, clients, the storage) can
// reach one another. Each partition in force is a side: two endpoints are
// connected when, for every partition, both are on its side or both are
// off it.
type network struct {
	cuts []*cut
}

// cut is one partition: the endpoints on its side, and when it heals.
type cut struct {
	side  map[string]bool
	until int64
}

// endpointMonitor is the async-replica failover monitor, which stands with
// the rest of the system: on no partition's side. Its name cannot be a
// client's or a node's.
const endpointMonitor = "(monitor)"

// connected reports whether a and b can reach each other. The storage
// stays reachable from both sides of a partition that does not list it,
// and the SMS provider from everywhere.
func (n *network) connected(a, b string) bool {
	if a == b || a == ActorSMS || b == ActorSMS {
		return true
	}
	for _, c := range n.cuts {
		if (a == ActorStorage || b == ActorStorage) && !c.side[ActorStorage] {
			continue
		}
		if c.side[a] != c.side[b] {
			return false
		}
	}
	return true
}

// add puts a partition in force.
func (n *network) add(c *cut) { n.cuts = append(n.cuts, c) }

// remove ends a partition.
func (n *network) remove(c *cut) {
	for i, x := range n.cuts {
		if x == c {
			n.cuts = append(n.cuts[:i], n.cuts[i+1:]...)
			return
		}
	}
}
