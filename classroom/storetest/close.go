package storetest

import (
	"context"
	"strings"
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
	_, err = s.Subscribe(ctx, nc.Class.ID)
	wantCode(t, err, classroom.EUNAVAILABLE, "subscribe to a closed store")
	// A database that is gone is a store failure to retry, never an
	// internal error: every method says so.
	_, err = s.Teacher(ctx, nc.Class.Code, nc.TeacherKey)
	wantCode(t, err, classroom.EUNAVAILABLE, "read a class from a closed store")
	_, err = s.Join(ctx, nc.Class.Code, "Ana")
	wantCode(t, err, classroom.EUNAVAILABLE, "join through a closed store")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "try again") {
		t.Errorf("join through a closed store: %q", msg)
	}
}
