package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
)

// RaftPool keeps Raft lock groups booted ahead of time, node-1 leading, so
// that a run (Options.Pool, or the pool's Execute) starts without waiting
// for one. Each group serves exactly one run: the run takes it, gives it
// fresh state machines with the scenario's first token, and shuts it down
// at its end, while the pool boots a replacement in the background. A
// group's log then holds its bootstrap and node-1's election and nothing
// else, the same as a group booted for the run, so the timeline is the
// same byte for byte with or without a pool. (A chaos batch's pool,
// newStoresPool, instead hands groups on from run to run: raftreuse.go.)
//
// An idle group costs about 100 KB and its calm Raft timers (a heartbeat
// every 100 to 200 ms per follower, see docs/benchmarks.md). A group whose
// own timers fired while it waited (node-1 no longer leads, or its term
// moved on) is shut down instead of handed out.
//
// It also keeps the finished runs' storage databases for the next runs
// (storePool), as many per table as it keeps groups.
//
// A RaftPool is safe for concurrent use. Close stops the refilling and shuts
// the idle groups and databases down; runs still holding a group finish normally, and
// runs started afterwards boot their own group. The zero value is not
// usable; a nil *RaftPool boots a group for every run.
type RaftPool struct {
	size RaftPoolSize

	ctx    context.Context // ends the background boots at Close
	cancel context.CancelFunc
	kick   chan struct{}
	done   chan struct{}

	// stores keeps the finished runs' databases for the next runs, as
	// many per table as the pool keeps groups (storePool).
	stores *storePool

	mu     sync.Mutex
	idle   map[int][]*raftService // by number of nodes
	stale  []*raftService         // taken out, to shut down in the background
	closed bool

	// reuse, in a chaos batch's pool, keeps finished runs' groups in
	// spent (by number of nodes, at most keep in all) for later runs
	// that cannot tell them from new ones (raftreuse.go).
	reuse bool
	keep  int
	spent map[int][]*raftService

	hits, misses, discarded, reused atomic.Int64
}

// RaftPoolSize is how many idle groups a RaftPool keeps ready, by number
// of nodes.
type RaftPoolSize struct {
	One, Three, Five int
}

// MaxPoolGroups bounds each count of a RaftPoolSize.
const MaxPoolGroups = 64

// PoolSizeForSlots sizes a pool for a server that runs at most slots
// simulations at once: a 3-node group per slot (the presets' size), a
// 5-node group per four slots and one 1-node group, at most MaxPoolGroups
// of each.
func PoolSizeForSlots(slots int) RaftPoolSize {
	slots = min(max(slots, 1), MaxPoolGroups)
	return RaftPoolSize{One: 1, Three: slots, Five: max(1, slots/4)}
}

// RaftPoolStats counts what a pool did since it was made.
type RaftPoolStats struct {
	// Hits are runs that got a warm group; Misses booted their own (the
	// pool was empty, closed, or had no group of that size).
	Hits, Misses int64
	// Discarded are idle groups shut down instead of handed out, because
	// Raft's own timers had moved them (node-1 no longer led).
	Discarded int64
	// Reused are runs of a chaos batch that took a group an earlier run
	// of the batch had finished with (raftreuse.go); they count as misses
	// too.
	Reused int64
	// Idle is how many groups wait now, by number of nodes.
	Idle map[int]int
}

