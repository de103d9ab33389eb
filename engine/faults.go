package engine

// scheduleFault puts a fault on the agenda at its time. Faults wrap what
// exists (a client's goroutines, the network between actors) rather than
// adding branches inside the lock logic.
func (w *world) scheduleFault(f Fault) {
	w.s.at(f.At.MS(), func() { w.applyFault(f) })
}

// applyFault makes the fault happen now.
func (w *world) applyFault(f Fault) {
	c := w.byName[f.Target]
	if c == nil || c.done {
		return
	}
	switch f.Do {
	case FaultPause:
		c.pause(nil, f.For.MS())
	case FaultDelay:
		// The delay waits for the client's next message of that kind.
		c.delays[f.Kind] = append(c.delays[f.Kind], f.By.MS())
	}
}
