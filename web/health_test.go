package web_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestADatabaseOutageIsNotACrash: with the store down, /healthz (the
// liveness probe) still answers 200, saying the store does not answer, so
// nobody restarts the process; /readyz (the readiness probe) answers 503,
// so the balancer sends the replica no work until the store is back.
func TestADatabaseOutageIsNotACrash(t *testing.T) {
	st := openSQLite(t)
	ts, _ := startServer(t, web.Config{Classroom: st})
	p := newPerson(t, ts.URL)
	for _, path := range []string{"/healthz", "/readyz"} {
		if a := p.get(path); a.status != http.StatusOK || !strings.Contains(a.body, `"store":"ok"`) {
			t.Errorf("%s with the store up: %d %s", path, a.status, a.body)
		}
	}
	st.Close()
	// /healthz says what its last ping found, and pings again as it
	// answers: the outage shows on the next probe or the one after.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		a := p.get("/healthz")
		if a.status != http.StatusOK {
			t.Fatalf("/healthz with the store down: %d %s, want 200", a.status, a.body)
		}
		if strings.Contains(a.body, `"store":"not answering"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz never said the store is down: %s", a.body)
		}
	}
	if a := p.get("/readyz"); a.status != http.StatusServiceUnavailable || !strings.Contains(a.body, `"store":"not answering"`) {
		t.Errorf("/readyz with the store down: %d %s, want 503", a.status, a.body)
	}
}

// TestReadyOnceTheWarmPoolIsFull: a server that keeps warm Raft groups is
// ready once it has booted them all, and stays ready while runs use them.
func TestReadyOnceTheWarmPoolIsFull(t *testing.T) {
	ts, _ := startServer(t, web.Config{WarmRaftGroups: true, RunSlots: 1})
	p := newPerson(t, ts.URL)
	deadline := time.Now().Add(30 * time.Second)
	for {
		a := p.get("/readyz")
		if a.status == http.StatusOK {
			break
		}
		if a.status != http.StatusServiceUnavailable || !strings.Contains(a.body, `"warm_pool":"filling"`) {
			t.Fatalf("/readyz while the pool fills: %d %s", a.status, a.body)
		}
		if time.Now().After(deadline) {
			t.Fatal("never ready: the warm pool did not fill in 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if status, body, err := runFrom(http.DefaultClient, ts.URL, preset(t, "raft-failover", true)); err != nil || status != http.StatusOK {
		t.Fatalf("a run: %d %s %v", status, body, err)
	}
	if a := p.get("/readyz"); a.status != http.StatusOK {
		t.Errorf("/readyz after a run took a warm group: %d %s", a.status, a.body)
	}
}

// hangingStore is a store whose Ping waits until released, as a ping does
// when every connection of a busy store's pool waits for the write lock.
type hangingStore struct {
	classroom.Store
	hang    atomic.Bool
	release chan struct{}
	pings   atomic.Int64
}

func (h *hangingStore) Ping(ctx context.Context) error {
	h.pings.Add(1)
	if h.hang.Load() {
		select {
		case <-h.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return h.Store.Ping(ctx)
}

// TestTheLivenessProbeDoesNotWaitForABusyStore: while the store's ping
// hangs, /healthz answers (with what the last ping found) instead of
// waiting with it, and starts no second ping beside the one under way;
// /readyz does wait, since whether to send work depends on the store.
func TestTheLivenessProbeDoesNotWaitForABusyStore(t *testing.T) {
	st := &hangingStore{Store: openSQLite(t), release: make(chan struct{})}
	ts, _ := startServer(t, web.Config{Classroom: st})
	p := newPerson(t, ts.URL)
	if a := p.get("/healthz"); !strings.Contains(a.body, `"store":"ok"`) {
		t.Fatalf("/healthz with the store up: %d %s", a.status, a.body)
	}
	st.hang.Store(true)
	for i := range 5 {
		a := p.get("/healthz")
		if a.status != http.StatusOK || !strings.Contains(a.body, `"store":"ok"`) {
			t.Errorf("/healthz %d while the ping hangs: %d %s, want 200 with the last state", i+1, a.status, a.body)
		}
	}
	// Answered, all five, while the ping still hangs.
	select {
	case <-st.release:
		t.Fatal("released early")
	default:
	}
	// The probes started one ping, on a goroutine of its own, which may
	// not have begun yet on a busy machine: wait for it (the deadline
	// only bounds a broken test), then probe again. No probe starts a
	// second ping while it hangs.
	for deadline := time.Now().Add(30 * time.Second); st.pings.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	for range 5 {
		p.get("/healthz")
	}
	if n := st.pings.Load(); n != 2 {
		t.Errorf("%d pings, want 2 (the first probe's, and one under way for the rest)", n)
	}
	close(st.release)
}
