package admission

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
)

// A Cost is what a run takes from the capacity while it runs, in
// thousandths of a slot.
type Cost int64

// Slot is the cost of a run going as fast as it can.
const Slot Cost = 1000

// Defaults for Config.
const (
	DefaultSlotsPerCPU  = 2   // Slots is this times GOMAXPROCS
	DefaultQueuePerSlot = 128 // Queue is this times Slots
	DefaultFlowShare    = 0.25
	DefaultIPShare      = 0.75
	DefaultFlowQueue    = 4
)

// Refusals: the request was not queued at all. ErrClosed also ends every
// wait in progress.
var (
	ErrClosed        = errors.New("admission: the server is shutting down")
	ErrQueueFull     = errors.New("admission: the queue is full")
	ErrFlowQueueFull = errors.New("admission: this session already has as many requests waiting as it may")
	ErrIPQueueFull   = errors.New("admission: this address already has as many requests waiting as it may")
)

// Config sizes a Controller. Zero fields take their defaults.
type Config struct {
	// Slots is how many runs going as fast as they can may run at once
	// (default 2 x GOMAXPROCS). Cheaper runs share a slot.
	Slots int
	// Queue bounds the requests waiting, all clients together (default
	// 128 per slot).
	Queue int
	// FlowShare is the share of the capacity one flow (a session, or an
	// address without one) may hold at once, between 0 and 1 (default
	// 0.25); it is never less than one slot.
	FlowShare float64
	// IPShare is the share of the capacity one address may hold at once,
	// all its sessions together (default 0.75); never less than FlowShare.
	IPShare float64
	// FlowQueue bounds the requests one flow may have waiting (default 4).
	FlowQueue int
	// IPQueue bounds the requests one address may have waiting (default
	// IPShare of Queue).
	IPQueue int
	// Now reads the clock, to measure waits; nil is time.Now.
	Now func() time.Time
}

