package engine

import (
	"container/heap"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// The scheduler is a discrete-event loop over a virtual clock in integer
// milliseconds. Work is either a callback, run on the scheduler's own
// goroutine, or the wake-up of an actor: a goroutine that runs only while it
// holds the baton and hands it back whenever it blocks on a simulation
// primitive (sleep, an RPC). Exactly one of them runs at a time, always in
// (time, order, sequence) order, so the interleaving is the same on every run.

// item is one entry of the agenda.
type item struct {
	t     int64  // when it is due
	ord   int64  // tie-break: the time it was first due (wake-ups deferred by a pause keep their order)
	seq   uint64 // tie-break: the order it was scheduled in
	fn    func() // a callback, or
	actor *actor // an actor to wake
	// g, for a callback, is the group it belongs to: like a wake-up of
	// one of the group's actors, it waits out the group's pause.
	g *group
}

type agenda []*item

func (q agenda) Len() int { return len(q) }
func (q agenda) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.ord != b.ord {
		return a.ord < b.ord
	}
	return a.seq < b.seq
}
func (q agenda) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *agenda) Push(x any)   { *q = append(*q, x.(*item)) }
func (q *agenda) Pop() any {
	old := *q
	n := len(old)
	it := old[n-1]
	old[n-1] = nil
	*q = old[:n-1]
	return it
}

// group is a set of actors that are paused and killed together: the
// goroutines of one client.
type group struct {
	name        string
	pausedUntil int64
	actors      []*actor
}

// actor is a goroutine of the simulated world.
type actor struct {
	s    *scheduler
	g    *group
	wake chan struct{}
	kill chan struct{}
	dead bool
	// running is true while the actor holds the baton; only its own
	// goroutine reads or writes it.
	running bool
}

// scheduler owns simulated time and the baton.
type scheduler struct {
	now   int64
	seq   uint64
	q     agenda
	yield chan struct{}
	wg    sync.WaitGroup
	live  map[*actor]struct{}
	err   error // a panic inside an actor, reported as the run's error
}

func newScheduler() *scheduler {
	return &scheduler{yield: make(chan struct{}), live: map[*actor]struct{}{}}
}

// at schedules a callback at time t (never in the past).
func (s *scheduler) at(t int64, fn func()) {
	s.push(&item{t: max(t, s.now), ord: max(t, s.now), fn: fn})
}

// atFirst schedules a callback at time t ahead of everything else due then.
func (s *scheduler) atFirst(t int64, fn func()) {
	s.push(&item{t: max(t, s.now), ord: math.MinInt64, fn: fn})
}

// atGroup schedules a callback of group g at time t; while g is paused it
// waits, like the group's actors.
func (s *scheduler) atGroup(g *group, t int64, fn func()) {
	s.push(&item{t: max(t, s.now), ord: max(t, s.now), fn: fn, g: g})
}

func (s *scheduler) push(it *item) {
	s.seq++
	it.seq = s.seq
	heap.Push(&s.q, it)
}

// spawn starts an actor in group g whose body runs from time t.
func (s *scheduler) spawn(g *group, t int64, body func(a *actor)) *actor {
	a := &actor{s: s, g: g, wake: make(chan struct{}), kill: make(chan struct{})}
	g.actors = append(g.actors, a)
	s.live[a] = struct{}{}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		select {
		case <-a.wake:
		case <-a.kill:
			return
		}
		a.running = true
		defer func() {
			// A parked actor that was killed ends without the baton and
			// must not touch shared state; one that ends while running
			// (returned, killed itself or panicked) hands the baton back.
			if !a.running {
				return
			}
			if r := recover(); r != nil {
				buf := make([]byte, 4096)
				buf = buf[:runtime.Stack(buf, false)]
				s.err = fmt.Errorf("internal error in %s: %v\n%s", g.name, r, buf)
			}
			a.dead = true
			s.yield <- struct{}{}
		}()
		body(a)
	}()
	s.push(&item{t: max(t, s.now), ord: max(t, s.now), actor: a})
	return a
}

// park hands the baton back and blocks until the actor is woken. A killed
// actor never returns from park: its goroutine ends.
func (a *actor) park() {
	a.running = false
	a.s.yield <- struct{}{}
	select {
	case <-a.wake:
		a.running = true
	case <-a.kill:
		runtime.Goexit()
	}
}

// sleep blocks the actor for d milliseconds of simulated time.
func (a *actor) sleep(d int64) {
	a.s.wakeAt(a, a.s.now+d)
	a.park()
}

// wakeAt schedules the actor's next wake-up.
func (s *scheduler) wakeAt(a *actor, t int64) {
	t = max(t, s.now)
	s.push(&item{t: t, ord: t, actor: a})
}

// killGroup ends every actor of g. When the caller is one of them, it hands
// the baton back and ends too (it never returns).
func (s *scheduler) killGroup(g *group, self *actor) {
	for _, a := range g.actors {
		if a != self {
			s.killActor(a)
		}
	}
	if self != nil && self.g == g {
		self.dead = true
		delete(s.live, self)
		runtime.Goexit() // the goroutine's deferred hand-off returns the baton
	}
}

// killActor ends one parked actor.
func (s *scheduler) killActor(a *actor) {
	if a.dead {
		return
	}
	a.dead = true
	delete(s.live, a)
	close(a.kill)
}

// pause freezes group g until time t: wake-ups due before then run at t, in
// their original order.
func (s *scheduler) pause(g *group, until int64) {
	g.pausedUntil = max(g.pausedUntil, until)
}

// peek returns the time of the next runnable item, skipping dead actors.
func (s *scheduler) peek() (int64, bool) {
	for len(s.q) > 0 {
		it := s.q[0]
		g := it.g
		if it.actor != nil {
			if it.actor.dead {
				heap.Pop(&s.q)
				continue
			}
			g = it.actor.g
		}
		if g != nil && g.pausedUntil > it.t {
			heap.Pop(&s.q)
			it.t = g.pausedUntil
			heap.Push(&s.q, it)
			continue
		}
		return it.t, true
	}
	return 0, false
}

// step runs the next item. It returns false when nothing is left.
func (s *scheduler) step() bool {
	if _, ok := s.peek(); !ok {
		return false
	}
	it := heap.Pop(&s.q).(*item)
	s.now = it.t
	if it.fn != nil {
		it.fn()
		return true
	}
	a := it.actor
	a.wake <- struct{}{}
	<-s.yield
	if a.dead {
		delete(s.live, a)
	}
	return true
}

// shutdown ends every actor still parked and waits for their goroutines.
func (s *scheduler) shutdown() {
	for a := range s.live {
		s.killActor(a)
	}
	s.wg.Wait()
	s.q = nil
}
