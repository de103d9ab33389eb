package engine

import (
	"fmt"
	"slices"
	"strings"
)

// BackendZooKeeper is the zookeeper backend's name.
const BackendZooKeeper = "zookeeper"

// ZooKeeper's events (docs/scenarios.md).
const (
	// KindSessionExpired: the leader closed a session that it had not
	// heard from within its timeout; actor and node: the leader; holder:
	// the session's client; token: the czxid of the lock node it deleted;
	// message: that node's name; reason: in words. (A session without a
	// lock node closes without an event.)
	KindSessionExpired = "session_expired"
	// KindWatching: a client's lock node is not the lowest, so it watches
	// the node just before its own and waits (no polling, no herd);
	// holder and token: that node's owner and czxid; node: the server
	// that answered; reason: both nodes' names.
	KindWatching = "watching"
	// KindWatchFired: a watched node was deleted and the server notifies
	// its one watcher; actor and node: the leader; client: the watcher;
	// token: the deleted node's czxid; message: the node's name.
	KindWatchFired = "watch_fired"
)

// zookeeperBackend is ZooKeeper's lock recipe on a real hashicorp/raft
// group (standing in for ZooKeeper's own atomic broadcast, Zab: both
// commit on a majority in one leader's order). A client's session is a
// lease: its timeout is lock.lease, and every request (the holder's
// renewals, a waiter's pings) starts it again; the leader closes a session
// it has not heard from in time, which deletes the client's ephemeral lock
// node. The lock is the lowest sequential node; the token is its czxid.
var zookeeperBackend = Backend{
	Name: BackendZooKeeper, Label: "ZooKeeper",
	Nodes: []int{1, 3, 5}, DefaultNodes: DefaultNodes, NodesRule: "a zookeeper ensemble has 1, 3 or 5 servers",
	Tokens: true, Leader: true, Follower: "follower",
	Kinds: []EventKind{
		{Kind: KindSessionExpired, Doc: "actor and node: the leader; holder: the session's client; token: the czxid of the lock node it deleted; message: that node's name; reason: in words",
			Lane: "node", Shape: "diamond", Class: "m-expired",
			Label: "session of {holder} closed: {message} deleted", Legend: "session expired, node deleted"},
		{Kind: KindWatching, Doc: "holder and token: the owner and czxid of the node the client watches; node: the server that answered; reason: both nodes' names",
			Lane: "client", Shape: "dot", Class: "m-ask",
			Label: "watches {holder}'s node", Legend: "watches the node before its own",
			describe: func(e Event) string { return "waits for the lock: " + e.Reason }},
		{Kind: KindWatchFired, Doc: "actor and node: the leader; client: the watcher; token: the deleted node's czxid; message: the node's name",
			Lane: "node", Shape: "dot", Class: "m-check",
			Label: "watch → {client}", Legend: "watch fires"},
	},
	start: func(w *world, pool *RaftPool) (lockService, error) {
		svc, err := pool.take(w)
		if err != nil {
			return nil, err
		}
		svc.attach(w)
		z := &zkService{raftService: svc, waiters: map[string]*zkWaiter{}, watches: map[string]zkNode{}}
		svc.hooks.led = append(svc.hooks.led, z.after)
		return z, nil
	},
	store:        func() fsmStore { return &zkStore{} },
	ops:          zkOpNames,
	client:       zkClient{},
	history:      ZKLockModel,
	clockHistory: ZKServerClockModel,
	// Only the leader closes sessions.
	witness:    func(w *world, _ *grantRec) string { return w.svc.serving() },
	restarted:  "starts again on its stored log and rejoins the ensemble",
	localReads: true,
	diskLoss:   true,
	untimed:    true,
	// Any request from a client starts its session's timeout again.
	touches: true,
	aims: []aim{
		{"leader crash after a grant", 20, aimCrashServing},
		{"leader cut off during a session", 15, aimPartitionServing},
	},
}

// zkService is the ensemble: the Raft group that keeps the state, and the
// leader's duties ZooKeeper gives it: closing expired sessions and telling
// each watcher that the node it watched is gone.
type zkService struct {
	*raftService
	// waiters are the clients waiting for a watch, by name; watches the
	// node each of them watches (set when the server answered its create).
	waiters map[string]*zkWaiter
	watches map[string]zkNode
	// expiryAt is the true time of the next session check, expiryGen
	// makes an earlier one that was moved do nothing.
	expiryAt  int64
	expiryGen int
	// heard is, by client, the last request the ensemble answered, which
	// started its session's timeout again.
	heard map[string]zkHeard
}

// zkHeard is when the ensemble last heard from a client: in true time,
// and by the clock of the leader that stamped the session's new deadline.
type zkHeard struct {
	at, clock int64
	node      string
}

