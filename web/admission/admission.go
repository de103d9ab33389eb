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

// Kind is the capacity a request takes: each kind has its own, its own
// line and its own shares, so a run of one kind never waits behind a run
// of the other.
type Kind int

const (
	// Slot is a run going as fast as it can: its cost is CPU. POST
	// /api/run, each run of a check, a live run at full speed.
	Slot Kind = iota
	// Live is a run on a websocket, for as long as it lasts: its cost is
	// memory (a Raft group, a database, goroutines) and, paced for
	// watching, a trickle of CPU. A live run at full speed takes a Slot
	// too.
	Live
	kinds = 2
)

func (k Kind) String() string {
	if k == Live {
		return "live"
	}
	return "slot"
}

// Defaults for Config.
const (
	DefaultSlotsPerCPU  = 2   // Slots is this times GOMAXPROCS
	DefaultLive         = 200 // Live
	DefaultQueuePerSlot = 128 // Queue is this times Slots
	DefaultFlowShare    = 0.25
	DefaultIPShare      = 0.75
	DefaultFlowQueue    = 4
	// DefaultFlowsPerIP is the largest class (classroom's
	// MaxLearnersPerClass, 500) behind one NAT: a lecture hall of 400
	// and some to spare.
	DefaultFlowsPerIP = 500
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
	// (default 2 x GOMAXPROCS).
	Slots int
	// Live is how many live runs may run at once (default 200).
	Live int
	// Queue bounds the requests waiting, both kinds and all clients
	// together (default 128 per slot).
	Queue int
	// FlowShare is the share of each capacity one flow (a session, or an
	// address without one) may hold at once, between 0 and 1 (default
	// 0.25); never less than one.
	FlowShare float64
	// IPShare is the share of each capacity one address may hold at once,
	// all its sessions together (default 0.75); never less than FlowShare.
	IPShare float64
	// FlowQueue bounds the requests one flow may have waiting (default 4).
	FlowQueue int
	// IPQueue bounds the requests one address may have waiting (default
	// IPShare of Queue).
	IPQueue int
	// FlowsPerIP bounds the flows one address may have with requests
	// held or waiting (default 500): past it, a request of a new session
	// joins the address's anonymous flow, so sessions made up by the
	// thousand do not each get a turn of their own.
	FlowsPerIP int
	// Now reads the clock, to measure waits; nil is time.Now.
	Now func() time.Time
}

