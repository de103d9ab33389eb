package engine

// Answers at one instant appear in the order the lock service applied
// them. A client takes an answer the moment it arrives (its renewal loop
// updates the lease it believes in, a lost answer goes into the history),
// but what the client then says in the timeline has to wait its turn: an
// answer that wakes a worker is told when the worker runs, which is after
// everything already due at that instant. If the renewal loop spoke at
// once, a renewal applied after a check would be shown before it, and the
// lease would seem to shrink. So what an arriving answer has to say is
// held and said in a callback queued at the same instant, behind the
// answers that arrived before it, exactly where a worker's wake-up is
// queued: answers are told in the order they arrived, which for the same
// latency is the order they were applied. Only the telling waits; what the
// client does with the answer happens on arrival, as before (holding the
// renewal's handling back instead let the worker release first and drop
// the renewal, which is not what happened).

// arriving runs fn, the handling of an answer as it arrives. What it
// emits is held and emitted, in order, by one callback at the same
// instant, queued where its first event was emitted: after what was
// already due then, and before a worker it wakes later in fn.
func (w *world) arriving(fn func()) {
	if w.held != nil { // already inside an arrival: its queue takes them
		fn()
		return
	}
	h := &heldEvents{}
	w.held = h
	defer func() { w.held = nil }()
	fn()
}

// heldEvents is what an arriving answer emitted, waiting for its turn.
type heldEvents struct {
	events []Event
}

// hold keeps e for the arrival's callback, queuing it with the first.
func (w *world) hold(e Event) {
	h := w.held
	if len(h.events) == 0 {
		w.s.at(w.s.now, func() {
			for _, e := range h.events {
				w.emit(e)
			}
		})
	}
	h.events = append(h.events, e)
}