// zkWaiter is a waiting client's side of a watch.
type zkWaiter struct {
	notified bool
	wake     func() // wakes the parked client, once
}

// zkOps turns a client's lock operation into ZooKeeper's.
var zkOps = map[Op]Op{OpAcquire: opZKLock, OpRenew: opZKRenew, OpCheck: opZKCheck, OpRelease: opZKRelease}

// serve answers a client's request as a ZooKeeper server: through the
// leader and the log, then the leader's duties.
func (s *zkService) serve(cmd Command) (Reply, string, bool) {
	op := zkOps[cmd.Op]
	if cmd.Op == OpRenew && cmd.Token == 0 {
		op = opZKPing
	}
	if op == 0 {
		return Reply{}, "", false
	}
	cmd.Op = op
	r, node, ok := s.raftService.serve(cmd)
	if !ok {
		return r, node, ok
	}
	if s.heard == nil {
		s.heard = map[string]zkHeard{}
	}
	s.heard[cmd.Client] = zkHeard{at: s.w.s.now, clock: r.Now, node: node}
	if op == opZKLock && !r.OK {
		// The create's answer and the watch on the node before it are
		// one step at the server: the node cannot slip away unseen.
		s.watches[cmd.Client] = zkNode{Owner: r.Holder, Czxid: r.Token, Name: watchedName(r.Reason)}
	}
	s.after()
	return r, node, ok
}

// watchedName picks the watched node's name out of a lock refusal.
func watchedName(reason string) string {
	_, rest, ok := strings.Cut(reason, "watches ")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, " ")
	return name
}

// leaderView reads the lock's nodes and the earliest session deadline at
// the leader, with the leader's clock.
func (s *zkService) leaderView() (zkView, int64, *raftNode) {
	if !s.available() {
		return zkView{}, 0, nil
	}
	nd := s.nodes[s.leader]
	v, earliest := zkViewOf(nd.simNode.fsm, s.w.lockName)
	return v, earliest, nd
}

// after does what the leader does once a change committed: it notifies
// the watchers of deleted nodes and sets its session timer for the
// earliest deadline. It also runs when a new leader is elected.
func (s *zkService) after() {
	w := s.w
	v, earliest, nd := s.leaderView()
	if nd == nil {
		return
	}
	for _, client := range sortedNames(s.watches) {
		watched := s.watches[client]
		if slices.ContainsFunc(v.Nodes, func(n zkNode) bool { return n.Czxid == watched.Czxid }) {
			continue
		}
		delete(s.watches, client)
		w.emit(Event{Actor: nd.name, Kind: KindWatchFired, Node: nd.name, Client: client, Token: watched.Czxid, Message: watched.Name,
			Reason: fmt.Sprintf("%s (czxid %d) was deleted: %s, its only watcher, is told", watched.Name, watched.Czxid, client)})
		w.s.at(w.s.now+w.sc.Lock.Latency.MS(), func() {
			if wt := s.waiters[client]; wt != nil {
				wt.notified = true
				if wt.wake != nil { // nil: the client has not yet heard its create's answer, and sees notified first
					wt.wake()
				}
			}
		})
	}
	if earliest == 0 || w.allDone() {
		return // no session to watch, or nobody left whose lock it could change
	}
	t := max(nd.clock.trueAt(earliest), w.s.now)
	if t == s.expiryAt {
		return
	}
	s.expiryAt = t
	s.expiryGen++
	gen := s.expiryGen
	w.s.at(t, func() {
		if gen == s.expiryGen {
			s.expire()
		}
	})
}

// expire closes the sessions whose timeout passed, by the leader's clock,
// with one command through the log. A leader that cannot commit expires
// nothing; the next one does when it is elected.
func (s *zkService) expire() {
	w := s.w
	before, _, nd := s.leaderView()
	if nd == nil {
		return
	}
	cmd := Command{Op: opZKExpire, Lock: w.lockName, Now: nd.clock.at(w.s.now)}
	r, err := s.commit(nd, cmd)
	if err != nil {
		s.fail(err)
		return
	}
	s.remember(nd, w.lockName)
	if r.OK {
		// A session with no lock node closes quietly: nothing of the lock
		// changes (a finished client's, whose process is gone).
		for _, client := range strings.Split(r.Reason, ",") {
			for _, n := range before.Nodes {
				if n.Owner == client {
					w.emit(Event{Actor: nd.name, Kind: KindSessionExpired, Node: nd.name, Holder: client, Token: n.Czxid, Message: n.Name,
						Reason: fmt.Sprintf("%s: it closes the session and deletes its ephemeral node %s (czxid %d)", s.unheard(nd, client, n.Czxid), n.Name, n.Czxid)})
				}
			}
		}
	}
	s.after()
}

