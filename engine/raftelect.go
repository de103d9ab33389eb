package engine

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Raft's own timers run on the wall clock, and the simulation never waits
// for them: it starts every election itself (TimeoutNow, see raftService),
// so they only decide what happens when the machine is too busy for the
// leader's heartbeats. They are therefore calm: a follower waits five
// seconds without a heartbeat before it campaigns, and a leader steps down
// after 2.5 s without a majority. An idle group costs its leader's
// heartbeats (every HeartbeatTimeout/10 to /5: 0.5 to 1 s per follower),
// a commit notice every 0.5 to 1 s per follower and a snapshot check a
// second per node: about 0.08 % of a core (0.12 % with 2 s timers; at a
// thousand live runs that difference is a third of a core; see
// docs/benchmarks.md). Longer still would cost wall time where Raft's own
// timers decide: a candidate that cannot win its term (two that split the
// vote after a starved machine let a follower campaign, or one whose vote
// requests went out on a cut link) would wait out an election timeout,
// which Raft requires to be at least the heartbeat timeout; settle does
// not wait for it, but makes such a candidate step down and campaign again
// (campaign, stepDown). A restarted follower is caught up at the leader's
// next commit notice, so CommitTimeout stays at 500 ms (5 s made the
// disk-loss chaos tests take 90 s instead of 13).
type raftTiming struct {
	heartbeat, election, leaderLease, commit time.Duration
}

var raftTimers = raftTiming{
	heartbeat:   5 * time.Second,
	election:    5 * time.Second,
	leaderLease: 2500 * time.Millisecond,
	commit:      500 * time.Millisecond,
}

// raftHeld replaces the heartbeat and election timeouts while the
// simulation has no leader: the survivors of a crash must not elect one on
// their own (on the wall clock, perhaps while the run is paused) before
// the simulation holds the election lock.election later.
const raftHeld = time.Hour

// Waits in real time. A run never fails because the machine is busy: a
// command or an election is retried, with simulated time standing still,
// for as long as raftPatience, which only a broken group exhausts.
const (
	raftEnqueueWait = 5 * time.Second       // how long Apply may wait for the leader to take a command
	raftPatience    = 2 * time.Minute       // a group that cannot commit for this long is broken
	raftRecheck     = 20 * time.Millisecond // first wait for an election to show, doubling
	raftRecheckMax  = time.Second
	// raftStepDown is how long settle waits with no change in the group
	// before it turns a candidate that cannot win back into a follower
	// (stepDown), to campaign again at once: far longer than an election
	// takes, far shorter than the candidate's own election timer.
	raftStepDown = 250 * time.Millisecond
	raftCatchUp  = 50 * time.Millisecond // see catchUp
)

// Compaction: a group that has stored raftSnapshotThreshold entries since
// its last snapshot takes one at its next check (every raftSnapshotInterval
// to twice that) and drops all but the last raftTrailingLogs entries, so
// that a long-lived group (LockGroup, a benchmark) keeps a bounded log
// instead of every entry it ever stored. A run's group stores a few
// hundred entries at most, far below the threshold; a snapshot does not
// change the state machine, so timelines are the same either way. A
// follower that falls more than raftTrailingLogs behind is sent the
// snapshot (raftFSM.Restore). The check is one timer per node, which an
// idle group's heartbeats outnumber.
const (
	raftSnapshotInterval  = time.Second
	raftSnapshotThreshold = 8192
	raftTrailingLogs      = 1024
)

func raftConfig(id string, t raftTiming) *raft.Config {
	c := raft.DefaultConfig()
	c.SnapshotInterval = raftSnapshotInterval
	c.SnapshotThreshold = raftSnapshotThreshold
	c.TrailingLogs = raftTrailingLogs
	c.BatchApplyCh = true
	c.NoLegacyTelemetry = true
	c.LocalID = raft.ServerID(id)
	c.HeartbeatTimeout = t.heartbeat
	c.ElectionTimeout = t.election
	c.LeaderLeaseTimeout = t.leaderLease
	c.CommitTimeout = t.commit
	c.Logger = hclog.New(&hclog.LoggerOptions{Name: id, Level: hclog.Off, Output: io.Discard})
	return c
}

