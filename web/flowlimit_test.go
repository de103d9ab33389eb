package web

import (
	"testing"
	"time"
)

// TestFlowLimiterBucketsPerSessionBoundedPerAddress: each issued session
// has its own bucket and, once it is spent, the address's shared one,
// which requests without a session spend; past maxFlows sessions at an
// address, a new session has only the shared bucket, so what one address
// may do grows with its sessions only so far; a session that spent both
// leaves a classmate's own bucket whole; sessions whose buckets refilled
// are forgotten, and another address is counted apart.
func TestFlowLimiterBucketsPerSessionBoundedPerAddress(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	l := newFlowLimiter("checks", Rate{PerMinute: 60, Burst: 3}, Rate{PerMinute: 6, Burst: 2}, 2, func() time.Time { return now })
	take := func(addr, session string) (bool, bool) {
		ok, _, own := l.take(addr, session)
		return ok, own
	}
	// l:1 spends its own two, then the address's three.
	for i := range 5 {
		if ok, own := take("a", "l:1"); !ok || !own {
			t.Fatalf("l:1's take %d: ok %v own %v", i+1, ok, own)
		}
	}
	ok, retry, own := l.take("a", "l:1")
	if ok || !own || retry != time.Second {
		t.Fatalf("l:1 past both buckets: ok %v own %v retry %v, want refused, 1s (the shared bucket's next token)", ok, own, retry)
	}
	if ok, _ := take("a", ""); ok {
		t.Fatal("a request without a session after l:1 spent the shared bucket was let through")
	}
	// A classmate still has its own bucket.
	for i := range 2 {
		if ok, own := take("a", "l:2"); !ok || !own {
			t.Fatalf("l:2's take %d beside l:1: ok %v own %v, want its own bucket", i+1, ok, own)
		}
	}
	// A third session at the address has no bucket of its own.
	if ok, own := take("a", "l:3"); ok || own {
		t.Fatalf("a third session past maxFlows: ok %v own %v, want the spent shared bucket only", ok, own)
	}
	if ok, own := take("b", "l:3"); !ok || !own {
		t.Fatalf("the same session id at another address: ok %v own %v, want its own bucket there", ok, own)
	}
	// After a minute the buckets have refilled and are forgotten: l:3
	// gets a bucket of its own at a.
	now = now.Add(2 * time.Minute)
	if ok, own := take("a", "l:3"); !ok || !own {
		t.Fatalf("after the sweep: ok %v own %v, want l:3's own bucket", ok, own)
	}
	if n := len(l.addrs["a"]); n != 1 {
		t.Errorf("address a keeps %d session buckets after the sweep, want 1", n)
	}
}
