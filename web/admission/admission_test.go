package admission

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func mustNew(t *testing.T, cfg Config) *Controller {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// grab acquires a ticket that must be granted at once.
func grab(t *testing.T, c *Controller, who Who, k Kind) *Ticket {
	t.Helper()
	tk, err := c.Acquire(context.Background(), who, k, func(int) {
		t.Fatalf("%v for a %v was queued, want it granted at once", who, k)
	})
	if err != nil {
		t.Fatalf("%v for a %v: %v", who, k, err)
	}
	return tk
}

// pending is a request waiting in the line, run on its own goroutine.
type pending struct {
	name      string
	ticket    chan *Ticket
	err       chan error
	positions chan int
	cancel    context.CancelFunc
	w         *waiter // its place in the line, if it was queued
}

// enqueue starts a request and returns once the controller has queued it
// (or answered it).
func enqueue(t *testing.T, c *Controller, name string, who Who, k Kind) *pending {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &pending{name: name, ticket: make(chan *Ticket, 1), err: make(chan error, 1), positions: make(chan int, 100), cancel: cancel}
	t.Cleanup(cancel)
	c.mu.Lock()
	before := map[*waiter]bool{}
	for _, w := range c.lines[k].queue {
		before[w] = true
	}
	c.mu.Unlock()
	queued := make(chan struct{})
	var once sync.Once
	go func() {
		tk, err := c.Acquire(ctx, who, k, func(pos int) {
			p.positions <- pos
			once.Do(func() { close(queued) })
		})
		if err != nil {
			p.err <- err
		} else {
			p.ticket <- tk
		}
		once.Do(func() { close(queued) })
	}()
	select {
	case <-queued:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: neither queued nor answered", name)
	}
	c.mu.Lock()
	for _, w := range c.lines[k].queue {
		if !before[w] {
			p.w = w
		}
	}
	c.mu.Unlock()
	return p
}

// granted waits for the request's ticket.
func (p *pending) granted(t *testing.T) *Ticket {
	t.Helper()
	select {
	case tk := <-p.ticket:
		return tk
	case err := <-p.err:
		t.Fatalf("%s: %v, want a ticket", p.name, err)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: not granted", p.name)
	}
	return nil
}

// waiting asserts the request has not been granted (it is still in line):
// the controller decides synchronously, so a grant would be visible.
func (p *pending) waiting(t *testing.T, c *Controller) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.w == nil || p.w.granted != nil {
		t.Fatalf("%s was granted or refused, want it waiting", p.name)
	}
}

// lastPosition is the latest place the request was told.
func (p *pending) lastPosition() int {
	last := 0
	for {
		select {
		case pos := <-p.positions:
			last = pos
		default:
			return last
		}
	}
}

// serveInOrder releases tickets one at a time and returns the names of the
// requests in the order they were granted.
func serveInOrder(t *testing.T, first *Ticket, ps ...*pending) []string {
	t.Helper()
	var got []string
	held := first
	left := map[*pending]bool{}
	for _, p := range ps {
		left[p] = true
	}
	for len(left) > 0 {
		held.Release()
		var next *pending
		deadline := time.After(10 * time.Second)
	wait:
		for {
			for p := range left {
				select {
				case tk := <-p.ticket:
					held, next = tk, p
					break wait
				case err := <-p.err:
					t.Fatalf("%s: %v", p.name, err)
				default:
				}
			}
			select {
			case <-deadline:
				t.Fatalf("nothing granted after a release; granted so far %v", got)
			case <-time.After(time.Millisecond):
			}
		}
		delete(left, next)
		got = append(got, next.name)
	}
	held.Release()
	return got
}

