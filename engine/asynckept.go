package engine

// KindGrantBack is the async replica's event for a grant the lock service
// had forgotten that a node serving as primary still holds, once its
// holder reaches that node again: the grant is back (ledger.seeBack); or
// a lease it had ended that such a node's copy holds again
// (ledger.seeEndedBack).
const KindGrantBack = "grant_back"

// grantBackKind declares grant_back on the timeline.
var grantBackKind = EventKind{Kind: KindGrantBack,
	Doc:  "node: holder, token, lease_until: a grant the lock service forgot is held again by a node that serves as primary and answers its holder (or, when the holder reaches no node, other clients); reason: which node forgot it, and when, and how long its lease runs; ended: the lease had ended (lease_expired) and a serving node's copy holds it again by its clock and its state machine's time",
	Lane: "node", Shape: "diamond", Class: "m-grant", Lease: true, Back: true,
	Label:  "grant {token} of {holder} is back",
	Legend: "a forgotten grant is back"}

// kept returns the lock's entry as node records it, and its clock, when
// node serves as a primary (the one the monitor put in place, or a
// deposed one still answering its side) and its record counts client's
// grant of token, the lease still running by its state machine's time
// (nodeNow): a machine a faster clock pushed ahead has ended it already.
func (s *asyncService) kept(node, client string, token int64) (lockEntry, *nodeClock, bool) {
	n := s.node(node)
	if n == nil || !s.servesAsPrimary(s.index(n)) {
		return lockEntry{}, nil, false
	}
	h, tok, until, ok := n.fsm.Entry(s.w.lockName)
	if !ok || h != client || tok != token || s.nodeNow(n) >= until {
		return lockEntry{}, nil, false
	}
	return lockEntry{Holder: h, Token: tok, LeaseUntil: until}, &n.clock, true
}

// nodeNow is the time by which n's state machine judges a lease now: the
// later of n's clock and the latest command time the machine applied,
// which a copy stamped by the other node's faster clock can push ahead.
func (s *asyncService) nodeNow(n *simNode) int64 {
	return max(n.clock.at(s.w.s.now), n.fsm.state().Last)
}

// machineAt is nodeNow for the node whose clock is clk.
func (s *asyncService) machineAt(clk *nodeClock) int64 {
	for _, n := range s.nodes {
		if &n.clock == clk {
			return s.nodeNow(n)
		}
	}
	return clk.at(s.w.s.now)
}

// keeper names the node that keeps client's grant of token for its
// holder: a primary, or a deposed one, whose record counts the grant, its
// lease running by its clock (and ending at until when until is not 0),
// and that answers the holder's requests (serverFor). A holder the
// service answers elsewhere, by a node that lacks the grant, is refused
// as if it held nothing: the grant is forgotten though a primary on the
// other side still counts it. When the holder reaches no node, the keeper
// is a node that answers some client: it still refuses them for the
// holder. "" when none does: a node cut off from every client keeps the
// grant for nobody.
func (s *asyncService) keeper(client string, token, until int64) string {
	keeps := func(i int) bool {
		e, _, ok := s.kept(s.nodes[i].name, client, token)
		return ok && (until == 0 || e.LeaseUntil == until)
	}
	if i := s.serverFor(client); i >= 0 {
		if keeps(i) {
			return s.nodes[i].name
		}
		return ""
	}
	for i := range s.nodes {
		if keeps(i) && s.answersSome(i) {
			return s.nodes[i].name
		}
	}
	return ""
}

// copyHolder names a node serving as a primary and answering some client
// whose record counts client's grant of token, its lease running by its
// clock: the primary first, then a deposed one. "" when none does.
func (s *asyncService) copyHolder(client string, token int64) string {
	order := []int{0, 1}
	if s.primary == 1 {
		order = []int{1, 0}
	}
	for _, i := range order {
		if _, _, ok := s.kept(s.nodes[i].name, client, token); ok && s.answersSome(i) {
			return s.nodes[i].name
		}
	}
	return ""
}

// answersSome reports whether some client's requests go to node i.
func (s *asyncService) answersSome(i int) bool {
	for _, c := range s.w.clients {
		if s.serverFor(c.cfg.Name) == i {
			return true
		}
	}
	return false
}

// primaryRecord returns the lock's entry as node records it, and its
// clock, while node serves as a primary (the monitor's, or a deposed one
// still answering its side), and whether it is deposed.
func (s *asyncService) primaryRecord(node string) (lockEntry, bool, *nodeClock, bool, bool) {
	n := s.node(node)
	if n == nil || !s.servesAsPrimary(s.index(n)) {
		return lockEntry{}, false, nil, false, false
	}
	h, tok, until, held := n.fsm.Entry(s.w.lockName)
	return lockEntry{Holder: h, Token: tok, LeaseUntil: until}, held, &n.clock, s.deposed[s.index(n)], true
}

// servesClients reports whether the requests of some client still at
// work (not finished, not crashed) go to node.
func (s *asyncService) servesClients(node string) bool {
	n := s.node(node)
	if n == nil {
		return false
	}
	for _, c := range s.w.clients {
		if !c.done && s.serverFor(c.cfg.Name) == s.index(n) {
			return true
		}
	}
	return false
}
