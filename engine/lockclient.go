package engine

// lockClient is a backend's client side: how a client's lock operations
// reach the lock service and what the client concludes from the answers.
// Most backends take one request at the node that serves (serviceClient);
// a backend of independent servers has the client ask every server itself
// and count a majority.
type lockClient interface {
	// call runs one lock operation and waits for its answer; ok is false
	// when none came back (no server could answer, or the answer was lost
	// on the way).
	call(c *client, a *actor, op Op, token int64) (r Reply, node string, ok bool)
	// renew sends one renewal and returns at once: its answer is taken
	// when it arrives.
	renew(c *client, l *renewLoop)
	// ownLease reports whether the client computes its lease's validity
	// itself from the answers, rather than timing it from its request.
	ownLease() bool
	// grantEnd is when the service stops counting grant g, in true time.
	grantEnd(w *world, g *grantRec) int64
}

// serviceClient sends each operation to the node that serves the lock and
// takes that node's answer.
type serviceClient struct{}

func (serviceClient) call(c *client, a *actor, op Op, token int64) (Reply, string, bool) {
	return c.callService(a, op, token)
}

func (serviceClient) renew(c *client, l *renewLoop) { c.renewAtService(l) }

func (serviceClient) ownLease() bool { return false }

// grantEnd: the service's record ends the lease when its own clock reads
// the lease's end (a deposed primary's, by its own clock: leaseClock).
func (serviceClient) grantEnd(w *world, g *grantRec) int64 {
	return w.leaseClock(g).trueAt(g.leaseUntil)
}