func TestGrantsUpToTheCapacityThenQueuesInOrder(t *testing.T) {
	c := mustNew(t, Config{Slots: 2})
	a := grab(t, c, Who{Session: "a", IP: "1"}, Slot)
	b := grab(t, c, Who{Session: "b", IP: "2"}, Slot)
	p1 := enqueue(t, c, "c", Who{Session: "c", IP: "3"}, Slot)
	p2 := enqueue(t, c, "d", Who{Session: "d", IP: "4"}, Slot)
	p1.waiting(t, c)
	p2.waiting(t, c)
	if got, want := p1.lastPosition(), 1; got != want {
		t.Errorf("c told place %d, want %d", got, want)
	}
	if got, want := p2.lastPosition(), 2; got != want {
		t.Errorf("d told place %d, want %d", got, want)
	}
	if s := c.Stats(); s.Running[Slot] != 2 || s.Waiting[Slot] != 2 || s.Running[Live] != 0 {
		t.Errorf("stats %+v, want 2 running, 2 waiting", s)
	}
	a.Release()
	tc := p1.granted(t)
	// d moved up to first place.
	deadline := time.Now().Add(10 * time.Second)
	for pos := p2.lastPosition(); pos != 1; pos = p2.lastPosition() {
		if pos != 0 || time.Now().After(deadline) {
			t.Fatalf("d told place %d after c started, want 1", pos)
		}
		time.Sleep(time.Millisecond)
	}
	b.Release()
	td := p2.granted(t)
	tc.Release()
	td.Release()
	td.Release() // twice does nothing
	if s := c.Stats(); s.Running[Slot] != 0 || s.Waiting[Slot] != 0 || s.Granted != 4 {
		t.Errorf("stats after all released %+v", s)
	}
	assertEmpty(t, c)
}

// assertEmpty checks that an idle controller keeps no bookkeeping, so it
// does not grow with the number of clients it has seen.
func assertEmpty(t *testing.T, c *Controller) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting != 0 || len(c.flowWait) != 0 || len(c.ipWait) != 0 {
		t.Errorf("idle controller: %d waiting, %d flows and %d addresses counted", c.waiting, len(c.flowWait), len(c.ipWait))
	}
	for _, l := range c.lines {
		if l.held != 0 || len(l.queue) != 0 || len(l.ips) != 0 || len(l.flows) != 0 {
			t.Errorf("idle %v line: held %d, queue %d, addresses %d, flows %d", l.kind, l.held, len(l.queue), len(l.ips), len(l.flows))
		}
	}
}

func TestFlowsTakeTurns(t *testing.T) {
	// One learner queues three runs, then two others queue one each: the
	// others do not wait behind all three.
	c := mustNew(t, Config{Slots: 1})
	x := grab(t, c, Who{Session: "x", IP: "9"}, Slot)
	a := Who{Session: "a", IP: "1"}
	ps := []*pending{
		enqueue(t, c, "a1", a, Slot),
		enqueue(t, c, "a2", a, Slot),
		enqueue(t, c, "a3", a, Slot),
		enqueue(t, c, "b1", Who{Session: "b", IP: "2"}, Slot),
		enqueue(t, c, "c1", Who{Session: "c", IP: "3"}, Slot),
	}
	if got, want := ps[4].lastPosition(), 3; got != want {
		t.Errorf("c1 told place %d, want %d (after a1 and b1)", got, want)
	}
	got := serveInOrder(t, x, ps...)
	if want := []string{"a1", "b1", "c1", "a2", "a3"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("served %v, want %v", got, want)
	}
}

func TestAHeavyAnswerInterleavesWithOthers(t *testing.T) {
	// A check that runs the engine many times asks for one run at a time.
	// Between two of its runs, learners who queued meanwhile go first.
	c := mustNew(t, Config{Slots: 1})
	heavy := Who{Session: "heavy", IP: "1"}
	t1 := grab(t, c, heavy, Slot)
	b := enqueue(t, c, "b", Who{Session: "b", IP: "2"}, Slot)
	cc := enqueue(t, c, "c", Who{Session: "c", IP: "3"}, Slot)
	t1.Release()
	// The heavy check asks for its second run right away.
	h2 := enqueue(t, c, "heavy-2", heavy, Slot)
	tb := b.granted(t)
	if pos := h2.lastPosition(); pos != 2 {
		t.Errorf("heavy-2 told place %d, want 2 (behind c)", pos)
	}
	got := serveInOrder(t, tb, cc, h2)
	if want := []string{"c", "heavy-2"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("served %v, want %v", got, want)
	}
}