// WithDefaults returns the config with zero fields replaced by defaults.
func (c Config) WithDefaults() Config {
	if c.Slots == 0 {
		c.Slots = DefaultSlotsPerCPU * runtime.GOMAXPROCS(0)
	}
	if c.Queue == 0 {
		c.Queue = DefaultQueuePerSlot * c.Slots
	}
	if c.FlowShare == 0 {
		c.FlowShare = DefaultFlowShare
	}
	if c.IPShare == 0 {
		c.IPShare = max(DefaultIPShare, c.FlowShare)
	}
	if c.FlowQueue == 0 {
		c.FlowQueue = DefaultFlowQueue
	}
	if c.IPQueue == 0 {
		c.IPQueue = max(1, int(math.Round(float64(c.Queue)*c.IPShare)))
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Validate reports the first setting out of range, in the words of the
// server's flags.
func (c Config) Validate() error {
	c = c.WithDefaults()
	switch {
	case c.Slots < 1 || c.Slots > 10000:
		return fmt.Errorf("run-slots: must be between 1 and 10000, not %d", c.Slots)
	case c.Queue < 1 || c.Queue > 1000000:
		return fmt.Errorf("run-queue: must be between 1 and 1000000, not %d", c.Queue)
	case !(c.FlowShare > 0 && c.FlowShare <= 1):
		return fmt.Errorf("session-share: must be more than 0 and at most 1, not %g", c.FlowShare)
	case !(c.IPShare >= c.FlowShare && c.IPShare <= 1):
		return fmt.Errorf("address-share: must be between session-share (%g) and 1, not %g", c.FlowShare, c.IPShare)
	case c.FlowQueue < 1 || c.FlowQueue > c.Queue:
		return fmt.Errorf("session-queue: must be between 1 and run-queue (%d), not %d", c.Queue, c.FlowQueue)
	case c.IPQueue < c.FlowQueue || c.IPQueue > c.Queue:
		return fmt.Errorf("address-queue: must be between session-queue (%d) and run-queue (%d), not %d", c.FlowQueue, c.Queue, c.IPQueue)
	}
	return nil
}

// Who says on whose behalf a request is made. Session is the learner's
// session (their class cookie), empty when there is none; IP is the
// client's address.
type Who struct {
	Session string
	IP      string
}

// flowKey is the flow a request belongs to: its session, or its address
// when it has none.
func (w Who) flowKey() string {
	if w.Session != "" {
		return "s:" + w.Session
	}
	return "a:" + w.IP
}

// Controller admits runs. Its methods may be called from any goroutine.
type Controller struct {
	cfg      Config
	capacity Cost
	flowCap  Cost
	ipCap    Cost

	mu      sync.Mutex
	held    Cost
	running int
	queue   []*waiter // in service order: (tag, seq)
	flows   map[string]*flow
	ips     map[string]*address
	vtime   int64 // the largest tag served so far
	seq     uint64
	closed  bool
	done    chan struct{} // closed by Close
	stats   Stats
	holdAvg float64 // seconds a ticket is held, moving average
}

type flow struct {
	held    Cost
	waiting int
	finish  int64 // the tag after this flow's last request
}

type address struct {
	held    Cost
	waiting int
}

type waiter struct {
	who     Who
	flow    string
	cost    Cost
	tag     int64
	seq     uint64
	pos     int
	queued  time.Time
	moved   chan struct{} // pos changed (capacity 1)
	ready   chan struct{} // closed when granted
	granted *Ticket
}

// New returns a controller sized by cfg (see Config for the defaults).
func New(cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	capacity := Cost(cfg.Slots) * Slot
	flowCap := max(Slot, Cost(math.Round(float64(capacity)*cfg.FlowShare)))
	ipCap := max(flowCap, Cost(math.Round(float64(capacity)*cfg.IPShare)))
	return &Controller{
		cfg: cfg, capacity: capacity, flowCap: min(flowCap, capacity), ipCap: min(ipCap, capacity),
		flows: map[string]*flow{}, ips: map[string]*address{}, done: make(chan struct{}),
	}, nil
}

// Config returns the controller's settings, defaults filled in.
func (c *Controller) Config() Config { return c.cfg }

// Capacity is the number of slots, in cost units.
func (c *Controller) Capacity() Cost { return c.capacity }

// Caps returns what one flow and one address may hold at once.
func (c *Controller) Caps() (flow, address Cost) { return c.flowCap, c.ipCap }

// Acquire waits until a run of the given cost may start on who's behalf,
// and returns its ticket; Release it when the run ends. While the request
// waits, moved (if not nil) is called with its place in the line (1 is
// next), first as soon as it is queued and then each time it changes, on
// the caller's goroutine.
//
// It returns at once with ErrQueueFull, ErrFlowQueueFull or ErrIPQueueFull
// when the request may not even wait, ErrClosed when the controller is
// closed (also during the wait), or ctx's error when ctx ends first. A cost
// above what one flow may hold is clamped to it, so every request can be
// served eventually.
func (c *Controller) Acquire(ctx context.Context, who Who, cost Cost, moved func(position int)) (*Ticket, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cost = min(max(cost, 1), c.flowCap)
	now := c.cfg.Now()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	w := c.enqueueLocked(who, cost, now)
	c.dispatchLocked()
	if t := w.granted; t != nil {
		c.mu.Unlock()
		return t, nil
	}
	if err := c.refusalLocked(w); err != nil {
		c.removeLocked(w)
		c.stats.Refused++
		c.dispatchLocked()
		c.mu.Unlock()
		return nil, err
	}
	pos := w.pos
	c.mu.Unlock()

	if moved != nil {
		moved(pos)
	}
	for {
		select {
		case <-w.ready:
			return w.granted, nil
		case <-w.moved:
			c.mu.Lock()
			p := w.pos
			c.mu.Unlock()
			if moved != nil && p != pos && p > 0 {
				moved(p)
			}
			pos = p
		case <-ctx.Done():
			return nil, c.abandon(w, ctx.Err())
		case <-c.done:
			return nil, c.abandon(w, ErrClosed)
		}
	}
}

// abandon takes a waiter out of the line. If it was granted meanwhile, the
// ticket is handed back.
func (c *Controller) abandon(w *waiter, err error) error {
	c.mu.Lock()
	t := w.granted
	if t == nil {
		c.removeLocked(w)
		c.stats.Abandoned++
		c.dispatchLocked()
	}
	c.mu.Unlock()
	if t != nil {
		t.Release()
	}
	return err
}

func (c *Controller) enqueueLocked(who Who, cost Cost, now time.Time) *waiter {
	key := who.flowKey()
	f := c.flows[key]
	if f == nil {
		f = &flow{}
		c.flows[key] = f
	}
	a := c.ips[who.IP]
	if a == nil {
		a = &address{}
		c.ips[who.IP] = a
	}
	// Start-time fair order: a request starts after its flow's previous
	// one, and no earlier than the line's current virtual time. Every
	// request counts one, whatever its cost: flows take turns.
	tag := max(c.vtime, f.finish)
	f.finish = tag + 1
	f.waiting++
	a.waiting++
	c.seq++
	w := &waiter{who: who, flow: key, cost: cost, tag: tag, seq: c.seq, queued: now,
		moved: make(chan struct{}, 1), ready: make(chan struct{})}
	i, _ := slices.BinarySearchFunc(c.queue, w, func(a, b *waiter) int {
		if a.tag != b.tag {
			return cmpInt(a.tag, b.tag)
		}
		return cmpInt(a.seq, b.seq)
	})
	c.queue = slices.Insert(c.queue, i, w)
	return w
}

func cmpInt[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// refusalLocked says whether a request that cannot start now may wait.
func (c *Controller) refusalLocked(w *waiter) error {
	switch {
	case c.flows[w.flow].waiting > c.cfg.FlowQueue:
		return ErrFlowQueueFull
	case c.ips[w.who.IP].waiting > c.cfg.IPQueue:
		return ErrIPQueueFull
	case len(c.queue) > c.cfg.Queue:
		return ErrQueueFull
	}
	return nil
}

func (c *Controller) removeLocked(w *waiter) {
	i := slices.Index(c.queue, w)
	if i < 0 {
		return
	}
	c.queue = slices.Delete(c.queue, i, i+1)
	f, a := c.flows[w.flow], c.ips[w.who.IP]
	f.waiting--
	a.waiting--
	// A request that never ran gives its turn back.
	if f.finish == w.tag+1 {
		f.finish = w.tag
	}
	c.forgetLocked(w.flow, w.who.IP)
}

// dispatchLocked starts every waiter that fits, in order. One blocked by
// its own flow's or address's share is passed over, and so are the later
// requests of that flow and address (others may go); one blocked by the
// capacity stops the line. Either way no request is starved by cheaper
// ones behind it.
func (c *Controller) dispatchLocked() {
	changed := false
	// Flows and addresses held back by their share in this pass: their
	// later requests may not overtake their first.
	var heldBack map[string]bool
	for i := 0; i < len(c.queue); {
		w := c.queue[i]
		f, a := c.flows[w.flow], c.ips[w.who.IP]
		if heldBack["f"+w.flow] || heldBack["a"+w.who.IP] {
			i++
			continue
		}
		if f.held+w.cost > c.flowCap || a.held+w.cost > c.ipCap {
			if heldBack == nil {
				heldBack = map[string]bool{}
			}
			heldBack["f"+w.flow], heldBack["a"+w.who.IP] = true, true
			i++
			continue
		}
		if c.held+w.cost > c.capacity {
			break
		}
		c.queue = slices.Delete(c.queue, i, i+1)
		changed = true
		f.waiting--
		a.waiting--
		f.held += w.cost
		a.held += w.cost
		c.held += w.cost
		c.running++
		c.vtime = max(c.vtime, w.tag)
		c.stats.Granted++
		w.pos = 0
		w.granted = &Ticket{c: c, who: w.who, flow: w.flow, cost: w.cost,
			start: c.cfg.Now(), waited: c.cfg.Now().Sub(w.queued)}
		close(w.ready)
	}
	if changed || len(c.queue) > 0 {
		for i, w := range c.queue {
			if w.pos != i+1 {
				w.pos = i + 1
				select {
				case w.moved <- struct{}{}:
				default:
				}
			}
		}
	}
}

// forgetLocked drops the bookkeeping of a flow and an address that hold
// and wait for nothing. A flow ahead of the line's virtual time is kept
// until the line catches up, so that a learner whose answer runs the
// engine many times, one run after another, keeps its place behind the
// others between two runs.
func (c *Controller) forgetLocked(key, ip string) {
	if c.running == 0 && len(c.queue) == 0 {
		// Nobody to be fair to: start afresh.
		clear(c.flows)
		clear(c.ips)
		return
	}
	if f := c.flows[key]; f != nil && f.held == 0 && f.waiting == 0 && f.finish <= c.vtime {
		delete(c.flows, key)
	}
	if a := c.ips[ip]; a != nil && a.held == 0 && a.waiting == 0 {
		delete(c.ips, ip)
	}
	// Flows kept for their place are swept once they fall behind.
	if len(c.flows) > 2*(c.running+len(c.queue))+64 {
		for k, f := range c.flows {
			if f.held == 0 && f.waiting == 0 && f.finish <= c.vtime {
				delete(c.flows, k)
			}
		}
	}
}

// Close refuses every request from now on and ends every wait with
// ErrClosed. Tickets already held stay valid until released.
func (c *Controller) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		close(c.done)
	}
}

// RetryAfter estimates how long a refused or timed-out client should wait
// before trying again: the line ahead, served at the pace tickets have been
// released lately, between 1 s and a minute.
func (c *Controller) RetryAfter() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	hold := c.holdAvg
	if hold <= 0 {
		hold = 1
	}
	secs := hold * float64(len(c.queue)+1) / float64(c.cfg.Slots)
	return time.Duration(min(max(secs, 1), 60) * float64(time.Second))
}

