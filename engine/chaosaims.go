package engine

import "fmt"

// Names of the aims the tests check against the timeline.
const (
	aimNamePause     = "pause after a renewal"
	aimNameInLag     = "primary crash inside the replication lag"
	aimNameCutInLag  = "primary cut off inside the replication lag"
	aimNameRestart   = "restart inside a lease"
	aimNameLateWrite = "late write"
	aimNameSide      = "partition that takes the holder"
	aimNameDrift     = "client clock drift"
)

// aimsFor lists the aimed faults of a backend with their weights: every
// backend gets the client-side faults (a pause after a renewal, a late
// write, clock jumps), and each its own weak spots, from its registry
// entry.
func aimsFor(backend string) []aim {
	common := []aim{
		{aimNamePause, 25, aimPause},
		{aimNameLateWrite, 10, aimDelayWrite},
		{"client clock jump", 5, aimClientJump},
		{aimNameDrift, 10, aimClientDrift},
		{"node clock drift", 5, aimNodeDrift},
		{aimNameSide, 15, aimSidePartition},
	}
	if b := backendEntry(backend); b != nil {
		return append(common, b.aims...)
	}
	return common
}

// mark is a moment the lock changed hands, was extended or vouched for: a
// client's granted, renewed or check_ok event.
type mark struct {
	t      int64
	kind   string // KindGranted, KindRenewed or KindCheckOK
	client string
	node   string // the node that answered ("" where a majority's client counts)
	token  int64
}

// marks lists the grants, renewals and passed checks at or after after;
// with writing, only those whose client still sends a write later.
func (g *generation) marks(after int64, writing bool) []mark {
	var out []mark
	for _, e := range g.timeline {
		if e.T < after || (e.Kind != KindGranted && e.Kind != KindRenewed && e.Kind != KindCheckOK) {
			continue
		}
		if writing && g.nextWrite(e.Actor, e.T) < 0 {
			continue
		}
		out = append(out, mark{t: e.T, kind: e.Kind, client: e.Actor, node: e.Node, token: e.Token})
	}
	return out
}

// grants keeps the grants of ms.
func grants(ms []mark) []mark {
	var out []mark
	for _, m := range ms {
		if m.kind == KindGranted {
			out = append(out, m)
		}
	}
	return out
}

// nextWrite is when client next sends a write after t, or -1.
func (g *generation) nextWrite(client string, t int64) int64 {
	for _, e := range g.timeline {
		if e.T > t && e.Actor == client && e.Kind == KindWriteSent {
			return e.T
		}
	}
	return -1
}

// choose picks one mark, favouring the early ones (while other clients
// still wait for the lock) and, when renewals is set, renewals and passed
// checks: the moments a holder has most reason to trust its lease.
func (g *generation) choose(ms []mark, renewals bool) (mark, bool) {
	if len(ms) == 0 {
		return mark{}, false
	}
	if renewals && g.rng.IntN(4) != 0 {
		var rs []mark
		for _, m := range ms {
			if m.kind != KindGranted {
				rs = append(rs, m)
			}
		}
		if len(rs) > 0 {
			ms = rs
		}
	}
	if len(ms) > 3 && g.rng.IntN(2) == 0 {
		ms = ms[:3]
	}
	return ms[g.rng.IntN(len(ms))], true
}

// what names a mark in words: "a renewal", "the grant of token 33".
func (m mark) what() string {
	switch {
	case m.kind == KindRenewed:
		return "a renewal"
	case m.kind == KindCheckOK:
		return "a check that it holds the lock"
	case m.token != 0:
		return fmt.Sprintf("the grant of token %d", m.token)
	}
	return "a grant"
}

// aimPause freezes a holder just after a renewal (or its grant) for longer
// than the lease, before it writes: the paused holder writes late.
func aimPause(g *generation, after int64) ([]Fault, string, bool) {
	m, ok := g.choose(g.marks(after, true), true)
	if !ok {
		return nil, "", false
	}
	lease := g.lease()
	at := m.t + g.pick(1, min(500, lease/4))
	d := lease + g.pick(lease/10, lease)
	f := Fault{At: Ms(at), Do: FaultPause, Target: m.client, For: Ms(d)}
	return []Fault{f}, fmt.Sprintf("%s pauses %s after %s, for %s: longer than the %s lease, before its write",
		m.client, FormatMS(at-m.t), m.what(), FormatMS(d), FormatMS(lease)), true
}

