package engine

import (
	"fmt"
	"sync"

	"github.com/hashicorp/raft"
)

// raftProbe watches a run's real Raft group from outside the simulation,
// for the test that proves the group is real (raftreal_test.go): what it
// answered, whether the simulation's leader is the node that really leads
// after every step, and what the leader's log holds at the end. Runs
// without a probe pay one nil check per step.
type raftProbe struct {
	mu       sync.Mutex
	answered []Command   // every command the group answered, in order
	steps    int         // steps checked
	led      int         // steps at which the simulation's leader really led
	problems []string    // every disagreement between the simulation and the group
	log      []Command   // the command entries of the leader's log at the end
	logFrom  string      // whose log that is
	terms    [][2]int64  // at every election: the simulation's term and the real leader's
	leaders  [][2]string // at every election: the simulation's leader and the node that really leads in the latest term
	detoured []bool      // at every election: whether the real election went other than the simulation's (simLogs.detours)

	// disturbEvery, when set, makes the real group elect another leader
	// behind the simulation's back after every that many steps, the way
	// Raft's own timers do on a starved machine; the run must wait it out.
	disturbEvery int
	// disturbAt, when set, does so once, after that step alone.
	disturbAt int
	disturbed int
	// atClose, when set, is given the group as it closes, its nodes'
	// logs as they hold them.
	atClose func(*raftService)
}

// elected records the simulation's term and the real one of its leader.
func (p *raftProbe) elected(s *raftService) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.terms = append(p.terms, [2]int64{s.term, int64(s.nodes[s.leader].r.CurrentTerm())})
	real, best := "", uint64(0)
	for _, nd := range s.nodes {
		if nd.up() && nd.r != nil && nd.r.State() == raft.Leader && nd.r.CurrentTerm() >= best {
			real, best = nd.name, nd.r.CurrentTerm()
		}
	}
	p.leaders = append(p.leaders, [2]string{s.nodes[s.leader].name, real})
	p.detoured = append(p.detoured, s.logs.detours > 0)
}

// problem records a disagreement found inside the service.
func (p *raftProbe) problem(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, msg)
}

// committed records an answered command and the node that committed it.
func (p *raftProbe) committed(s *raftService, cmd Command, node string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answered = append(p.answered, cmd)
	if s.leader < 0 || s.nodes[s.leader].name != node {
		p.problems = append(p.problems, fmt.Sprintf("%v of %s committed by %s, not by the simulation's leader", cmd.Op, cmd.Client, node))
	}
}

// afterStep checks the real group against the simulation: no node but the
// simulation's leader leads in that leader's term or a later one, and while
// the simulation has no leader, nobody leads in a term the simulation did
// not hold. A deposed leader may still believe it leads in its old term
// until its lease runs out on the wall clock (as in any Raft group; it can
// commit nothing), and without a majority nobody can commit at all. It
// counts the steps at which the simulation's leader really leads.
func (p *raftProbe) afterStep(w *world) {
	s, ok := w.svc.(*raftService)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps++
	if p.disturbEvery > 0 || p.disturbAt > 0 {
		due := p.steps == p.disturbAt || (p.disturbEvery > 0 && p.steps%p.disturbEvery == 0)
		if due && s.leader >= 0 {
			for i, nd := range s.nodes {
				if i != s.leader && nd.up() && s.majorityWith(i) {
					s.timeoutNow(nd)
					p.disturbed++
					break
				}
			}
		}
		return
	}
	newer := func(term uint64) bool { return term > s.realTerm }
	if s.leader >= 0 {
		newer = func(term uint64) bool { return term >= s.nodes[s.leader].r.CurrentTerm() }
	}
	for i, nd := range s.nodes {
		if !nd.up() || nd.r == nil {
			continue
		}
		// The term is read before the role: a leader that hears of a
		// later term becomes a follower first, then takes the term, so a
		// leader read after its term is one that led in that term (read
		// the other way round, a stale leader stepping down that moment
		// would seem to lead in the later term).
		term := nd.r.CurrentTerm()
		if nd.r.State() != raft.Leader || !s.majorityWith(i) {
			continue // down, following, or cut off with a minority: it can commit nothing
		}
		if i != s.leader && newer(term) {
			p.problems = append(p.problems, fmt.Sprintf("at %s %s really leads (term %d), but the simulation's leader is %s",
				FormatMS(w.s.now), nd.name, term, s.serving()))
			continue
		}
		p.led++
	}
}

// closing reads the command entries of the leader's log (the
// simulation's leader, or the most up-to-date running node when none
// leads) before the group shuts down.
func (p *raftProbe) closing(s *raftService) {
	if p.atClose != nil {
		p.atClose(s)
	}
	from := s.leader
	if from < 0 {
		var bt, bi uint64
		for i, nd := range s.nodes {
			if nd.down {
				continue
			}
			if t, ix := nd.lastLog(); from < 0 || t > bt || (t == bt && ix > bi) {
				from, bt, bi = i, t, ix
			}
		}
	}
	if from < 0 {
		return
	}
	nd := s.nodes[from]
	first, _ := nd.log.FirstIndex()
	last, _ := nd.log.LastIndex()
	var cmds []Command
	for i := first; i <= last && i > 0; i++ {
		var l raft.Log
		if err := nd.log.GetLog(i, &l); err != nil || l.Type != raft.LogCommand || len(l.Data) == 0 {
			continue
		}
		if c, err := DecodeCommand(l.Data); err == nil {
			cmds = append(cmds, c)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log, p.logFrom = cmds, nd.name
}
