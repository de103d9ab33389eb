package engine_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
	"go.uber.org/goleak"
)

// collector is a sink that records events for a test.
type collector struct {
	mu     sync.Mutex
	events []engine.Event
	notify chan struct{}
}

func newCollector() *collector { return &collector{notify: make(chan struct{}, 1024)} }

func (c *collector) sink(e engine.Event) {
	c.mu.Lock()
	c.events = append(c.events, e)
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.events)
}

// waitFor blocks until at least n events arrived.
func (c *collector) waitFor(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for c.count() < n {
		select {
		case <-c.notify:
		case <-deadline:
			t.Fatalf("waited for %d events, got %d", n, c.count())
		}
	}
}

// TestCancelledRunLeavesNothing cancels a slow, paced run halfway: Wait
// reports the cancellation and no goroutine (Raft, actors, database)
// outlives it.
func TestCancelledRunLeavesNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	col := newCollector()
	r, err := engine.Start(ctx, mustPrepare(t, mustPreset(t, "nightly-total", true)), engine.Options{Speed: 1, Sink: col.sink})
	if err != nil {
		t.Fatal(err)
	}
	col.waitFor(t, 3)
	cancel()
	res, err := r.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait after cancel: %v", err)
	}
	col.mu.Lock()
	seen := jsonOf(t, col.events)
	col.mu.Unlock()
	if res == nil || len(res.Events) < 3 || jsonOf(t, res.Events) != seen {
		t.Fatalf("a cancelled run should return the events it showed: %+v", res)
	}
	if res.Summary != (engine.Summary{}) {
		t.Errorf("a cancelled run has no summary, got %+v", res.Summary)
	}
}

// TestRunPastItsDeadlineSummarizesWhatItShowed: a run whose context's
// deadline passes (the web's limit on a live run's wall time) ends with
// the deadline's error, the events it showed and a summary of the run up
// to the last of them. The deadline passes when the test says (after the
// first events), not after a wall time a busy machine might overrun.
func TestRunPastItsDeadlineSummarizesWhatItShowed(t *testing.T) {
	ctx := newExpiring()
	col := newCollector()
	// 55 simulated seconds at 1x: far from its end at the deadline.
	r, err := engine.Start(ctx, mustPrepare(t, mustPreset(t, "nightly-total", true)), engine.Options{Speed: 1, Sink: col.sink})
	if err != nil {
		t.Fatal(err)
	}
	col.waitFor(t, 1)
	ctx.expire()
	res, err := r.Wait()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait: %v", err)
	}
	col.mu.Lock()
	seen := jsonOf(t, col.events)
	col.mu.Unlock()
	if jsonOf(t, res.Events) != seen {
		t.Fatalf("the run returned other events than it showed")
	}
	end := int64(0)
	if n := len(res.Events); n > 0 {
		end = res.Events[n-1].T
	}
	// It ends at the last step shown: its last event's, or a quiet step's
	// after it; long before the whole run's 55 s.
	if res.Summary.EndMS < end || res.Summary.EndMS >= 55000 {
		t.Errorf("the summary should be of the run up to its last shown step (from %d ms): %+v", end, res.Summary)
	}
}

// TestStopEndsRun stops a paced run through its control.
func TestStopEndsRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r, err := engine.Start(context.Background(), mustPrepare(t, mustPreset(t, "long-job", true)), engine.Options{Speed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.Stop()
	if _, err := r.Wait(); !errors.Is(err, engine.ErrStopped) {
		t.Fatalf("Wait after Stop: %v", err)
	}
}

// TestStepPauseResume drives a paused run one event at a time, then lets
// it finish, and gets the same timeline as an uninterrupted run.
func TestStepPauseResume(t *testing.T) {
	sc := mustPreset(t, "delayed-write", true)
	want := mustRun(t, sc)
	col := newCollector()
	r, err := engine.Start(context.Background(), mustPrepare(t, sc), engine.Options{Speed: 1000, Paused: true, Sink: col.sink})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if n := col.count(); n != 0 {
		t.Fatalf("a run started paused emitted %d events", n)
	}
	// One step runs the simulation until something happens: one actor's
	// turn, which may say several things at the same instant.
	// The step's events are handed on one by one: the count settles
	// first, then must stay put, and what came is one instant's.
	for i := 1; i <= 3; i++ {
		before := col.count()
		r.Step()
		col.waitFor(t, before+1)
		n := col.count()
		for {
			time.Sleep(20 * time.Millisecond)
			if m := col.count(); m == n {
				break
			} else {
				n = m
			}
		}
		time.Sleep(50 * time.Millisecond)
		if col.count() != n {
			t.Fatalf("step %d did not stop: %d events, then %d", i, n, col.count())
		}
		col.mu.Lock()
		for _, e := range col.events[before:n] {
			if e.T != col.events[before].T {
				t.Errorf("step %d showed more than one instant: %+v", i, col.events[before:n])
				break
			}
		}
		col.mu.Unlock()
	}
	r.Resume()
	r.Pause()
	r.Resume()
	got, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, got) != jsonOf(t, want) {
		t.Fatalf("stepped run differs from a straight one")
	}
}