// aimDelayWrite holds a holder's next write in the network past its lease.
func aimDelayWrite(g *generation, after int64) ([]Fault, string, bool) {
	m, ok := g.choose(g.marks(after, true), false)
	if !ok {
		return nil, "", false
	}
	lease := g.lease()
	write := g.nextWrite(m.client, m.t)
	at := g.pick(m.t+1, write)
	by := lease + g.pick(lease/10, lease)
	// Nothing aimed later may stop the write from being sent.
	g.settled = max(g.settled, write)
	f := Fault{At: Ms(at), Do: FaultDelay, Target: m.client, Kind: MsgWrite, By: Ms(by)}
	return []Fault{f}, fmt.Sprintf("the network holds %s's next write for %s, longer than the %s lease it got with %s",
		m.client, FormatMS(by), FormatMS(lease), m.what()), true
}

// aimClientJump moves a holder's clock during its lease: forward, it
// thinks its lease ran out early; backward, it thinks it lasts longer.
func aimClientJump(g *generation, after int64) ([]Fault, string, bool) {
	m, ok := g.choose(g.marks(after, false), false)
	if !ok {
		return nil, "", false
	}
	lease := g.lease()
	at := m.t + g.pick(1, lease/2)
	by := g.pick(lease/4, lease)
	if g.rng.IntN(2) == 0 {
		by = -by
	}
	f := Fault{At: Ms(at), Do: FaultClockJump, Target: m.client, By: Ms(by)}
	return []Fault{f}, fmt.Sprintf("%s's clock jumps %s, %s after %s, during its lease", m.client, signed(by), FormatMS(at-m.t), m.what()), true
}

// aimNodeJump moves the clock of the node that granted or renewed a lease
// forward past the lease's end: the lease ends early and another client
// can be granted the lock while the holder works.
func aimNodeJump(g *generation, after int64) ([]Fault, string, bool) {
	m, ok := g.choose(g.marks(after, false), false)
	if !ok {
		return nil, "", false
	}
	node := m.node
	if node == "" {
		node = fmt.Sprintf("node-%d", g.pick(1, int64(g.sc.Lock.Nodes)))
	}
	lease := g.lease()
	d := g.pick(1, lease/2)
	by := lease - d + g.pick(1, lease/2)
	f := Fault{At: Ms(m.t + d), Do: FaultClockJump, Target: node, By: Ms(by)}
	return []Fault{f}, fmt.Sprintf("%s's clock jumps %s, %s after %s to %s: the lease ends early",
		node, signed(by), FormatMS(d), m.what(), m.client), true
}

// aimCrashServing crashes the node that just granted the lock, and often
// restarts it later.
func aimCrashServing(g *generation, after int64) ([]Fault, string, bool) {
	m, ok := g.choose(grants(g.marks(after, false)), false)
	if !ok || m.node == "" {
		return nil, "", false
	}
	lease := g.lease()
	at := m.t + g.pick(1, lease/2)
	faults := []Fault{{At: Ms(at), Do: FaultCrash, Target: m.node}}
	note := fmt.Sprintf("%s crashes %s after %s to %s", m.node, FormatMS(at-m.t), m.what(), m.client)
	if g.rng.IntN(10) < 7 {
		back := at + g.pick(g.sc.Lock.Election.MS()+1, 2*lease)
		faults = append(faults, Fault{At: Ms(back), Do: FaultRestart, Target: m.node})
		note += fmt.Sprintf(" and restarts %s later", FormatMS(back-at))
	}
	return faults, note, true
}

// aimPartitionServing cuts the node that granted the lock off from the
// others and the clients during the lease.
func aimPartitionServing(g *generation, after int64) ([]Fault, string, bool) {
	m, ok := g.choose(grants(g.marks(after, false)), false)
	if !ok || m.node == "" || g.sc.Lock.Nodes < 2 {
		return nil, "", false
	}
	lease := g.lease()
	at := m.t + g.pick(1, lease/2)
	d := g.pick(lease/2, 2*lease)
	f := Fault{At: Ms(at), Do: FaultPartition, Target: m.node, For: Ms(d)}
	return []Fault{f}, fmt.Sprintf("%s is cut off for %s, %s after %s to %s", m.node, FormatMS(d), FormatMS(at-m.t), m.what(), m.client), true
}