func TestOneClientWithoutASessionCannotHoldEverySlot(t *testing.T) {
	c := mustNew(t, Config{Slots: 4}) // flow share 1 slot, address 3
	script := Who{IP: "6.6.6.6"}
	first := grab(t, c, script, Slot)
	second := enqueue(t, c, "script-2", script, Slot)
	second.waiting(t, c)
	// Capacity is free, and another client gets it at once.
	other := grab(t, c, Who{IP: "1.2.3.4"}, Slot)
	other.Release()
	// Its own requests beyond the queue bound are refused outright.
	var refused error
	for i := range DefaultFlowQueue {
		p := enqueue(t, c, fmt.Sprint("script-more-", i), script, Slot)
		select {
		case refused = <-p.err:
		default:
		}
	}
	if !errors.Is(refused, ErrFlowQueueFull) {
		t.Errorf("script's extra requests: %v, want ErrFlowQueueFull", refused)
	}
	first.Release()
	second.granted(t).Release()
}

func TestAClassBehindOneAddressGetsMostButNotAll(t *testing.T) {
	c := mustNew(t, Config{Slots: 4})
	nat := "10.0.0.1"
	var held []*Ticket
	for i := range 3 {
		held = append(held, grab(t, c, Who{Session: fmt.Sprint("student-", i), IP: nat}, Slot))
	}
	// A fourth student of the class waits though a slot is free...
	fourth := enqueue(t, c, "student-3", Who{Session: "student-3", IP: nat}, Slot)
	fourth.waiting(t, c)
	// ...which someone elsewhere gets at once.
	home := grab(t, c, Who{Session: "home", IP: "192.0.2.7"}, Slot)
	// Many students of the class can wait: the address's queue is most of
	// the queue, not one flow's.
	var more []*pending
	for i := 4; i < 40; i++ {
		p := enqueue(t, c, fmt.Sprint("student-", i), Who{Session: fmt.Sprint("student-", i), IP: nat}, Slot)
		p.waiting(t, c)
		more = append(more, p)
	}
	home.Release()
	fourth.waiting(t, c) // still at the address's share
	held[0].Release()
	tk := fourth.granted(t)
	tk.Release()
	for _, h := range held[1:] {
		h.Release()
	}
	for _, p := range more {
		p.granted(t).Release()
	}
	assertEmpty(t, c)
}

func TestRefusalsWhenTheLineIsFull(t *testing.T) {
	c := mustNew(t, Config{Slots: 1, Queue: 3, FlowShare: 1, IPShare: 1, FlowQueue: 2, IPQueue: 2})
	x := grab(t, c, Who{Session: "x", IP: "1"}, Slot)
	enqueue(t, c, "a1", Who{Session: "a", IP: "1"}, Slot)
	enqueue(t, c, "a2", Who{Session: "a", IP: "2"}, Slot)
	if err := <-enqueue(t, c, "a3", Who{Session: "a", IP: "3"}, Slot).err; !errors.Is(err, ErrFlowQueueFull) {
		t.Errorf("a third request of one session: %v, want ErrFlowQueueFull", err)
	}
	enqueue(t, c, "b1", Who{Session: "b", IP: "1"}, Slot)
	if err := <-enqueue(t, c, "c1", Who{Session: "c", IP: "1"}, Slot).err; !errors.Is(err, ErrIPQueueFull) {
		t.Errorf("a third request from one address: %v, want ErrIPQueueFull", err)
	}
	if err := <-enqueue(t, c, "d1", Who{Session: "d", IP: "4"}, Slot).err; !errors.Is(err, ErrQueueFull) {
		t.Errorf("a fourth request in a line of 3: %v, want ErrQueueFull", err)
	}
	if s := c.Stats(); s.Refused != 3 || s.Waiting[Slot] != 3 {
		t.Errorf("stats %+v, want 3 refused and 3 waiting", s)
	}
	x.Release()
}

func TestARequestThatFitsIsNeverRefused(t *testing.T) {
	// The line is full of requests held back by their address's share;
	// a request from elsewhere that fits the capacity starts at once.
	c := mustNew(t, Config{Slots: 2, Queue: 2, FlowShare: 0.5, IPShare: 0.5, FlowQueue: 1})
	nat := grab(t, c, Who{Session: "s0", IP: "nat"}, Slot)
	enqueue(t, c, "s1", Who{Session: "s1", IP: "nat"}, Slot)
	enqueue(t, c, "s2", Who{Session: "s2", IP: "nat"}, Slot)
	grab(t, c, Who{Session: "home", IP: "home"}, Slot).Release()
	nat.Release()
}

