package admission

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// BenchmarkDrainALineOfRequests: 300 requests of 300 sessions at one
// address wait for one slot, as the checks of a lecture hall behind one
// NAT do, and each takes the slot and gives it back as its turn comes. An
// HTTP request is not told its place, so its goroutine should sleep until
// its turn rather than wake each time the line moves: the line's every
// move would otherwise wake all of it, 300 times over.
//
// Rerun: go test ./web/admission -run '^$' -bench DrainALine -benchtime 20x
func BenchmarkDrainALineOfRequests(b *testing.B) {
	const n = 300
	ctx := context.Background()
	for b.Loop() {
		c, err := New(Config{Slots: 1, Queue: 2 * n, FlowQueue: 1, IPQueue: 2 * n, FlowShare: 1, IPShare: 1})
		if err != nil {
			b.Fatal(err)
		}
		hold, err := c.Acquire(ctx, Who{IP: "10.0.0.1"}, Slot, nil)
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				t, err := c.Acquire(ctx, Who{Session: "v:" + strconv.Itoa(i), IP: "10.0.0.1"}, Slot, nil)
				if err != nil {
					b.Error(err)
					return
				}
				t.Release()
			})
		}
		for c.Stats().Waiting[Slot] < n {
			runtime.Gosched()
		}
		hold.Release()
		wg.Wait()
	}
}
