package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

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
	if a := p.get("/healthz"); a.status != http.StatusOK || !strings.Contains(a.body, `"store":"not answering"`) {
		t.Errorf("/healthz with the store down: %d %s, want 200 saying so", a.status, a.body)
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
