package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web/admission"
)

// TestRunFailuresUnderLoadAre503WithTheReason: a run that could not
// finish because the server is overloaded (its Raft group lost its
// leader, its database failed, its deadline passed) is a 503 that says
// why, never a 500; a bad scenario stays the user's 400, and a panic in
// the engine stays a logged 500.
func TestRunFailuresUnderLoadAre503WithTheReason(t *testing.T) {
	s, err := NewServer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	for _, tc := range []struct {
		err    error
		status int
		code   string
		says   string
	}{
		{fmt.Errorf("running healthy: raft apply: %w", raft.ErrLeadershipLost), 503, codeUnavailable, "leadership lost while committing log"},
		{fmt.Errorf("raft: the lock group elected no leader in 5s"), 503, codeUnavailable, "elected no leader"},
		{fmt.Errorf("storage write: %w", errors.New("database is locked")), 503, codeUnavailable, "database is locked"},
		{fmt.Errorf("running x: %w", context.DeadlineExceeded), 503, codeBusy, "took longer than 30s"},
		{&engine.FieldError{Field: "lock.lease", Message: "must be positive"}, 400, codeInvalid, "lock.lease"},
		{fmt.Errorf("%w: %w", engine.ErrInternal, errors.New("internal error in client-1: index out of range\ngoroutine 7 [running]:")), 500, codeInternal, "internal error"},
		// Words alone decide nothing: only the engine's own mark is a 500.
		{errors.New("internal error in the storage driver"), 503, codeUnavailable, "internal error in the storage driver"},
	} {
		p := mapError(s.runError(nil, tc.err, s.cfg.RunTimeout))
		if p.Status != tc.status || p.Code != tc.code || !strings.Contains(p.Message, tc.says) {
			t.Errorf("%v: %d %s %q, want %d %s saying %q", tc.err, p.Status, p.Code, p.Message, tc.status, tc.code, tc.says)
		}
		if p.Status == http.StatusServiceUnavailable && (strings.Contains(p.Message, "\n") || !strings.Contains(p.Message, "try again")) {
			t.Errorf("%v: 503 message %q should be one line that says to try again", tc.err, p.Message)
		}
	}
	// During shutdown every run error says so.
	s.cancel()
	if p := mapError(s.runError(nil, context.Canceled, s.cfg.RunTimeout)); p.Status != 503 || !strings.Contains(p.Message, "shutting down") {
		t.Errorf("during shutdown: %+v", p)
	}
}

// TestACheckStopsAtItsBudgetOfRunTime: once a check's runs together have
// held slots for RunTimeout, its next run is not started: the check is
// answered 503, the CPU one check may take being spent.
func TestACheckStopsAtItsBudgetOfRunTime(t *testing.T) {
	s, err := NewServer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	p, err := engine.LoadPreset("ride-claim")
	if err != nil {
		t.Fatal(err)
	}
	r := &checkRuns{s: s, who: admission.Who{IP: "192.0.2.1"}, budget: s.cfg.RunTimeout}
	if _, err := r.run(t.Context(), p.Prepared()); err != nil {
		t.Fatalf("a run within the budget: %v", err)
	}
	if r.used <= 0 {
		t.Error("the run's time was not counted")
	}
	r.used = r.budget // as if its runs had taken all of it
	_, err = r.run(t.Context(), p.Prepared())
	if pr := mapError(err); pr.Status != http.StatusServiceUnavailable || !strings.Contains(pr.Message, "took longer than 30s") {
		t.Errorf("a run past the budget: %+v", pr)
	}
	if n := s.LiveRuns(); n != 0 {
		t.Errorf("%d slots held", n)
	}
}
