package web_test

import (
	"sync"
	"time"
)

// testClock is a clock that moves only when a test says so, for the
// server's rate limits (Config.Class.Clock): what a limiter decides then
// depends on the test, not on how busy the machine is.
type testClock struct {
	mu      sync.Mutex
	t       time.Time
	waiters []clockWaiter
}

// clockWaiter is a timer of the test clock (After): it fires once the
// clock reaches at.
type clockWaiter struct {
	at time.Time
	c  chan time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d, firing the timers it passes.
func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.t) {
			kept = append(kept, w)
			continue
		}
		w.c <- c.t
	}
	c.waiters = kept
}

// After is the server's timer on this clock (Config.Class.After): it
// fires when Advance moves the clock d on, however long that takes.
func (c *testClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.t
		return ch
	}
	c.waiters = append(c.waiters, clockWaiter{at: c.t.Add(d), c: ch})
	return ch
}

// waiting is how many of the clock's timers have not fired yet.
func (c *testClock) waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}