// waiter bounds the real-time waits of a group: by the context of whoever
// holds it (the run, or the pool while the group boots) and by
// raftPatience.
type waiter struct{ ctx context.Context }

// patience tracks one wait that may be retried.
type patience struct {
	ctx      context.Context
	began    time.Time
	attempts int
}

func (wt waiter) start() *patience {
	return &patience{ctx: wt.context(), began: time.Now()}
}

// context is the holder's context, or the background for a group no one
// bounds (a LockGroup).
func (wt waiter) context() context.Context {
	if wt.ctx == nil {
		return context.Background()
	}
	return wt.ctx
}

// again reports whether another attempt may be made.
func (p *patience) again() bool {
	p.attempts++
	return p.ctx.Err() == nil && time.Since(p.began) < raftPatience
}

func (p *patience) String() string {
	if err := p.ctx.Err(); err != nil {
		return fmt.Sprintf("gave up after %d attempts: %v", p.attempts, err)
	}
	return fmt.Sprintf("the group could not commit in %s (%d attempts)", raftPatience, p.attempts)
}

// settle makes node want the real leader and proves it can commit. It
// sends want TimeoutNow, so that it campaigns at once in the next term
// (voters grant it even while they still know a leader, as in a
// leadership transfer), and waits on the nodes' observers. A node whose
// log is behind cannot win: then the most up-to-date node is made leader
// first, which brings want up to date, and want is asked again.
// LeadershipTransferToServer is never used: under overload it can leave a
// node refusing every command (hashicorp/raft issue 696).
//
// minTerm, when above 0, is the term the election must reach: a node that
// still leads in an older term (it has not yet noticed, on the wall clock,
// that it lost its majority) is told to campaign again, so that the real
// group holds the election the simulation holds.
func (s *raftService) settle(want int, minTerm int64) error {
	target := s.nodes[want]
	p := s.waits.start()
	wait := raftRecheck
	timer := time.NewTimer(wait)
	defer timer.Stop()
	// stuck is how long the group went with no change, over the waits
	// that ran out (0: the last wait saw one): a candidate may be stuck.
	var stuck time.Duration
	for {
		s.drainChanged()
		if target.r.State() == raft.Leader && int64(target.r.CurrentTerm()) < minTerm {
			// It leads in an older term: it is deposed as soon as it hears
			// from a leader of a newer one; with none, it campaigns again.
			s.logs.detours++
			if !s.newerLeader(want) {
				s.timeoutNow(target)
			}
		} else if target.r.State() == raft.Leader {
			// A barrier proves the leader can commit, and that its state
			// machine has applied every entry before it.
			if err := target.r.Barrier(raftEnqueueWait).Error(); err == nil {
				s.realTerm = target.r.CurrentTerm()
				return nil
			}
		} else {
			s.campaign(want, stuck)
		}
		if !p.again() {
			return fmt.Errorf("raft: could not make %s the leader: %s", target.name, p)
		}
		timer.Reset(wait)
		select {
		case <-s.changed:
			stuck, wait = 0, raftRecheck
		case <-timer.C:
			stuck += wait
			wait = min(2*wait, raftRecheckMax)
			s.logs.detours++
		case <-p.ctx.Done():
			return p.ctx.Err()
		}
	}
}

// catchUp gives the leader's reachable followers a moment to store every
// entry the leader has, before a fault takes the leader away. In simulated
// time a follower that can be reached has long received what was committed
// before the fault; in real time it may still be a millisecond behind, and
// a follower that is behind cannot win the next election. It waits on each
// follower's log (raftLog.changes), never polling, and is bounded
// (raftCatchUp): past it, settle elects in two steps instead.
func (s *raftService) catchUp() {
	if s.leader < 0 || s.withheld {
		return // a leader whose links are held has entries nobody else may have yet
	}
	_, want := s.nodes[s.leader].lastLog()
	deadline := time.NewTimer(raftCatchUp)
	defer deadline.Stop()
	done := s.waits.context().Done()
	for i, nd := range s.nodes {
		if !nd.up() || nd.r == nil || !s.linked[[2]int{s.leader, i}] {
			continue
		}
		caughtUp := func() (bool, bool) { _, have := nd.lastLog(); return have >= want, false }
		if !awaitLog(nd, caughtUp, deadline.C, done) {
			return
		}
	}
}

