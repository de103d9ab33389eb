package engine

// machineTimer is a lock service whose nodes' state machines judge a lease
// by their own time: the latest command time each has applied, which never
// goes back, and which a command stamped by a faster clock elsewhere (a
// copy from another node) can push ahead of the node's own clock. What the
// timeline says a node holds is what its machine would answer.
type machineTimer interface {
	// machineAt is the time by which the state machine of the node whose
	// clock is clk judges a lease now: the later of that clock and the
	// latest time the machine applied.
	machineAt(clk *nodeClock) int64
}

// machineAt is the time by which the node whose clock is clk judges a
// lease now: its state machine's time where the service keeps one apart
// from the clock (machineTimer), else the clock.
func (w *world) machineAt(clk *nodeClock) int64 {
	if mt, ok := w.svc.(machineTimer); ok {
		return mt.machineAt(clk)
	}
	return clk.at(w.s.now)
}