// NewRaftPool starts a pool and begins booting its groups in the
// background. Close it when done: its idle groups are goroutines.
func NewRaftPool(size RaftPoolSize) (*RaftPool, error) {
	for _, c := range []struct {
		field string
		n     int
	}{{"pool.one", size.One}, {"pool.three", size.Three}, {"pool.five", size.Five}} {
		if c.n < 0 || c.n > MaxPoolGroups {
			return nil, fieldErr(c.field, "must be between 0 and %d, not %d", MaxPoolGroups, c.n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &RaftPool{
		size: size, ctx: ctx, cancel: cancel,
		kick: make(chan struct{}, 1), done: make(chan struct{}),
		idle:   map[int][]*raftService{},
		stores: newStorePool(max(1, size.One+size.Three+size.Five)),
	}
	go p.refill()
	return p, nil
}

// newStoresPool is a pool that boots no group ahead of time and keeps the
// finished runs' databases, stores of them per table, and as many of
// their Raft groups as can serve a later run unchanged (raftreuse.go): a
// batch of runs in one process (a chaos batch) reuses them instead of
// opening a database and booting a group for every run. Booting groups
// ahead would not save a batch anything: the batch already keeps the CPU
// busy.
func newStoresPool(stores int) *RaftPool {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	close(done) // no refill to wait for at Close
	return &RaftPool{ctx: ctx, cancel: cancel, kick: make(chan struct{}, 1), done: done,
		idle: map[int][]*raftService{}, stores: newStorePool(max(1, stores)),
		reuse: true, keep: max(1, stores), spent: map[int][]*raftService{}}
}

// Execute runs a prepared scenario as fast as possible, as engine.Execute
// does, with its Raft group from the pool. A nil pool boots one.
func (p *RaftPool) Execute(ctx context.Context, prep *Prepared) (*Result, error) {
	return execute(ctx, prep, p)
}

// Stats reports the pool's counters.
func (p *RaftPool) Stats() RaftPoolStats {
	st := RaftPoolStats{Hits: p.hits.Load(), Misses: p.misses.Load(), Discarded: p.discarded.Load(), Reused: p.reused.Load(), Idle: map[int]int{}}
	p.mu.Lock()
	defer p.mu.Unlock()
	for n, g := range p.idle {
		st.Idle[n] = len(g)
	}
	return st
}

// Close stops booting groups, shuts every idle group down and waits for
// them. It is safe to call more than once.
func (p *RaftPool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	<-p.done
	p.mu.Lock()
	var groups []*raftService
	for n, g := range p.idle {
		groups = append(groups, g...)
		delete(p.idle, n)
	}
	for n, g := range p.spent {
		groups = append(groups, g...)
		delete(p.spent, n)
	}
	groups = append(groups, p.stale...)
	p.stale = nil
	p.mu.Unlock()
	errs := []error{p.stores.close()}
	for _, g := range groups {
		errs = append(errs, g.close())
	}
	return errors.Join(errs...)
}

// storePool is the pool's keeper of databases, nil for a nil pool (a run
// without one opens its own database).
func (p *RaftPool) storePool() *storePool {
	if p == nil {
		return nil
	}
	return p.stores
}

// take hands a group to w's run: a warm one if the pool has one that is
// still as it was booted, or one an earlier run finished with if the pool
// keeps those and w's run cannot tell it from a new one, else a new one
// booted now with the run's waits.
func (p *RaftPool) take(w *world) (*raftService, error) {
	n := w.sc.Lock.Nodes
	if p != nil {
		if svc := p.takeIdle(n); svc != nil {
			p.hits.Add(1)
			return svc, nil
		}
		p.misses.Add(1)
		if svc := p.takeSpent(n); svc != nil {
			p.reused.Add(1)
			return svc, nil
		}
	}
	return bootRaft(w.waits, n)
}

// takeSpent hands out a group an earlier run finished with, or nil.
func (p *RaftPool) takeSpent(n int) *raftService {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.spent[n]) == 0 {
		return nil
	}
	g := p.spent[n]
	svc := g[len(g)-1]
	g[len(g)-1] = nil
	p.spent[n] = g[:len(g)-1]
	return svc
}

// giveBack keeps the group a run finished with for a later run, when the
// pool keeps groups and the group can serve one unchanged; otherwise the
// caller shuts it down.
func (p *RaftPool) giveBack(svc *raftService) bool {
	if p == nil || !p.reuse || !svc.reusable() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := 0
	for _, g := range p.spent {
		kept += len(g)
	}
	if p.closed || kept >= p.keep {
		return false
	}
	n := len(svc.nodes)
	p.spent[n] = append(p.spent[n], svc)
	return true
}

func (p *RaftPool) takeIdle(n int) *raftService {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	defer p.wake()
	for len(p.idle[n]) > 0 {
		svc := p.idle[n][0]
		p.idle[n][0] = nil // the array outlives the slice: let the group go with its run
		p.idle[n] = p.idle[n][1:]
		if svc.asBooted() {
			return svc
		}
		p.discarded.Add(1)
		p.stale = append(p.stale, svc)
	}
	return nil
}

// asBooted reports whether a pooled group still has node-1 leading in the
// term it was booted with: Raft's own timers never fired.
func (s *raftService) asBooted() bool {
	for i, nd := range s.nodes {
		want := raft.Follower
		if i == 0 {
			want = raft.Leader
		}
		if nd.r.State() != want || nd.r.CurrentTerm() != bootTerm {
			return false
		}
	}
	return true
}

func (p *RaftPool) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// want returns a node count whose idle groups are fewer than the pool
// keeps, or 0.
func (p *RaftPool) want() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range []struct{ nodes, keep int }{{3, p.size.Three}, {5, p.size.Five}, {1, p.size.One}} {
		if len(p.idle[c.nodes]) < c.keep {
			return c.nodes
		}
	}
	return 0
}

// refill boots groups one at a time until the pool is full, shuts down the
// groups it discarded, and waits to be woken.
func (p *RaftPool) refill() {
	defer close(p.done)
	for {
		p.mu.Lock()
		stale := p.stale
		p.stale = nil
		p.mu.Unlock()
		for _, g := range stale {
			g.close()
		}
		n := p.want()
		if n == 0 {
			select {
			case <-p.kick:
				continue
			case <-p.ctx.Done():
				return
			}
		}
		svc, err := bootRaft(waiter{ctx: p.ctx}, n)
		if err != nil {
			if p.ctx.Err() != nil {
				return
			}
			// A boot that fails (only a broken machine does that) is
			// retried a little later rather than in a tight loop.
			select {
			case <-time.After(time.Second):
				continue
			case <-p.ctx.Done():
				return
			}
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			svc.close()
			return
		}
		p.idle[n] = append(p.idle[n], svc)
		p.mu.Unlock()
	}
}
