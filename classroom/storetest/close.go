package storetest

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leaselab/playground/classroom"
)

// testClose checks Close's contract: subscribers' channels close, and no
// goroutine (a listener, a subscription's watcher, a pool's) outlives it.
func testClose(t *testing.T, h Harness) {
	addr := h.New(t) // before the snapshot: the harness may keep a connection of its own
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	s, err := h.Open(ctx, addr, classroom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nc := mustCreate(t, s, "Closing")
	ch, err := s.Subscribe(ctx, nc.Class.ID) // a context that never ends
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("a change arrived instead of the channel closing")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not close a subscriber's channel")
	}
	if _, err := s.Subscribe(ctx, nc.Class.ID); err == nil {
		t.Fatal("subscribing to a closed store succeeded")
	}
}