func TestLeavingTheLineMovesOthersUp(t *testing.T) {
	c := mustNew(t, Config{Slots: 1})
	x := grab(t, c, Who{Session: "x"}, Slot)
	a := enqueue(t, c, "a", Who{Session: "a"}, Slot)
	b := enqueue(t, c, "b", Who{Session: "b"}, Slot)
	if pos := b.lastPosition(); pos != 2 {
		t.Fatalf("b at %d, want 2", pos)
	}
	a.cancel()
	if err := <-a.err; !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for b.lastPosition() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("b not told it moved to place 1")
		}
		time.Sleep(time.Millisecond)
	}
	if s := c.Stats(); s.Abandoned != 1 || s.Waiting[Slot] != 1 {
		t.Errorf("stats %+v, want 1 abandoned and 1 waiting", s)
	}
	x.Release()
	b.granted(t).Release()
	assertEmpty(t, c)
}

func TestCloseEndsWaitsAndRefusesNewRequests(t *testing.T) {
	c := mustNew(t, Config{Slots: 1})
	x := grab(t, c, Who{Session: "x"}, Slot)
	a := enqueue(t, c, "a", Who{Session: "a"}, Slot)
	c.Close()
	if err := <-a.err; !errors.Is(err, ErrClosed) {
		t.Errorf("waiting request after Close: %v, want ErrClosed", err)
	}
	if _, err := c.Acquire(t.Context(), Who{Session: "b"}, 1, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("new request after Close: %v, want ErrClosed", err)
	}
	x.Release() // a ticket held at Close is still given back
	c.Close()   // twice is fine
	assertEmpty(t, c)
}

func TestWaitIsMeasuredOnTheInjectedClock(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c := mustNew(t, Config{Slots: 1, Now: clock})
	x := grab(t, c, Who{Session: "x"}, Slot)
	if x.Waited() != 0 {
		t.Errorf("granted at once, waited %v", x.Waited())
	}
	a := enqueue(t, c, "a", Who{Session: "a"}, Slot)
	mu.Lock()
	now = now.Add(1500 * time.Millisecond)
	mu.Unlock()
	x.Release()
	if w := a.granted(t).Waited(); w != 1500*time.Millisecond {
		t.Errorf("waited %v, want 1.5s", w)
	}
	if ra := c.RetryAfter(Slot); ra < time.Second || ra > time.Minute {
		t.Errorf("RetryAfter %v, want between 1s and 1m", ra)
	}
}

func TestLiveRunsAndSlotsNeverWaitForEachOther(t *testing.T) {
	// One slot, two live runs. A live run waits only for live runs, a
	// run for a slot only for slots, and each is told its place in its
	// own line.
	c := mustNew(t, Config{Slots: 1, Live: 2, FlowShare: 1, IPShare: 1})
	l1 := grab(t, c, Who{Session: "a"}, Live)
	l2 := grab(t, c, Who{Session: "b"}, Live)
	s1 := grab(t, c, Who{Session: "c"}, Slot) // the live line is full; slots are not
	live3 := enqueue(t, c, "live-3", Who{Session: "d"}, Live)
	slot2 := enqueue(t, c, "slot-2", Who{Session: "e"}, Slot)
	if live3.lastPosition() != 1 || slot2.lastPosition() != 1 {
		t.Errorf("places %d and %d, want 1 in each line", live3.lastPosition(), slot2.lastPosition())
	}
	s1.Release()
	slot2.granted(t).Release()
	live3.waiting(t, c)
	l1.Release()
	live3.granted(t).Release()
	l2.Release()
	if s := c.Stats(); s.Running != [2]int{} || s.Waiting != [2]int{} {
		t.Errorf("stats after all released %+v", s)
	}
	assertEmpty(t, c)
}

