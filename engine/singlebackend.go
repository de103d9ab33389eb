package engine

import "fmt"

// singleBackend is the registry entry of one lock server with no copies.
var singleBackend = Backend{
	Name: BackendSingle, Label: "single server",
	Description: "One lock server and no copies: after a restart it has only what it last saved.",
	Nodes:       []int{1}, DefaultNodes: 1, NodesRule: "the single backend has exactly 1 node",
	Tokens: true, Leader: true, Follower: "server",
	Options: []BackendOption{persistEvery, lockDelay},
	start:   func(w *world, _ *RaftPool) (lockService, error) { return newSingleService(w), nil },
	chaos: func(pick func(lo, hi int64) int64, rng intn, l *Lock) {
		if rng.IntN(4) != 0 {
			l.PersistEvery = Ms(pick(1, 4) * 500)
		}
	},
	aims: []aim{
		{aimNameRestart, 40, aimRestartInLease},
		{"server clock jump", 10, aimNodeJump},
		{"server crash", 5, aimCrashServing},
	},
}

// singleService is one lock server with no copies. With persist_every set
// it saves its state that often, and a restart brings back only what was
// saved; without it, a restart loses nothing.
type singleService struct {
	w *world
	n *simNode
}

func newSingleService(w *world) *singleService {
	s := &singleService{w: w, n: w.simNodes(1)[0]}
	if every := w.sc.Lock.PersistEvery.MS(); every > 0 {
		w.persistLoop(s.n, every)
	}
	return s
}

func (s *singleService) serve(cmd Command) (Reply, string, bool) {
	if !s.answers(cmd.Client) {
		return Reply{}, s.n.name, false
	}
	cmd.Now = s.n.clock.at(s.w.s.now)
	return s.n.fsm.Apply(cmd), s.n.name, true
}

func (s *singleService) nodeNames() []string { return []string{s.n.name} }

// serving names the server while it runs, cut off or not: it still keeps
// its own record by its own clock.
func (s *singleService) serving() string {
	if !s.n.up() {
		return ""
	}
	return s.n.name
}

// currentTerm is 0: a single server holds no elections.
func (s *singleService) currentTerm() int64 { return 0 }

func (s *singleService) answers(client string) bool {
	return s.n.up() && s.w.net.connected(client, s.n.name)
}

func (s *singleService) record(lock string) (lockEntry, bool, *nodeClock) {
	h, tok, until, ok := s.n.fsm.Entry(lock)
	return lockEntry{Holder: h, Token: tok, LeaseUntil: until}, ok, &s.n.clock
}

func (s *singleService) node(name string) *simNode {
	if name == s.n.name {
		return s.n
	}
	return nil
}

func (s *singleService) crash(n *simNode) { n.down = true }
func (s *singleService) netChanged()      {}

// restart brings the server back with what it saved, when it saves.
func (s *singleService) restart(n *simNode) {
	if n.restartFromSave(s.w.sc.Lock.PersistEvery.IsSet()) {
		from := "the server restarted from the state it saved at " + FormatMS(n.savedAt)
		s.w.forgetLost(n.saved, from+" and forgot this grant", from+", before the renewals that kept this lease")
		s.w.releaseForgotten(func(holder string, at int64) string {
			if at == n.savedAt { // the save came first at that instant
				return fmt.Sprintf("the server restarted from the state it saved at %s, just before %s's release reached it at that instant", FormatMS(at), holder)
			}
			return fmt.Sprintf("the server restarted from the state it saved at %s, before %s's release reached it at %s", FormatMS(n.savedAt), holder, FormatMS(at))
		})
	}
}

func (s *singleService) close() error { return nil }