// WithDefaults returns the config with zero fields replaced by defaults.
func (c Config) WithDefaults() Config {
	if c.Slots == 0 {
		c.Slots = DefaultSlotsPerCPU * runtime.GOMAXPROCS(0)
	}
	if c.Live == 0 {
		c.Live = DefaultLive
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
	if c.FlowsPerIP == 0 {
		c.FlowsPerIP = DefaultFlowsPerIP
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
	case c.Live < 1 || c.Live > 10000:
		return fmt.Errorf("max-live-runs: must be between 1 and 10000, not %d", c.Live)
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
	case c.FlowsPerIP < 1 || c.FlowsPerIP > 1000000:
		return fmt.Errorf("sessions-per-address: must be between 1 and 1000000, not %d", c.FlowsPerIP)
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
	cfg Config

	mu       sync.Mutex
	lines    [kinds]*line
	waiting  int            // requests waiting, every line together
	flowWait map[string]int // requests waiting, by flow
	ipWait   map[string]int // requests waiting, by address
	// ipFlows counts each address's requests held or waiting, by flow,
	// every line together: the flows it has now.
	ipFlows map[string]map[string]int
	seq     uint64
	closed  bool
	done    chan struct{} // closed by Close
	stats   Stats
	holdAvg [kinds]float64 // seconds a ticket is held, moving average
}

// line is one kind's capacity and the requests waiting for it.
type line struct {
	kind     Kind
	capacity int
	flowCap  int
	ipCap    int
	held     int
	queue    []*waiter // in service order: (tag, seq)
	flows    map[string]*flow
	ips      map[string]int // held, by address
	vtime    int64          // the largest tag served so far
	yielding int            // tickets that promised their place to a waiter (Yield)
}

type flow struct {
	held   int
	wait   int   // waiting in this line
	finish int64 // the tag after this flow's last request
}

type waiter struct {
	line *line
	who  Who
	flow string
	// f is the flow's bookkeeping in its line, which stays while the
	// waiter waits (a flow that waits for something is never forgotten):
	// dispatching a long line looks each waiter's flow up without hashing
	// its key again.
	f      *flow
	tag    int64
	seq    uint64
	pos    int
	queued time.Time
	// moved says pos changed (capacity 1); nil for a caller that is not
	// told its place (an HTTP request), so that a line of hundreds does
	// not wake every waiter's goroutine each time it moves.
	moved   chan struct{}
	ready   chan struct{} // closed when granted
	granted *Ticket
}

// New returns a controller sized by cfg (see Config for the defaults).
func New(cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	c := &Controller{cfg: cfg, flowWait: map[string]int{}, ipWait: map[string]int{}, ipFlows: map[string]map[string]int{}, done: make(chan struct{})}
	for k, capacity := range [kinds]int{Slot: cfg.Slots, Live: cfg.Live} {
		flowCap := max(1, int(math.Round(float64(capacity)*cfg.FlowShare)))
		ipCap := max(flowCap, int(math.Round(float64(capacity)*cfg.IPShare)))
		c.lines[k] = &line{kind: Kind(k), capacity: capacity, flowCap: min(flowCap, capacity), ipCap: min(ipCap, capacity),
			flows: map[string]*flow{}, ips: map[string]int{}}
	}
	return c, nil
}

// Config returns the controller's settings, defaults filled in.
func (c *Controller) Config() Config { return c.cfg }

// Capacity is how many runs of a kind may run at once.
func (c *Controller) Capacity(k Kind) int { return c.lines[k].capacity }

// Caps returns how many runs of a kind one flow and one address may hold
// at once.
func (c *Controller) Caps(k Kind) (flow, address int) { return c.lines[k].flowCap, c.lines[k].ipCap }

// Acquire waits until a run of kind k may start on who's behalf, and
// returns its ticket; Release it when the run ends. While the request
// waits, moved (if not nil) is called with its place in its kind's line
// (1 is next), first as soon as it is queued and then each time it
// changes, on the caller's goroutine.
//
// It returns at once with ErrQueueFull, ErrFlowQueueFull or ErrIPQueueFull
// when the request may not even wait, ErrClosed when the controller is
// closed (also during the wait), or ctx's error when ctx ends first.
func (c *Controller) Acquire(ctx context.Context, who Who, k Kind, moved func(position int)) (*Ticket, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := c.cfg.Now()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	w := c.enqueueLocked(c.lines[k], who, now, moved != nil)
	c.dispatchLocked(w.line)
	if t := w.granted; t != nil {
		c.mu.Unlock()
		return t, nil
	}
	if err := c.refusalLocked(w); err != nil {
		c.removeLocked(w)
		c.stats.Refused++
		c.dispatchLocked(w.line)
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
		c.dispatchLocked(w.line)
	}
	c.mu.Unlock()
	if t != nil {
		t.Release()
	}
	return err
}

func (c *Controller) enqueueLocked(l *line, who Who, now time.Time, told bool) *waiter {
	key := who.flowKey()
	flows := c.ipFlows[who.IP]
	if flows == nil {
		flows = map[string]int{}
		c.ipFlows[who.IP] = flows
	}
	if flows[key] == 0 && who.Session != "" && len(flows) >= c.cfg.FlowsPerIP {
		// One session too many at this address: it queues as the
		// address's anonymous flow.
		who.Session = ""
		key = who.flowKey()
	}
	flows[key]++
	f := l.flows[key]
	if f == nil {
		f = &flow{}
		l.flows[key] = f
	}
	// Start-time fair order: a request starts after its flow's previous
	// one in this line, and no earlier than the line's current virtual
	// time. Every request counts one: flows take turns.
	tag := max(l.vtime, f.finish)
	f.finish = tag + 1
	f.wait++
	c.waiting++
	c.flowWait[key]++
	c.ipWait[who.IP]++
	c.seq++
	w := &waiter{line: l, who: who, flow: key, f: f, tag: tag, seq: c.seq, queued: now,
		ready: make(chan struct{})}
	if told {
		w.moved = make(chan struct{}, 1)
	}
	i, _ := slices.BinarySearchFunc(l.queue, w, func(a, b *waiter) int {
		if a.tag != b.tag {
			return cmpInt(a.tag, b.tag)
		}
		return cmpInt(a.seq, b.seq)
	})
	l.queue = slices.Insert(l.queue, i, w)
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

// dropFlowLocked counts one request of a flow out of its address's flows.
func (c *Controller) dropFlowLocked(ip, key string) {
	flows := c.ipFlows[ip]
	if flows[key]--; flows[key] <= 0 {
		delete(flows, key)
		if len(flows) == 0 {
			delete(c.ipFlows, ip)
		}
	}
}

// refusalLocked says whether a request that cannot start now may wait.
func (c *Controller) refusalLocked(w *waiter) error {
	switch {
	case c.flowWait[w.flow] > c.cfg.FlowQueue:
		return ErrFlowQueueFull
	case c.ipWait[w.who.IP] > c.cfg.IPQueue:
		return ErrIPQueueFull
	case c.waiting > c.cfg.Queue:
		return ErrQueueFull
	}
	return nil
}

// unwaitLocked counts a request out of the waiting.
func (c *Controller) unwaitLocked(w *waiter) {
	c.waiting--
	w.f.wait--
	if c.flowWait[w.flow]--; c.flowWait[w.flow] == 0 {
		delete(c.flowWait, w.flow)
	}
	if c.ipWait[w.who.IP]--; c.ipWait[w.who.IP] == 0 {
		delete(c.ipWait, w.who.IP)
	}
}

func (c *Controller) removeLocked(w *waiter) {
	l := w.line
	i := slices.Index(l.queue, w)
	if i < 0 {
		return
	}
	l.queue = slices.Delete(l.queue, i, i+1)
	c.unwaitLocked(w)
	c.dropFlowLocked(w.who.IP, w.flow)
	// A request that never ran gives its turn back.
	if f := l.flows[w.flow]; f.finish == w.tag+1 {
		f.finish = w.tag
	}
	l.forget(w.flow)
}

// dispatchLocked starts every waiter of the line that fits, in order. One
// blocked by its own flow's or address's share is passed over, and so are
// the later requests of that flow and address (others may go); one
// blocked by the capacity stops the line. Either way no request is
// starved by the ones behind it.
func (c *Controller) dispatchLocked(l *line) {
	changed := false
	// Flows and addresses held back by their share in this pass: their
	// later requests may not overtake their first.
	var heldFlows map[*flow]bool
	var heldIPs map[string]bool
	for i := 0; i < len(l.queue); {
		w := l.queue[i]
		f := w.f
		if heldFlows[f] || heldIPs[w.who.IP] {
			i++
			continue
		}
		if f.held+1 > l.flowCap || l.ips[w.who.IP]+1 > l.ipCap {
			if heldFlows == nil {
				heldFlows, heldIPs = map[*flow]bool{}, map[string]bool{}
			}
			heldFlows[f], heldIPs[w.who.IP] = true, true
			i++
			continue
		}
		if l.held+1 > l.capacity {
			break
		}
		l.queue = slices.Delete(l.queue, i, i+1)
		changed = true
		c.unwaitLocked(w)
		f.held++
		l.ips[w.who.IP]++
		l.held++
		l.vtime = max(l.vtime, w.tag)
		c.stats.Granted++
		w.pos = 0
		now := c.cfg.Now()
		w.granted = &Ticket{c: c, line: l, who: w.who, flow: w.flow, start: now, waited: now.Sub(w.queued)}
		close(w.ready)
	}
	if changed || len(l.queue) > 0 {
		for i, w := range l.queue {
			if w.pos != i+1 {
				w.pos = i + 1
				if w.moved != nil {
					select {
					case w.moved <- struct{}{}:
					default:
					}
				}
			}
		}
	}
}

// forget drops the bookkeeping of a flow and an address that hold and wait
// for nothing in the line. A flow ahead of the line's virtual time is kept
// until the line catches up, so that a learner whose answer runs the
// engine many times, one run after another, keeps its place behind the
// others between two runs.
func (l *line) forget(key string) {
	if l.held == 0 && len(l.queue) == 0 {
		// Nobody to be fair to: start afresh.
		clear(l.flows)
		clear(l.ips)
		return
	}
	if f := l.flows[key]; f != nil && f.held == 0 && f.wait == 0 && f.finish <= l.vtime {
		delete(l.flows, key)
	}
	// Flows kept for their place are swept once they fall behind.
	if len(l.flows) > 2*(l.held+len(l.queue))+64 {
		for k, f := range l.flows {
			if f.held == 0 && f.wait == 0 && f.finish <= l.vtime {
				delete(l.flows, k)
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
// before trying again for a run of kind k: the line ahead, served at the
// pace tickets have been released lately, between 1 s and a minute.
func (c *Controller) RetryAfter(k Kind) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lines[k]
	hold := c.holdAvg[k]
	if hold <= 0 {
		hold = 1
	}
	secs := hold * float64(len(l.queue)+1) / float64(l.capacity)
	return time.Duration(min(max(secs, 1), 60) * float64(time.Second))
}

// Stats are the controller's counts at one moment.
type Stats struct {
	Running   [kinds]int // tickets held, by kind
	Waiting   [kinds]int // requests in each line
	Granted   uint64     // requests admitted since the start
	Refused   uint64     // requests refused without waiting (a full queue)
	Abandoned uint64     // requests that left the line (their context ended, or Close)
}

// Stats returns the current counts.
func (c *Controller) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	for k, l := range c.lines {
		s.Running[k], s.Waiting[k] = l.held, len(l.queue)
	}
	return s
}

// Ticket is a run's permission to use one of its kind's capacity.
type Ticket struct {
	c        *Controller
	line     *line
	who      Who
	flow     string
	start    time.Time
	waited   time.Duration
	released bool // guarded by c.mu
	yielded  bool // guarded by c.mu: Yield said true
}

// Yield reports whether a request waiting in the ticket's line would start
// in the ticket's place if it were given back, one that no other ticket
// has promised its place to already. When it says true, the caller is to
// release the ticket soon: that is how a run that has held its place long
// enough makes way for those waiting. A waiter held back by its own
// flow's or address's share does not count, so requests that could not
// start anyway (a script's, past its share) never push anyone out.
func (t *Ticket) Yield() bool {
	c, l := t.c, t.line
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.released || t.yielded {
		return false
	}
	n := 0
	for _, w := range l.queue {
		fh, ih := w.f.held, l.ips[w.who.IP]
		if w.flow == t.flow {
			fh--
		}
		if w.who.IP == t.who.IP {
			ih--
		}
		if fh < l.flowCap && ih < l.ipCap {
			n++
		}
	}
	if n <= l.yielding {
		return false
	}
	l.yielding++
	t.yielded = true
	return true
}

// Waited is how long the request waited in the line.
func (t *Ticket) Waited() time.Duration { return t.waited }

// Kind is the capacity the ticket holds.
func (t *Ticket) Kind() Kind { return t.line.kind }

// Release gives the ticket back; calling it again does nothing.
func (t *Ticket) Release() {
	c, l := t.c, t.line
	now := c.cfg.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.released {
		return
	}
	t.released = true
	if t.yielded {
		l.yielding--
	}
	l.held--
	l.flows[t.flow].held--
	if l.ips[t.who.IP]--; l.ips[t.who.IP] == 0 {
		delete(l.ips, t.who.IP)
	}
	held := now.Sub(t.start).Seconds()
	if avg := &c.holdAvg[l.kind]; *avg == 0 {
		*avg = held
	} else {
		*avg += (held - *avg) / 16
	}
	c.dropFlowLocked(t.who.IP, t.flow)
	l.forget(t.flow)
	c.dispatchLocked(l)
}