// awaitLog waits until reached says nd's log got where it should,
// checking again each time the log changes (raftLog.changes), never
// polling. It reports false when reached says it never will (never), or
// when the deadline fires or done is closed first (nil: never).
func awaitLog(nd *raftNode, reached func() (ok, never bool), deadline <-chan time.Time, done <-chan struct{}) bool {
	for {
		changed := nd.log.changes()
		if ok, never := reached(); ok || never {
			return ok
		}
		select {
		case <-changed:
		case <-deadline:
			return false
		case <-done:
			return false
		}
	}
}

// level waits, up to patience or until done is closed (nil: never),
// until every follower's log ends at the leader's (node-1's) last entry,
// the same index in the same term, and reports that entry's index and
// whether they all got there.
//
// The leader's last entry is read afresh at every check, so an entry
// the leader stores meanwhile is waited for, not missed, and a pass over
// the followers is repeated until the leader's log held still through
// it. A follower past the leader is waited for while its last entry is of
// a newer term than the leader's (the leader may yet store one that
// replaces it); one whose last entry is no newer is never level (Raft
// sends it nothing that would take it back).
func (s *raftService) level(patience time.Duration, done <-chan struct{}) (end uint64, ok bool) {
	lead := s.nodes[0].log
	deadline := time.NewTimer(patience)
	defer deadline.Stop()
	for {
		// A pass over the followers; if the leader's log did not move
		// meanwhile, each was level with it when checked, and still is.
		from, fromTerm := lead.lastEntry()
		for _, nd := range s.nodes[1:] {
			atEnd := func() (bool, bool) {
				end, endTerm := lead.lastEntry()
				last, term := nd.log.lastEntry()
				return last == end && term == endTerm, last > end && term <= endTerm
			}
			if !awaitLog(nd, atEnd, deadline.C, done) {
				end, _ = lead.lastEntry()
				return end, false
			}
		}
		if end, endTerm := lead.lastEntry(); end == from && endTerm == fromTerm {
			return end, true
		}
	}
}

// campaign starts the election that should make want the leader: want's
// own if its log is as up to date as every reachable node's, or if a
// majority's logs are no more up to date than its own (it wins their
// votes, as the simulation counts, eligible: after a lost disk, a node
// that missed entries a lone voter still holds), otherwise (with no
// leader to catch it up) the most up-to-date node's. A node that
// already campaigns is left to finish, and a leader left to lead, unless
// the group went with no change for a while (stuck):
//
//   - a leader that is slow to bring want up to date is backing off after
//     the sends that failed while want was down (up to seconds; a send on a
//     cut link is held until the link is joined, memTransport.peer, and
//     never fails): it is told to campaign again, and wins with fresh
//     replication;
//   - a candidate that cannot win its term (the voters already voted in
//     it, or its vote requests were lost on a link cut when it sent them)
//     would wait out its own election timer, 5 to 10 s: another
//     up-to-date node is told to campaign in the next term, which ends
//     that candidacy; with none, once stuck for raftStepDown, the
//     candidate itself is made a follower again (stepDown) and told to
//     campaign at once, which Raft ignores while it is a candidate.
func (s *raftService) campaign(want int, stuck time.Duration) {
	best, bestTerm, bestIndex := want, uint64(0), uint64(0)
	wt, wi := s.nodes[want].lastLog()
	votes := 0 // the voters whose logs are no more up to date than want's
	for i, nd := range s.nodes {
		if !s.canVote(want, i) {
			continue
		}
		term, index := nd.lastLog()
		if term > bestTerm || (term == bestTerm && index > bestIndex) {
			best, bestTerm, bestIndex = i, term, index
		}
		if term < wt || (term == wt && index <= wi) {
			votes++
		}
	}
	if votes > len(s.nodes)/2 {
		// want wins without the more up-to-date voters, as the simulation
		// counts (eligible): electing one of them first would hold an
		// election real Raft does not, in a term it does not use.
		best, bestTerm, bestIndex = want, wt, wi
	} else if wt == bestTerm && wi == bestIndex {
		best = want
	} else {
		s.logs.detour(s, want)
		if cur := s.realLeader(); cur >= 0 {
			if stuck > 0 {
				s.timeoutNow(s.nodes[cur])
			}
			return // a leader is bringing want up to date
		}
	}
	switch s.nodes[best].r.State() {
	case raft.Follower:
		s.timeoutNow(s.nodes[best])
	case raft.Candidate:
		if stuck == 0 {
			return
		}
		for i, nd := range s.nodes {
			if i != best && s.canVote(want, i) && nd.r.State() == raft.Follower {
				if t, ix := nd.lastLog(); t == bestTerm && ix == bestIndex {
					s.timeoutNow(nd)
					return
				}
			}
		}
		if stuck >= raftStepDown {
			s.stepDown(best)
		}
		s.timeoutNow(s.nodes[best])
	}
}

