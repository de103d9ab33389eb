package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// checkAt returns client's one check answer.
func checkAt(t *testing.T, res *engine.Result, client string) engine.Event {
	t.Helper()
	var out []engine.Event
	for _, e := range res.Events {
		if e.Actor == client && (e.Kind == engine.KindCheckOK || e.Kind == engine.KindCheckFailed ||
			(e.Kind == engine.KindUnavailable && e.Message == "check")) {
			out = append(out, e)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%s should check once: %v", client, out)
	}
	return out[0]
}

// TestLeaseReadStale: a leader cut off from its majority still answers
// lease reads while its lease lasts by its own clock. Its clock runs at a
// quarter of true speed from the cut (4 s), so its 5 s lease, which a
// good clock would end at 9 s as the successor is elected, lasts until
// 24 s in true time: a check anywhere between client-2's grant (13 s) and
// 24 s is answered yes from node-1's old copy, and is stale. Fencing
// decides the late write; the read is stale either way.
func TestLeaseReadStale(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		for _, at := range []int64{14, 18, 23} {
			t.Run(fmt.Sprintf("fencing=%v/check=%ds", fencing, at), func(t *testing.T) {
				res := mustRun(t, mustPreset(t, "lease-read-stale", fencing, "clients[client-1].steps[2].for", fmt.Sprintf("%ds", at)))
				grantAt(t, res, "client-2", 34, 13000)
				c := checkAt(t, res, "client-1")
				if c.Kind != engine.KindCheckOK || c.Node != "node-1" || !c.Stale || c.T != at*1000 || !strings.Contains(c.Message, "lease read") {
					t.Fatalf("deposed node-1 should vouch for token 33, stale: %+v", c)
				}
				s := res.Summary
				if s.StaleReads != 1 {
					t.Errorf("stale_reads %d, want 1", s.StaleReads)
				}
				if fencing != s.Safe {
					t.Errorf("fencing %v: safe %v: %+v", fencing, s.Safe, s)
				}
				if res.History().Linearizable(0) {
					t.Errorf("a stale read is not linearizable: the history should say so")
				}
			})
		}
	}
}

// TestLeaseReadGoodClock: with a clock that keeps time, the deposed
// leader's lease ends as its successor is elected (9 s): a later lease
// read finds no node that may answer, and nothing is stale.
func TestLeaseReadGoodClock(t *testing.T) {
	sc := mustPreset(t, "lease-read-stale", false)
	sc.Faults = sc.Faults[1:]
	res := mustRun(t, sc)
	if c := checkAt(t, res, "client-1"); c.Kind != engine.KindUnavailable {
		t.Fatalf("no node should answer once node-1's lease ran out: %+v", c)
	}
	if res.Summary.StaleReads != 0 {
		t.Errorf("stale_reads %d, want 0", res.Summary.StaleReads)
	}
}

// TestFollowerReadStale: a follower cut off from the leader keeps its old
// copy and answers from it: client-1's node is still there after the
// leader deleted it. Read through the log instead, the same check gets no
// answer, and no read is stale.
func TestFollowerReadStale(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		for _, at := range []int64{14, 16, 30} {
			t.Run(fmt.Sprintf("fencing=%v/check=%ds", fencing, at), func(t *testing.T) {
				res := mustRun(t, mustPreset(t, "follower-read-stale", fencing, "clients[client-1].steps[2].for", fmt.Sprintf("%ds", at)))
				grantAt(t, res, "client-2", 36, 13000)
				c := checkAt(t, res, "client-1")
				if c.Kind != engine.KindCheckOK || c.Node != "node-3" || !c.Stale || c.Token != 34 {
					t.Fatalf("node-3 should answer yes from its old copy, stale: %+v", c)
				}
				if s := res.Summary; s.StaleReads != 1 || fencing != s.Safe {
					t.Errorf("fencing %v: %+v", fencing, s)
				}
			})
		}
	}
	res := mustRun(t, mustPreset(t, "follower-read-stale", false, "clients[client-1].steps[3].read", "log"))
	if c := checkAt(t, res, "client-1"); c.Kind != engine.KindUnavailable {
		t.Fatalf("through the log the cut-off client gets no answer: %+v", c)
	}
	if res.Summary.StaleReads != 0 {
		t.Errorf("a read through the log is never stale: %+v", res.Summary)
	}
}

// TestFollowerReadInSync: a follower that heard every commit answers
// what the log would: not stale.
func TestFollowerReadInSync(t *testing.T) {
	sc := mustPreset(t, "follower-read-stale", true)
	sc.Faults = nil
	sc.Clients[0].Steps[2].For = engine.Sec(2)
	res := mustRun(t, sc)
	if c := checkAt(t, res, "client-1"); c.Kind != engine.KindCheckOK || c.Stale || c.Node != "node-3" {
		t.Fatalf("node-3 is in sync: %+v", c)
	}
	if res.Summary.StaleReads != 0 {
		t.Errorf("stale_reads %d", res.Summary.StaleReads)
	}
}

// TestReadModeValidation: only a check takes a read mode, from the list,
// and skipping the log needs a backend whose nodes keep the state.
func TestReadModeValidation(t *testing.T) {
	cases := []struct{ backend, do, read, want string }{
		{"raft", "write", "lease", "only a check step"},
		{"raft", "check", "nearest", `must be log, lease or follower, not "nearest"`},
		{"single", "check", "follower", "needs a backend whose nodes answer from their own state"},
	}
	for _, tc := range cases {
		sc := engine.Scenario{Lock: engine.Lock{Backend: tc.backend}, Clients: []engine.Client{{Name: "a", Steps: []engine.Step{
			{Do: "acquire"}, {Do: "read"}, {Do: tc.do, Read: tc.read, Add: ptr(int64(1))}}}}}
		if tc.do == "check" {
			sc.Clients[0].Steps[2].Add = nil
		}
		_, err := engine.Prepare(sc)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "clients[0].steps[2].read") {
			t.Errorf("%+v: %v", tc, err)
		}
	}
}