func TestAnAddressAtItsShareKeepsItsOwnOrder(t *testing.T) {
	// The school's address holds its share of live runs; a student's next
	// run waits, and a classmate who asks later does not overtake it when
	// one ends.
	c := mustNew(t, Config{Slots: 1, Live: 8}) // an address may hold 6
	nat := "10.0.0.1"
	var held []*Ticket
	for i := range 6 {
		held = append(held, grab(t, c, Who{Session: fmt.Sprint("w", i), IP: nat}, Live))
	}
	first := enqueue(t, c, "first", Who{Session: "first", IP: nat}, Live)
	later := enqueue(t, c, "later", Who{Session: "later", IP: nat}, Live)
	// Someone elsewhere is not held up by the school's line.
	grab(t, c, Who{Session: "home", IP: "192.0.2.1"}, Live).Release()
	held[0].Release()
	f := first.granted(t)
	later.waiting(t, c)
	held[1].Release()
	later.granted(t).Release()
	f.Release()
	for _, h := range held[2:] {
		h.Release()
	}
	assertEmpty(t, c)
}

func TestConfigDefaultsAndValidation(t *testing.T) {
	c := mustNew(t, Config{Slots: 4})
	if c.Capacity(Slot) != 4 || c.Capacity(Live) != DefaultLive {
		t.Errorf("capacities %d slots, %d live", c.Capacity(Slot), c.Capacity(Live))
	}
	if f, a := c.Caps(Slot); f != 1 || a != 3 {
		t.Errorf("slot caps %d/%d, want one per session, three per address", f, a)
	}
	if f, a := c.Caps(Live); f != 50 || a != 150 {
		t.Errorf("live caps %d/%d, want 50 per session, 150 per address", f, a)
	}
	if q := c.Config().Queue; q != 4*DefaultQueuePerSlot {
		t.Errorf("queue %d", q)
	}
	// One slot: a session may still run, whatever the share.
	one := mustNew(t, Config{Slots: 1, Live: 1})
	if f, a := one.Caps(Slot); f != 1 || a != 1 {
		t.Errorf("one slot: caps %d/%d", f, a)
	}
	for _, bad := range []Config{
		{Slots: -1}, {Live: -2}, {Slots: 1, FlowShare: 1.5}, {Slots: 4, FlowShare: 0.5, IPShare: 0.25},
		{Slots: 1, Queue: 2, FlowQueue: 3}, {Slots: 1, Queue: 4, FlowQueue: 2, IPQueue: 1},
	} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) accepted", bad)
		}
	}
}

func TestManyClientsAtOnceNeverExceedTheCapacity(t *testing.T) {
	c := mustNew(t, Config{Slots: 3, Live: 10, FlowShare: 0.5, IPShare: 0.8, FlowQueue: 8})
	var wg sync.WaitGroup
	var mu sync.Mutex
	type key struct {
		k    Kind
		name string
	}
	held := map[key]int{}
	violations := 0
	for g := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 50 {
				who := Who{Session: fmt.Sprint("s", r.IntN(12)), IP: fmt.Sprint("ip", r.IntN(3))}
				if r.IntN(4) == 0 {
					who.Session = ""
				}
				k := Kind(r.IntN(2))
				ctx, cancel := context.WithCancel(context.Background())
				if r.IntN(10) == 0 {
					cancel()
				}
				tk, err := c.Acquire(ctx, who, k, nil)
				cancel()
				if err != nil {
					continue
				}
				flowCap, ipCap := c.Caps(k)
				mu.Lock()
				held[key{k, ""}]++
				held[key{k, "f" + who.flowKey()}]++
				held[key{k, "a" + who.IP}]++
				if held[key{k, ""}] > c.Capacity(k) || held[key{k, "f" + who.flowKey()}] > flowCap || held[key{k, "a" + who.IP}] > ipCap {
					violations++
				}
				mu.Unlock()
				runtime.Gosched() // hold it while others run
				mu.Lock()
				held[key{k, ""}]--
				held[key{k, "f" + who.flowKey()}]--
				held[key{k, "a" + who.IP}]--
				mu.Unlock()
				tk.Release()
			}
		}()
	}
	wg.Wait()
	if violations > 0 {
		t.Errorf("%d grants went over a capacity or a share", violations)
	}
	assertEmpty(t, c)
}