// TestInjectPause freezes a client at the current time of a paused run.
func TestInjectPause(t *testing.T) {
	sc := mustPreset(t, "paused-holder", false)
	sc.Faults = nil
	col := newCollector()
	r, err := engine.Start(context.Background(), mustPrepare(t, sc), engine.Options{Paused: true, Sink: col.sink})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Inject(engine.Fault{Do: "pause", Target: "nobody", For: engine.Sec(1)}); err == nil {
		t.Errorf("a fault aimed at nobody was accepted")
	}
	if err := r.Inject(engine.Fault{Do: "pause", Target: "client-1", For: engine.Sec(20)}); err != nil {
		t.Fatal(err)
	}
	r.Resume()
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	ps := find(res, "client-1", engine.KindPauseStart)
	if len(ps) != 1 || ps[0].T != 0 || ps[0].Until != 20000 {
		t.Fatalf("the injected pause should start at 0 and end at 20 s: %v", ps)
	}
	if g := find(res, "client-1", engine.KindGranted); len(g) == 0 || g[0].T != 20000 {
		t.Errorf("client-1 should do nothing until the pause ends: %v", g)
	}
}

// TestEventLimit cuts a run that would emit too many events and says so.
func TestEventLimit(t *testing.T) {
	sc := mustPreset(t, "crashed-holder", true, "lock.lease", "1h", "until", "1h", "clients[client-2].retry_every", "10ms")
	res := mustRun(t, sc)
	if !res.Summary.Truncated || len(res.Events) != engine.MaxEvents+1 {
		t.Fatalf("want a truncated run of %d events, got %d (truncated %v)", engine.MaxEvents+1, len(res.Events), res.Summary.Truncated)
	}
	if last := res.Events[len(res.Events)-1]; last.Kind != engine.KindTruncated {
		t.Errorf("the last event should say the run was cut: %+v", last)
	}
}

// TestSingleBackend runs the paused holder on one lock server: the same
// outcomes as on Raft, named by the same node.
func TestSingleBackend(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		raftRes := mustRun(t, mustPreset(t, "paused-holder", fencing))
		single := mustRun(t, mustPreset(t, "paused-holder", fencing, "lock.backend", "single", "lock.nodes", "1"))
		if jsonOf(t, raftRes.Summary) != jsonOf(t, single.Summary) {
			t.Errorf("fencing %v: raft %+v, single %+v", fencing, raftRes.Summary, single.Summary)
		}
	}
}

// TestRaftGroupSizes runs on groups of 1 and 5 voters.
func TestRaftGroupSizes(t *testing.T) {
	for _, n := range []string{"1", "5"} {
		res := mustRun(t, mustPreset(t, "paused-holder", true, "lock.nodes", n))
		if !res.Summary.Safe || res.Summary.WritesRefused != 1 {
			t.Errorf("%s nodes: %+v", n, res.Summary)
		}
	}
}

// expiring is a context whose deadline passes when expire is called: its
// Err is then context.DeadlineExceeded.
type expiring struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newExpiring() *expiring {
	return &expiring{Context: context.Background(), done: make(chan struct{})}
}

func (c *expiring) expire()               { c.once.Do(func() { close(c.done) }) }
func (c *expiring) Done() <-chan struct{} { return c.done }
func (c *expiring) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
