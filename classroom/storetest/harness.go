// Package storetest is the test suite every classroom.Store passes: the
// sqlite and postgres packages run it from their tests, so both stores
// are held to the same behaviour.
package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// Harness makes databases for the suite.
type Harness struct {
	// New returns the address of a fresh, empty database (a folder, a URL
	// with its own schema) that is removed when the test ends.
	New func(tb testing.TB) string
	// Open opens (and migrates) the store at an address from New; opening
	// the same address twice gives two handles on the same data, like two
	// server processes or replicas.
	Open func(ctx context.Context, addr string, opts classroom.Options) (classroom.Store, error)
	// Replicas says that changes written through one handle reach the
	// subscribers of another (PostgreSQL's LISTEN/NOTIFY); a SQLite file
	// belongs to one server process, whose handle shares them in-process.
	Replicas bool
	// Exclusive says that a second Open of an address fails while a
	// handle on it is open (SQLite's data folder lock), with an error
	// that names the address and says another server holds it.
	Exclusive bool
}

// MustOpen opens the store at addr and closes it when the test ends.
func (h Harness) MustOpen(tb testing.TB, addr string, opts classroom.Options) classroom.Store {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := h.Open(ctx, addr, opts)
	if err != nil {
		tb.Fatalf("open store %s: %v", addr, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// MustNew opens a fresh, empty store.
func (h Harness) MustNew(tb testing.TB, opts classroom.Options) classroom.Store {
	tb.Helper()
	return h.MustOpen(tb, h.New(tb), opts)
}

// Clock is a settable clock for Options.Now.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at a fixed instant.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)} }

// Now returns the clock's time and moves it a second on, so every write
// has its own time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// Advance moves the clock on by d: days pass in a test.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func mustCreate(tb testing.TB, s classroom.Store, name string) *classroom.NewClass {
	tb.Helper()
	nc, err := s.CreateClass(context.Background(), name)
	if err != nil {
		tb.Fatalf("create class %q: %v", name, err)
	}
	return nc
}

func mustJoin(tb testing.TB, s classroom.Store, code, name string) *classroom.Session {
	tb.Helper()
	sess, err := s.Join(context.Background(), code, name)
	if err != nil {
		tb.Fatalf("join %s as %q: %v", code, name, err)
	}
	return sess
}

func mustRecord(tb testing.TB, s classroom.Store, token string, a classroom.Attempt) *classroom.Attempt {
	tb.Helper()
	got, err := s.Record(context.Background(), token, a)
	if err != nil {
		tb.Fatalf("record %+v: %v", a, err)
	}
	return got
}

// wantCode fails unless err carries the code.
func wantCode(tb testing.TB, err error, code string, what string) {
	tb.Helper()
	if got := classroom.ErrorCode(err); got != code {
		tb.Fatalf("%s: error code %q (%v), want %q", what, got, err, code)
	}
}
