package web_test

import (
	"sync"
	"time"
)

// testClock is a clock that moves only when a test says so, for the
// server's rate limits (Config.Class.Clock): what a limiter decides then
// depends on the test, not on how busy the machine is.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
