package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web/admission"
)

// TestHistoryHoldsItsSlotThroughTheCheck: the linearizability check of
// GET /api/history costs CPU like the run before it, so the run's slot is
// held until the check is done. The hook reads the slots taken at the
// moment the check begins: one, the request's own; had the slot been given
// back after the run, it would read none.
func TestHistoryHoldsItsSlotThroughTheCheck(t *testing.T) {
	srv, err := NewServer(Config{RunSlots: 1, MaxLiveRuns: 1})
	if err != nil {
		t.Fatal(err)
	}
	var held []int
	hook := func(s *Server) { held = append(held, s.adm.Stats().Running[admission.Slot]) }
	historyCheckHook.Store(&hook)
	defer historyCheckHook.Store(nil)
	p, err := engine.LoadPreset("async-failover")
	if err != nil {
		t.Fatal(err)
	}
	link, err := EncodeShare(p.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/history?s="+link, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/history: %d %s", rec.Code, rec.Body)
	}
	if len(held) != 1 || held[0] != 1 {
		t.Errorf("slots held as the check began: %v, want [1] (the request's own)", held)
	}
	if n := srv.adm.Stats().Running[admission.Slot]; n != 0 {
		t.Errorf("slots held after the answer: %d, want 0", n)
	}
}