// unheard says why the leader nd closes client's session, judged by true
// time: its timeout passed with nothing heard from the client, or, when
// the ensemble heard from it less than a timeout ago in true time, which
// clock says otherwise: the leader's, running ahead, or the one that set
// the session's deadline, behind true time (an earlier leader's), or
// that the leader's log lacks the heartbeats that kept the session of the
// lock node czxid (a lost disk took their copies: world.renewalsLost).
func (s *zkService) unheard(nd *raftNode, client string, czxid int64) string {
	w := s.w
	h, ok := s.heard[client]
	trueEnd := h.at + w.sc.Lock.Lease.MS()
	if !ok || w.s.now >= trueEnd {
		return fmt.Sprintf("the leader has not heard from %s within its session timeout", client)
	}
	inTrue := fmt.Sprintf("in true time it heard from %s at %s, and the session was to last until %s", client, FormatMS(h.at), FormatMS(trueEnd))
	if g := w.ledger.find(client, czxid); g != nil && g.cutBack != "" {
		return fmt.Sprintf("its log lacks %s's latest heartbeats: %s; %s", client, g.cutBack, strings.Replace(inTrue, "it heard", "the ensemble heard", 1))
	}
	if skew := nd.clock.at(w.s.now) - w.s.now; skew > 0 {
		return fmt.Sprintf("by its clock, %s ahead of true time, the leader has not heard from %s within its session timeout; %s", FormatMS(skew), client, inTrue)
	}
	if behind := h.at - h.clock; behind > 0 {
		return fmt.Sprintf("by its clock, %s's session timeout has passed: its deadline was set by %s's clock, %s behind true time; %s", client, h.node, FormatMS(behind), inTrue)
	}
	return fmt.Sprintf("by its clock, %s's session timeout has passed; %s", client, inTrue)
}

// zkClient is the lock recipe at the client: create an ephemeral
// sequential node; if it is not the lowest, watch the one just before it
// and wait for the watch, pinging to keep the session alive, then look
// again. Renewals are the holder's heartbeats; checks, renewals and the
// release go to the leader like any request.
type zkClient struct{ serviceClient }

// call runs the recipe for an acquire; any other operation is one request.
// The acquire is one operation of the history from the create to the
// answer that finds the client's node lowest: ZooKeeper hands the lock to
// the next node the moment the one before it is deleted, and the client
// learns it from its watch.
func (zkClient) call(c *client, a *actor, op Op, token int64) (Reply, string, bool) {
	if op != OpAcquire {
		return c.callService(a, op, token)
	}
	w := c.w
	svc := w.svc.(*zkService)
	callAt := w.history.tick()
	for {
		wt := &zkWaiter{}
		svc.waiters[c.cfg.Name] = wt
		cmd := c.command(OpAcquire, 0)
		var r Reply
		var node string
		var ok bool
		var by served
		c.answerLost = false
		x := c.roundTrip(a, MsgAcquire, func() string {
			if r, node, ok = w.serve(cmd); !ok {
				return ""
			}
			by = w.servedBy(node)
			return node
		}, func() { w.answerLost(cmd, r, node, by, callAt) })
		if !ok || x.lost {
			c.answerLost = ok && x.lost
			delete(svc.waiters, c.cfg.Name)
			return r, node, false
		}
		if r.OK {
			delete(svc.waiters, c.cfg.Name)
			w.history.record(cmd, r, by, callAt, w.history.tick())
			return r, node, true
		}
		c.emit(Event{Kind: KindWatching, Holder: r.Holder, Token: r.Token, Node: node, Reason: r.Reason})
		c.waitWatch(a, wt)
		delete(svc.waiters, c.cfg.Name)
	}
}

// waitWatch parks the client until its watch fires, sending a ping to keep
// its session alive every third of the session timeout, as ZooKeeper's
// client library does on its own while the application waits.
func (c *client) waitWatch(a *actor, wt *zkWaiter) {
	w := c.w
	every := max(w.sc.Lock.Lease.MS()/3, 1)
	parked, gen := false, 0
	wt.wake = func() {
		if parked {
			parked = false
			w.s.wakeAt(a, w.s.now)
		}
	}
	for !wt.notified {
		gen++
		g := gen
		parked = true
		w.s.atGroup(c.g, w.s.now+every, func() {
			if g == gen {
				wt.wake()
			}
		})
		a.park()
		if wt.notified {
			return
		}
		cmd := c.command(OpRenew, 0)
		c.dispatch(MsgRenew, func() string {
			if _, node, ok := w.serve(cmd); ok {
				return node
			}
			return ""
		}, nil, func(*exchange) {})
	}
}