// stepDown makes node i, a candidate, a follower again: it is asked for
// its vote in the term after its own, in the name of another voter, with
// a log too old to be granted. A node that hears of a later term follows,
// and adopts the term; nothing else changes (the vote is refused), so
// this is a Raft message the group could have carried.
func (s *raftService) stepDown(i int) {
	nd := s.nodes[i]
	by := -1
	for j := range s.nodes {
		if j != i {
			by = j
			break
		}
	}
	if by < 0 {
		return // a single node has nobody to hear a later term from
	}
	req := &raft.RequestVoteRequest{
		RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(s.nodes[by].name), Addr: []byte(s.ctrl.LocalAddr())},
		Term:      nd.r.CurrentTerm() + 1,
	}
	var resp raft.RequestVoteResponse
	_ = s.ctrl.RequestVote(raft.ServerID(nd.name), nd.trans.LocalAddr(), req, &resp) // a lost message is sent again by settle
}

// canVote reports whether node i runs and want can reach it.
func (s *raftService) canVote(want, i int) bool {
	return s.nodes[i].up() && s.nodes[i].r != nil && (i == want || s.linked[[2]int{want, i}])
}

// newerLeader reports whether a node that node i can reach leads in a
// later term than node i's.
func (s *raftService) newerLeader(i int) bool {
	term := s.nodes[i].r.CurrentTerm()
	for j, nd := range s.nodes {
		if j != i && nd.up() && nd.r != nil && s.linked[[2]int{i, j}] && nd.r.State() == raft.Leader && nd.r.CurrentTerm() > term {
			return true
		}
	}
	return false
}

// timeoutNow tells a node to campaign at once.
func (s *raftService) timeoutNow(nd *raftNode) {
	req := &raft.TimeoutNowRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("simulation"), Addr: []byte(s.ctrl.LocalAddr())}}
	var resp raft.TimeoutNowResponse
	_ = s.ctrl.TimeoutNow(raft.ServerID(nd.name), nd.trans.LocalAddr(), req, &resp) // a lost message is sent again by settle
}

// lastLog returns the term and index of the last entry a node holds, as
// Raft counts it when it judges whose log is more up to date: the last
// entry of its log, or its newest snapshot's when that is later. A
// follower that was sent the leader's snapshot after falling more than
// raftTrailingLogs behind holds an empty log until new entries come; by
// its log alone it would look like a node that has nothing.
func (nd *raftNode) lastLog() (term, index uint64) {
	index, _ = nd.log.LastIndex()
	var l raft.Log
	if index > 0 && nd.log.GetLog(index, &l) == nil {
		term = l.Term
	}
	if snaps, err := nd.snaps.List(); err == nil && len(snaps) > 0 && snaps[0].Index > index {
		return snaps[0].Term, snaps[0].Index
	}
	return term, index
}

func (s *raftService) drainChanged() {
	for {
		select {
		case <-s.changed:
		default:
			return
		}
	}
}