// Stats are the controller's counts at one moment.
type Stats struct {
	Capacity  Cost   // the slots, in cost units
	Held      Cost   // taken by running requests
	Running   int    // tickets held
	Waiting   int    // requests in the line
	Granted   uint64 // requests admitted since the start
	Refused   uint64 // requests refused without waiting (a full queue)
	Abandoned uint64 // requests that left the line (their context ended, or Close)
}

// Stats returns the current counts.
func (c *Controller) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Capacity, s.Held, s.Running, s.Waiting = c.capacity, c.held, c.running, len(c.queue)
	return s
}

// Ticket is a run's permission to use its share of the capacity.
type Ticket struct {
	c      *Controller
	who    Who
	flow   string
	start  time.Time
	waited time.Duration

	cost     Cost // guarded by c.mu
	released bool // guarded by c.mu
}

// Waited is how long the request waited in the line.
func (t *Ticket) Waited() time.Duration { return t.waited }

// Cost is what the ticket holds now.
func (t *Ticket) Cost() Cost {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.cost
}

// Shrink gives back part of what the ticket holds, keeping to (at least
// 1): a run that became cheaper (paced again) lets others start.
func (t *Ticket) Shrink(to Cost) {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	to = max(to, 1)
	if t.released || to >= t.cost {
		return
	}
	d := t.cost - to
	t.cost = to
	c.held -= d
	c.flows[t.flow].held -= d
	c.ips[t.who.IP].held -= d
	c.dispatchLocked()
}

// Release gives the ticket back; calling it again does nothing.
func (t *Ticket) Release() {
	c := t.c
	now := c.cfg.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.released {
		return
	}
	t.released = true
	c.held -= t.cost
	c.running--
	c.flows[t.flow].held -= t.cost
	c.ips[t.who.IP].held -= t.cost
	held := now.Sub(t.start).Seconds()
	if c.holdAvg == 0 {
		c.holdAvg = held
	} else {
		c.holdAvg += (held - c.holdAvg) / 16
	}
	c.forgetLocked(t.flow, t.who.IP)
	c.dispatchLocked()
}