// inLag is a time at which the primary has applied the grant m but the
// replica has not yet received its copy, or false when no such time is
// left. The client sees the grant one latency after the primary applied
// it, and the copy arrives replication_lag after that.
func (g *generation) inLag(m mark, after int64) (int64, bool) {
	applied := m.t - g.sc.Lock.Latency.MS()
	lo, hi := max(applied+1, after), applied+g.sc.Lock.ReplicationLag.MS()-1
	if lo > hi {
		return 0, false
	}
	return g.pick(lo, hi), true
}

// aimCrashInLag crashes the primary after it granted the lock but before
// the replica got the copy: the promoted replica hands the token out again.
func aimCrashInLag(g *generation, after int64) ([]Fault, string, bool) {
	m, ok := g.choose(grants(g.marks(after, false)), false)
	if !ok || m.node == "" {
		return nil, "", false
	}
	at, ok := g.inLag(m, after)
	if !ok {
		return nil, "", false
	}
	faults := []Fault{{At: Ms(at), Do: FaultCrash, Target: m.node}}
	note := fmt.Sprintf("%s crashes %s after it applied %s to %s, inside the %s replication lag",
		m.node, FormatMS(at-(m.t-g.sc.Lock.Latency.MS())), m.what(), m.client, g.sc.Lock.ReplicationLag)
	if g.rng.IntN(2) == 0 {
		back := at + g.pick(g.sc.Lock.Election.MS()+1, 2*g.lease())
		faults = append(faults, Fault{At: Ms(back), Do: FaultRestart, Target: m.node})
		note += fmt.Sprintf(" and restarts %s later", FormatMS(back-at))
	}
	return faults, note, true
}

// aimPartitionInLag cuts the primary off inside the replication lag after
// a grant: the replica is promoted without the copy.
func aimPartitionInLag(g *generation, after int64) ([]Fault, string, bool) {
	m, ok := g.choose(grants(g.marks(after, false)), false)
	if !ok || m.node == "" {
		return nil, "", false
	}
	at, ok := g.inLag(m, after)
	if !ok {
		return nil, "", false
	}
	d := g.pick(g.sc.Lock.Election.MS()+1, 2*g.lease())
	f := Fault{At: Ms(at), Do: FaultPartition, Target: m.node, For: Ms(d)}
	return []Fault{f}, fmt.Sprintf("%s is cut off for %s, %s after it applied %s to %s, inside the %s replication lag",
		m.node, FormatMS(d), FormatMS(at-(m.t-g.sc.Lock.Latency.MS())), m.what(), m.client, g.sc.Lock.ReplicationLag), true
}

// aimRestartInLease crashes a saving single server after a grant and
// before its next save, and restarts it inside the lease: it comes back
// from the older save, forgets the grant and hands the token out again.
func aimRestartInLease(g *generation, after int64) ([]Fault, string, bool) {
	every := g.sc.Lock.PersistEvery.MS()
	if every == 0 {
		return nil, "", false
	}
	m, ok := g.choose(grants(g.marks(after, false)), false)
	if !ok || m.node == "" {
		return nil, "", false
	}
	applied := m.t - g.sc.Lock.Latency.MS()
	// The save loop saves at every multiple of persist_every; a crash at
	// the instant of the next save strikes first and stops it.
	nextSave := (applied/every + 1) * every
	lo, hi := max(applied+1, after), nextSave
	if lo > hi {
		return nil, "", false
	}
	crash := g.pick(lo, hi)
	end := applied + g.lease()
	back := g.pick(crash+1, max(crash+1, end-1))
	faults := []Fault{
		{At: Ms(crash), Do: FaultCrash, Target: m.node},
		{At: Ms(back), Do: FaultRestart, Target: m.node},
	}
	return faults, fmt.Sprintf("%s crashes %s after %s to %s, before its next save at %s, and restarts %s later, inside the lease",
		m.node, FormatMS(crash-applied), m.what(), m.client, FormatMS(nextSave), FormatMS(back-crash)), true
}

