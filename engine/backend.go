package engine

// lockService is how lock commands reach the copies of the one lock state
// machine. Backends differ only here: Raft commits on a majority before
// answering, a single server applies locally. Faults on lock nodes (a later
// addition: crashes, partitions, failover) belong to the service, never to
// the clients, which only see answers or silence.
//
// Every method runs on the scheduler's goroutine (the baton holder), so a
// backend may block in real time (waiting for a Raft commit) while simulated
// time stands still.
type lockService interface {
	// serve applies cmd at the node that serves it, stamping cmd.Now with
	// that node's clock. ok is false when no lock server could answer.
	serve(cmd Command) (r Reply, node string, ok bool)
	// nodeNames lists the nodes in order, for lanes and state panels.
	nodeNames() []string
	// serving names the node that answers now ("" when none).
	serving() string
	// close stops everything the service started and waits for it.
	close() error
}

// nodeClock is a node's or client's clock: true simulated time plus an
// offset that clock faults change.
type nodeClock struct {
	offset int64
}

func (c *nodeClock) at(trueNow int64) int64 { return trueNow + c.offset }

// singleService is one lock server with no copies.
type singleService struct {
	w     *world
	fsm   *LockFSM
	clock nodeClock
}

func newSingleService(w *world) *singleService {
	return &singleService{w: w, fsm: NewLockFSM(w.sc.Lock.FirstToken)}
}

func (s *singleService) serve(cmd Command) (Reply, string, bool) {
	cmd.Now = s.clock.at(s.w.s.now)
	return s.fsm.Apply(cmd), "node-1", true
}

func (s *singleService) nodeNames() []string { return []string{"node-1"} }
func (s *singleService) serving() string     { return "node-1" }
func (s *singleService) close() error        { return nil }