// holdElections holds back (or restores) the election timers of every
// running node.
func (s *raftService) holdElections(on bool) {
	if s.held == on {
		return
	}
	s.held = on
	for _, nd := range s.nodes {
		if !nd.down && nd.r != nil {
			s.hold(nd, on)
		}
	}
}

func (s *raftService) hold(nd *raftNode, on bool) {
	rc := nd.r.ReloadableConfig()
	rc.HeartbeatTimeout, rc.ElectionTimeout = raftTimers.heartbeat, raftTimers.election
	if on {
		rc.HeartbeatTimeout, rc.ElectionTimeout = raftHeld, raftHeld
	}
	if err := nd.r.ReloadConfig(rc); err != nil {
		s.fail(fmt.Errorf("raft timers of %s: %w", nd.name, err))
	}
}

// The election restriction, as the simulation keeps it. A Raft voter
// grants its vote only to a candidate whose log is at least as up to date
// as its own (a later last term, or the same term and as long), so a node
// that missed committed entries cannot win. Which node wins must not
// depend on how far real replication got on the wall clock, so the
// simulation keeps its own account of where each node's log ends: every
// entry a leader appends (a command it commits, the entry that opens its
// term) reaches at once every running node it can reach, and a node that
// can reach the leader again is brought up to the leader's log. The real
// group agrees with this account whenever its followers have caught up
// (catchUp), and settle proves it by electing the chosen node in one
// real election.

// logEnd is where a node's log ends in the simulation's account: the term
// of its last entry and a counter that grows with every entry appended
// anywhere (within one term only its leader appends, so a larger counter
// is a longer log).
type logEnd struct{ term, seq int64 }

func (a logEnd) before(b logEnd) bool {
	return a.term < b.term || (a.term == b.term && a.seq < b.seq)
}

// simLogs is the simulation's account of the nodes' logs.
type simLogs struct {
	end []logEnd
	seq int64
	// terms is each node's current term as Raft keeps it in its stable
	// store: the latest term it heard of, from a candidate that asked for
	// its vote or a leader that reached it. A lost disk takes it back to
	// 0 (electionTerm).
	terms []int64
	// detours counts what made the real group's election differ from the
	// one the simulation holds (another node asked to campaign first, a
	// wait with no change, a stale leader deposed); the probe reads it.
	detours int
}

// detour records that the real log of want, which the simulation elects,
// is behind another voter's: real replication lagged, and another node
// must lead first. A node the simulation counts as unable to win must
// never be chosen: the probe reports it.
func (l *simLogs) detour(s *raftService, want int) {
	l.detours++
	if s.probe != nil && l.end != nil && !s.eligible(want) {
		s.probe.problem(fmt.Sprintf("%s was chosen to lead, but a majority would refuse it its vote: its log lacks their entries", s.nodes[want].name))
	}
}

// resetLogs starts the account for a group whose every node holds the
// bootstrap and node-1's first election.
func (s *raftService) resetLogs() {
	s.logs = simLogs{end: make([]logEnd, len(s.nodes)), terms: make([]int64, len(s.nodes)), detours: s.logs.detours}
	for i := range s.logs.end {
		s.logs.end[i] = logEnd{term: bootTerm}
		s.logs.terms[i] = bootTerm
	}
}

// electionTerm is the term in which node want wins the election the
// simulation holds, as real Raft elects it: want campaigns in the term
// after its own, and wins it unless a voter it reaches already heard of a
// later one; then want learns that term from the voter's refusal and wins
// the term after it. A voter in want's own next term refuses (it voted in
// it) without holding want back. So once a lost disk took the latest term
// from every node that reaches want, want is elected in a term the group
// used before.
func (s *raftService) electionTerm(want int) int64 {
	if s.logs.terms == nil {
		return s.term + 1
	}
	next, heard := s.logs.terms[want]+1, int64(0)
	for j, nd := range s.nodes {
		if j != want && nd.up() && s.connected(s.nodes[want].name, nd.name) {
			heard = max(heard, s.logs.terms[j])
		}
	}
	if heard > next {
		return heard + 1
	}
	return next
}

