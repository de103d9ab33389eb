package engine

import "fmt"

// BackendEtcd is the etcd backend's name.
const BackendEtcd = "etcd"

// KindLeaseExtended: a new etcd leader gives an inherited lease its full
// TTL again; actor and node: the leader; holder, token, lease_until: the
// lease and its new end; message: in words.
const KindLeaseExtended = "lease_extended"

// etcdBackend is etcd as its lock recipe (client/v3/concurrency) uses it,
// on a real hashicorp/raft group: a lease is an object with a TTL that the
// leader grants and the client's keep-alives renew; the lock is a key
// attached to the lease, and the token is that key's create revision, a
// counter of the whole store that every write bumps (the grant's put, a
// release's or a revoke's delete, a guarded write), so tokens grow but
// skip. A lease that runs out is not simply over: the leader, by its own
// clock, proposes its revoke through the log, and only the committed
// revoke deletes the key; a deposed leader cannot commit, so it expires
// nothing. A new leader does not know how long the old one had left, so
// it gives every lease it inherits its full TTL again (lease_extended).
//
// In etcd the extension lives in the new leader's memory (the log carries
// TTLs, not deadlines); here it is committed as one command so that every
// node's copy of the table shows the deadline the leader judges by. Who
// may hold the lock, and when, is the same.
var etcdBackend = Backend{
	Name: BackendEtcd, Label: "etcd cluster",
	Description: "A Raft-replicated key-value store: the lock is a key on a lease, the token is its create revision, and the leader revokes a lease that ran out through the log.",
	Nodes:       []int{1, 3, 5}, DefaultNodes: DefaultNodes, NodesRule: "an etcd cluster has 1, 3 or 5 members",
	Tokens: true, Leader: true, Follower: "follower", Txn: true,
	// Its tokens are its keys' create revisions.
	TokenWord: "rev",
	Kinds: []EventKind{{Kind: KindLeaseExtended, Doc: "node: holder, token, lease_until: a new leader gives an inherited lease its full TTL again",
		Lane: "node", Shape: "diamond", Class: "m-extended", Lease: true,
		Title:  "the new leader gives the lease of {holder} (token {token}) its full TTL again, to {until}",
		Label:  "lease {token} extended to {until}",
		Legend: "new etcd leader extends a lease"}},
	Options:      []BackendOption{lockDelay},
	start:        startEtcd,
	store:        func() fsmStore { return etcdStore{} },
	ops:          etcdOps,
	client:       etcdClient{},
	history:      EtcdLockModel,
	clockHistory: EtcdServerClockModel,
	// Only the leader that can commit revokes a lease.
	witness:   func(w *world, _ *grantRec) string { return w.svc.serving() },
	expired:   etcdRevoke,
	restarted: "starts again on its stored log and rejoins the cluster",
	// Chaos draws a lock-delay in a quarter of the runs.
	chaos: func(pick func(lo, hi int64) int64, rng intn, l *Lock) {
		if rng.IntN(4) == 0 {
			l.LockDelay = Ms(pick(1, 10) * l.Lease.MS() / 10)
		}
	},
	aims: []aim{
		{"leader crash during a lease", 20, aimCrashServing},
		{"leader cut off during a lease", 15, aimPartitionServing},
		{"leader clock jump", 15, aimNodeJump},
	},
}

// No release is lost here (releaseForgotten): etcd takes no lose_disk
// fault and its nodes keep their log across a crash and a restart, so a
// committed release, or the revoke that ends a lease, stays in every
// majority's logs; a leader elected after a partition has it.

// startEtcd takes a Raft group for the run and makes its state machines
// etcd's store.
func startEtcd(w *world, pool *RaftPool) (lockService, error) {
	svc, err := pool.take(w)
	if err != nil {
		return nil, err
	}
	svc.attach(w)
	svc.hooks.elected = append(svc.hooks.elected, func(nd *raftNode) { etcdExtend(w, svc, nd) })
	return svc, nil
}

// etcdClient is the lock recipe's client: one request at the leader, like
// any client of a leader-based service, but the lease it holds ends when
// the leader's record says, which a new leader's extension moves.
type etcdClient struct{ serviceClient }

// grantEnd: the lease ends, in true time, when the leader's clock reads
// the deadline its record holds for the grant.
func (etcdClient) grantEnd(w *world, g *grantRec) int64 {
	e, held, clk := w.svc.record(w.lockName)
	until := g.leaseUntil
	if held && e.Holder == g.client && e.Token == g.token {
		until = e.LeaseUntil
	}
	return clk.trueAt(until)
}

// etcdService is the run's Raft group (startEtcd returns it).
func etcdService(w *world) *raftService {
	svc, _ := w.svc.(*raftService)
	return svc
}

