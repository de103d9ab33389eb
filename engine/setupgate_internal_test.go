package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestStartWaitsForASetupPlace: while every set-up place is taken, Start
// waits (and gives up with the caller's context, starting nothing); once a
// place is free it starts the run.
func TestStartWaitsForASetupPlace(t *testing.T) {
	p, err := LoadPreset("paused-holder")
	if err != nil {
		t.Fatal(err)
	}
	for range cap(setupGate) {
		if err := setupGate.enter(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	held := cap(setupGate)
	defer func() {
		for range held {
			setupGate.leave()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if r, err := Start(ctx, p.Prepared(), Options{}); !errors.Is(err, context.DeadlineExceeded) || r != nil {
		t.Fatalf("Start with every set-up place taken: %v, %v; want the context's error and no run", r, err)
	}

	started := make(chan error, 1)
	go func() {
		r, err := Start(context.Background(), p.Prepared(), Options{})
		if err == nil {
			_, err = r.Wait()
		}
		started <- err
	}()
	setupGate.leave() // one place frees up
	held--
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("the run that waited: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Start did not take the place that was freed")
	}
	if len(setupGate) != held {
		t.Errorf("%d set-up places taken after the run, want %d", len(setupGate), held)
	}
}