// campaigned records the election of want in term: every running node it
// reaches heard of the term when it was asked for its vote.
func (s *raftService) campaigned(want int, term int64) {
	if s.logs.terms == nil {
		return
	}
	for j, nd := range s.nodes {
		if nd.up() && (j == want || s.connected(s.nodes[want].name, nd.name)) {
			s.logs.terms[j] = max(s.logs.terms[j], term)
		}
	}
}

// keptEntries names the running nodes want reaches whose logs end with
// commands an earlier leader of term appended: elected in that term
// again, want appends its own entries at the same indexes in the same
// term, and a follower, which tells entries apart by index and term
// alone, keeps the earlier leader's (its state machine applies them once
// want commits those indexes).
func (s *raftService) keptEntries(want int, term int64) []string {
	from, ok := s.ledFrom[term]
	if !ok || s.logs.end == nil {
		return nil
	}
	var kept []string
	for j, nd := range s.nodes {
		if end := s.logs.end[j]; j != want && nd.up() && s.connected(s.nodes[want].name, nd.name) && end.term == term && end.seq > from {
			kept = append(kept, nd.name)
		}
	}
	return kept
}

// laterTerm is a running node the leader reaches that heard of a later
// term than the leader's (it was elsewhere while a leader was elected in
// it, and a lost disk took that term from the nodes that elected this
// one), or -1. Real Raft's leader learns that term from the node's
// refusal of its entries, and steps down.
func (s *raftService) laterTerm() int {
	if s.leader < 0 || s.logs.terms == nil {
		return -1
	}
	lead := s.nodes[s.leader]
	for j, nd := range s.nodes {
		if j != s.leader && nd.up() && lead.up() && s.connected(lead.name, nd.name) && s.logs.terms[j] > s.term {
			return j
		}
	}
	return -1
}

// appended records an entry the simulation's leader appended in its term:
// every running node it reaches stores it.
func (s *raftService) appended() {
	if s.leader < 0 || s.logs.end == nil {
		return
	}
	s.logs.seq++
	s.logs.end[s.leader] = logEnd{term: s.term, seq: s.logs.seq}
	s.replicated()
}

// replicated brings every running node the leader reaches up to the
// leader's log (a follower's entries the leader lacks are overwritten).
func (s *raftService) replicated() {
	if s.leader < 0 || s.logs.end == nil {
		return
	}
	lead := s.nodes[s.leader]
	for j, nd := range s.nodes {
		if j != s.leader && nd.up() && lead.up() && s.connected(lead.name, nd.name) && s.logs.terms[j] <= s.term {
			s.logs.end[j] = s.logs.end[s.leader]
			s.logs.terms[j] = s.term
		}
	}
}

// eligible reports whether node i can win an election now: it runs and
// a majority of the group (itself included) runs, is reachable from it,
// and holds a log no more up to date than its own. A node whose log is
// empty (it lost its disk, and no leader reached it since) cannot: it
// knows no group to campaign in.
func (s *raftService) eligible(i int) bool {
	nd := s.nodes[i]
	if !nd.up() || s.logs.end == nil || s.emptyLog(i) {
		return false
	}
	votes := 0
	for j, o := range s.nodes {
		if o.up() && (j == i || s.connected(nd.name, o.name)) && !s.logs.end[i].before(s.logs.end[j]) {
			votes++
		}
	}
	return votes > len(s.nodes)/2
}

// emptyLog reports whether node i's log is empty in the simulation's
// account: it lost its disk and no leader has reached it since.
func (s *raftService) emptyLog(i int) bool {
	return s.logs.end != nil && s.logs.end[i] == logEnd{}
}

// staleNodes names the nodes that reach a majority but cannot win because
// their logs lack entries that a majority holds, and apart the ones that
// cannot because their logs are empty (a lost disk), for the leader
// event's words.
func (s *raftService) staleNodes() (stale, empty []string) {
	for i, nd := range s.nodes {
		switch {
		case !s.majorityWith(i) || s.eligible(i):
		case s.emptyLog(i):
			empty = append(empty, nd.name)
		default:
			stale = append(stale, nd.name)
		}
	}
	return stale, empty
}

// pluralWord picks the word for one or for many.
func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
