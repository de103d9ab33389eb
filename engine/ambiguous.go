package engine

// crashedSince reports whether the lock node that handled a request is
// down by the time its answer would reach the client: it crashed after it
// applied the command and before it answered. The command stands (a
// majority stored it, and the next leader has it), but the client never
// learns so: an ambiguous commit, which the history keeps pending and the
// client resolves by asking again (the retried acquire gets the same
// grant back).
func (w *world) crashedSince(from string) bool {
	if w.svc == nil || !w.backend.diskLoss {
		return false // only a node that commits through a log before answering leaves the outcome standing
	}
	n := w.svc.node(from)
	return n != nil && n.down
}