// aimClientDrift slows a holder's clock during its lease, a careful one
// when there is one: by its own clock the lease lasts longer, and a client
// that watches its lease goes on working past its end.
func aimClientDrift(g *generation, after int64) ([]Fault, string, bool) {
	ms := g.marks(after, true)
	var careful []mark
	for _, m := range ms {
		if c := g.client(m.client); c != nil && c.WatchLease {
			careful = append(careful, m)
		}
	}
	if len(careful) > 0 && g.rng.IntN(4) != 0 {
		ms = careful
	}
	m, ok := g.choose(ms, true)
	if !ok {
		return nil, "", false
	}
	lease := g.lease()
	// Strike before the client's write: a drift that starts once the
	// client is done changes nothing.
	at := m.t + g.pick(1, max(1, min(lease/4, g.nextWrite(m.client, m.t)-m.t)))
	rate := float64(g.pick(2, 6)) / 10
	d := g.pick(lease, 3*lease)
	f := Fault{At: Ms(at), Do: FaultClockDrift, Target: m.client, Rate: rate, For: Ms(d)}
	return []Fault{f}, fmt.Sprintf("%s's clock runs at %g of true time for %s, from %s after %s: its lease seems to last longer",
		m.client, rate, FormatMS(d), FormatMS(at-m.t), m.what()), true
}

// aimNodeDrift makes the clock of the node that answered run fast during
// the lease, so that the lease ends early by its reckoning.
func aimNodeDrift(g *generation, after int64) ([]Fault, string, bool) {
	m, ok := g.choose(g.marks(after, false), false)
	if !ok {
		return nil, "", false
	}
	node := m.node
	if node == "" {
		node = fmt.Sprintf("node-%d", g.pick(1, int64(g.sc.Lock.Nodes)))
	}
	lease := g.lease()
	at := m.t + g.pick(1, lease/4)
	rate := float64(g.pick(2, 5))
	d := g.pick(lease/2, 2*lease)
	f := Fault{At: Ms(at), Do: FaultClockDrift, Target: node, Rate: rate, For: Ms(d)}
	return []Fault{f}, fmt.Sprintf("%s's clock runs %g times too fast for %s, from %s after %s to %s: the lease ends early",
		node, rate, FormatMS(d), FormatMS(at-m.t), m.what(), m.client), true
}

// aimSidePartition cuts the holder off during its lease, longer than the
// lease, together with what it was talking to: the leader or primary that
// granted it (a deposed leader and its client), or where a client counts a
// majority of independent servers, the servers beyond a majority; a single server's holder alone, cut off from
// the lock service but not from the storage.
func aimSidePartition(g *generation, after int64) ([]Fault, string, bool) {
	m, ok := g.choose(g.marks(after, true), false)
	if !ok {
		return nil, "", false
	}
	lease := g.lease()
	at := m.t + g.pick(1, lease/2)
	d := g.pick(lease, 2*lease)
	side := []string{m.client}
	what := m.client + " alone"
	switch n := g.sc.Lock.Nodes; {
	case !backendEntry(g.sc.Lock.Backend).Leader && n >= 3:
		for i := n/2 + 2; i <= n; i++ {
			side = append(side, fmt.Sprintf("node-%d", i))
		}
		if len(side) > 1 {
			what = fmt.Sprintf("%s with servers %d to %d", m.client, n/2+2, n)
		}
	case m.node != "" && n > 1:
		side = append(side, m.node)
		what = m.client + " with " + m.node
	}
	f := Fault{At: Ms(at), Do: FaultPartition, Side: side, For: Ms(d)}
	return []Fault{f}, fmt.Sprintf("%s cut off from the rest for %s, %s after %s: longer than the %s lease",
		what, FormatMS(d), FormatMS(at-m.t), m.what(), FormatMS(lease)), true
}

// client returns the scenario's client of that name, or nil.
func (g *generation) client(name string) *Client {
	for i := range g.sc.Clients {
		if g.sc.Clients[i].Name == name {
			return &g.sc.Clients[i]
		}
	}
	return nil
}
