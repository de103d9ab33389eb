package engine

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// bufferSink is a raft.SnapshotSink that keeps the snapshot in memory.
type bufferSink struct{ bytes.Buffer }

func (s *bufferSink) ID() string    { return "test" }
func (s *bufferSink) Cancel() error { return nil }
func (s *bufferSink) Close() error  { return nil }

// TestRaftFSMSnapshotRestore checks that a node restored from a snapshot
// holds the same locks, tokens and remembered replies as the node the
// snapshot was taken on, and answers the next commands the same way.
func TestRaftFSMSnapshotRestore(t *testing.T) {
	var src atomic.Pointer[LockFSM]
	src.Store(NewLockFSM(7))
	m := src.Load()
	m.Apply(Command{Op: OpAcquire, Lock: "a", Client: "c1", Lease: 5000, Now: 10, ReqID: 1})
	r := m.Apply(Command{Op: OpAcquire, Lock: "b", Client: "c2", Lease: 5000, Now: 20, ReqID: 1})
	m.Apply(Command{Op: OpRelease, Lock: "b", Client: "c2", Token: r.Token, Now: 30, ReqID: 2})
	m.Apply(Command{Op: OpAcquire, Lock: "b", Client: "c3", Lease: 100, Now: 40, ReqID: 1})

	snap, err := raftFSM{m: &src}.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink bufferSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	var dst atomic.Pointer[LockFSM]
	dst.Store(NewLockFSM(1))
	if err := (raftFSM{m: &dst}).Restore(io.NopCloser(&sink)); err != nil {
		t.Fatal(err)
	}
	if got, want := dst.Load().state(), m.state(); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored state %+v, want %+v", got, want)
	}
	next := []Command{
		{Op: OpAcquire, Lock: "a", Client: "c2", Lease: 5000, Now: 50, ReqID: 3},        // refused: c1 holds it
		{Op: OpAcquire, Lock: "b", Client: "c1", Lease: 5000, Now: 200, ReqID: 2},       // c3's lease ran out: a new token
		{Op: OpAcquire, Lock: "a", Client: "c1", Lease: 5000, Now: 60, ReqID: 1},        // a request seen before
		{Op: OpRelease, Lock: "a", Client: "c1", Token: 7, Lease: 0, Now: 70, ReqID: 3}, // c1's token
	}
	for _, c := range next {
		if got, want := dst.Load().Apply(c), m.Apply(c); got != want {
			t.Errorf("%+v: restored node answered %+v, the original %+v", c, got, want)
		}
	}
}

// TestRaftGroupCompactsAndCatchesUpFromSnapshot runs more commands through
// a real 3-node group than its snapshot threshold while one follower is
// down: the leader's log must be compacted (bounded), and the follower,
// restarted with a log that ends before the leader's first entry, must
// be sent the snapshot and end with the leader's state machine.
func TestRaftGroupCompactsAndCatchesUpFromSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of commits")
	}
	g, err := NewLockGroup(3)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	s := g.svc
	leader, lagging := s.nodes[0], s.nodes[2]

	// Stop the follower the way a crash does (unlinked, shut down, stores kept).
	lagging.down = true
	s.links()
	if err := s.stopNode(lagging); err != nil {
		t.Fatal(err)
	}
	_, stoppedAt := lagging.lastLog()

	const clients = 16
	n := raftSnapshotThreshold + 2*raftTrailingLogs
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name, lock := fmt.Sprintf("c%d", c), fmt.Sprintf("l%d", c)
			var token int64
			for i := range n / clients / 2 {
				r, err := g.Do(Command{Op: OpAcquire, Lock: lock, Client: name, Lease: 10000, ReqID: uint64(2*i + 1)})
				if err == nil && r.OK {
					token = r.Token
					r, err = g.Do(Command{Op: OpRelease, Lock: lock, Client: name, Token: token, ReqID: uint64(2*i + 2)})
				}
				if err != nil || !r.OK {
					errs <- fmt.Errorf("%s, round %d: %+v, %v", name, i, r, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// The leader snapshots at its next check (every one to two seconds).
	deadline := time.Now().Add(2 * time.Minute)
	for {
		first, _ := leader.log.FirstIndex()
		last, _ := leader.log.LastIndex()
		if first > stoppedAt+1 {
			if kept := last - first + 1; kept > uint64(n)/2 {
				t.Fatalf("the leader keeps %d entries (%d to %d) after compacting %d", kept, first, last, n)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the leader's log was not compacted past %d: %d to %d", stoppedAt, first, last)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Restart the follower on its stores with an empty machine, as restart does.
	lagging.down = false
	lagging.trans.Close()
	lagging.trans = newMemTransport(lagging.trans.LocalAddr())
	lagging.simNode.fsm = NewLockFSM(1)
	for key := range s.linked {
		if key[0] == 2 || key[1] == 2 {
			s.linked[key] = false
		}
	}
	s.links()
	if err := s.startNode(lagging); err != nil {
		t.Fatal(err)
	}
	want := leader.fsm.Load().state()
	for {
		snaps, _ := lagging.snaps.List()
		got := lagging.fsm.Load().state()
		if len(snaps) > 0 && reflect.DeepEqual(got, want) {
			break
		}
		if time.Now().After(deadline.Add(time.Minute)) {
			t.Fatalf("the restarted follower has %d snapshots and next token %d; the leader's is %d", len(snaps), got.Next, want.Next)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Caught up from a snapshot, the follower is as up to date as the
	// leader, though its log may hold nothing: the simulation's elections
	// (campaign) must see that, or they would pass it over.
	lt, li := leader.lastLog()
	for {
		ft, fi := lagging.lastLog()
		if ft == lt && fi == li {
			break
		}
		if time.Now().After(deadline.Add(time.Minute)) {
			logLast, _ := lagging.log.LastIndex()
			t.Fatalf("the caught-up follower's last entry is term %d index %d (its log ends at %d); the leader's is term %d index %d", ft, fi, logLast, lt, li)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