// etcdLeaderCommit commits one of the leader's own commands (a revoke, an
// extension) through the log, stamped with the leader's clock.
func etcdLeaderCommit(w *world, cmd Command) (Reply, string, bool) {
	svc := etcdService(w)
	if svc == nil || !svc.available() {
		return Reply{}, "", false
	}
	nd := svc.nodes[svc.leader]
	cmd.Client, cmd.Now = nd.name, nd.clock.at(w.s.now) // the leader's lessor; no request id: it is never resent
	r, err := svc.commit(nd, cmd)
	if err != nil {
		svc.fail(err)
		return Reply{}, nd.name, false
	}
	svc.remember(nd, cmd.Lock)
	return r, nd.name, true
}

// etcdRevoke is the leader's revoke of a lease its clock says ran out: a
// command through the log whose commit deletes the lock key (a write: the
// revision moves on).
func etcdRevoke(w *world, g *grantRec) string {
	r, _, ok := etcdLeaderCommit(w, Command{Op: opRevoke, Lock: w.lockName, Token: g.token})
	if !ok || !r.OK {
		return ""
	}
	return fmt.Sprintf("the leader revokes the lease through the log: the key of revision %d is deleted at revision %d", g.token, r.Token)
}

// etcdExtend runs when a new leader is elected: it gives the lease it
// inherits its full TTL from now, by its own clock, and the world's record
// of the grant follows.
func etcdExtend(w *world, svc *raftService, nd *raftNode) {
	r, node, ok := etcdLeaderCommit(w, Command{Op: opExtend, Lock: w.lockName})
	if !ok || !r.OK {
		return // nothing is held
	}
	w.emit(Event{Actor: node, Kind: KindLeaseExtended, Node: node, Holder: r.Holder, Token: r.Token, LeaseUntil: r.LeaseUntil,
		Message: fmt.Sprintf("does not know how long the old leader had left, so it gives %s's lease its full TTL again, to %s", r.Holder, FormatMS(r.LeaseUntil))})
	g := w.ledger.find(r.Holder, r.Token)
	if g == nil || g.released || g.forgotten {
		return
	}
	g.node, g.leaseUntil, g.unseen = node, r.LeaseUntil, false
	g.end = w.serviceEnd(g)
	// In true time the extension gives the lease its TTL from now: a
	// leader's clock that runs slow or fast moves when it revokes the
	// lease (end), not how long etcd promised it.
	g.trueEnd = max(g.trueEnd, w.s.now+g.lease)
	g.gen++
	w.ledger.watch(w, g)
}

// txnWrite is a write guarded by the lock key's revision: one transaction
// on the lock service's own store, committed through the leader, that puts
// the value only if the lock key still exists with the writer's revision
// (etcd's Txn with a compare on CreateRevision, the check that
// concurrency.Mutex.IsOwner builds). The data lives in the lock service:
// the storage panel's row stands for its key, and nothing else writes it.
// A refused transaction tells the writer it lost the lock.
func (c *client) txnWrite(a *actor, st Step, value, token int64) {
	w := c.w
	applied := false // an earlier attempt committed, its answer lost
	for {
		cmd := c.command(opTxn, token)
		var (
			r    Reply
			node string
			ok   bool
		)
		x := c.roundTrip(a, MsgWrite, func() string {
			if r, node, ok = w.serve(cmd); !ok {
				return ""
			}
			c.txnApplied(r, node, st, value, token, applied)
			applied = applied || r.OK
			return node
		}, func() { w.lostAnswerEvent(cmd, r, node) })
		switch {
		case ok && !x.lost && r.OK:
			return
		case ok && !x.lost:
			c.loseLock(fmt.Sprintf("the transaction's compare failed: the lock key no longer has revision %d", token))
			return
		}
		c.emit(Event{Kind: KindUnavailable, Message: MsgWrite,
			Reason: fmt.Sprintf("no answer to the transaction; trying again in %s", FormatMS(c.cfg.RetryEvery.MS()))})
		a.sleep(c.cfg.RetryEvery.MS())
	}
}

// txnApplied shows a committed transaction's outcome, at the node that
// committed it, and puts the value when its compare held.
//
// A transaction sent again after its answer was lost is a new transaction:
// when the first one committed, the second puts the same value again. It
// is shown as the put of that value (set), not as a second addition.
func (c *client) txnApplied(r Reply, node string, st Step, value, token int64, again bool) {
	w := c.w
	add, set := st.Add, st.Set
	if again {
		add, set = nil, ptr(value)
	}
	e := Event{Actor: node, Node: node, Client: c.cfg.Name, Token: token, Value: ptr(value), Add: add, Set: set,
		SQL: fmt.Sprintf("TXN IF create_revision(%q) = %d THEN PUT(%q, %d)", w.lockName+"/lock", token, w.sc.Storage.Key, value)}
	if !r.OK {
		e.Kind, e.Rows, e.Reason = KindWriteRefused, ptr(int64(0)), r.Reason
		w.emit(e)
		return
	}
	_, rows, err := w.store.write(value, token, false)
	if err != nil {
		w.fail(fmt.Errorf("storage write: %w", err))
		return
	}
	e.Kind, e.Rows = KindWriteAccepted, ptr(rows)
	e.Message = fmt.Sprintf("the put is revision %d", r.Token)
	if again {
		e.Message += "; a retry of a transaction that had committed: the same value again"
	}
	w.emit(e)
}
