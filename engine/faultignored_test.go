package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestFaultThatCannotActIsReported: a fault that finds nothing to act on
// changes nothing, and the timeline says so (fault_ignored with the
// reason) instead of staying silent: a pause aimed at a client that has
// finished, a clock jump at one that crashed, and a delay whose message
// the client never sends before the run ends.
func TestFaultThatCannotActIsReported(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(`{"title":"ignored","seed":1,"until":"20s",
	 "lock":{"backend":"single","lease":"10s"},
	 "clients":[
	  {"name":"client-1","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1},{"do":"release"}]},
	  {"name":"client-2","start":"1s","steps":[{"do":"acquire"},{"do":"crash"}]}],
	 "faults":[
	  {"at":"2s","do":"pause","target":"client-1","for":"5s"},
	  {"at":"3s","do":"clock_jump","target":"client-2","by":"5s"},
	  {"at":"4s","do":"delay","target":"client-1","kind":"renew","by":"1s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sc)
	ignored := find(res, "engine", engine.KindFaultIgnored)
	want := []struct {
		t           int64
		what, cause string
	}{
		{2000, "pause client-1", "client-1 has finished"},
		{3000, "clock_jump client-2", "client-2 has crashed"},
		{4000, "delay client-1", "client-1 has finished"},
	}
	if len(ignored) != len(want) {
		t.Fatalf("%d fault_ignored events, want %d: %s", len(ignored), len(want), jsonOf(t, res.Events))
	}
	for i, w := range want {
		e := ignored[i]
		if e.T != w.t || e.Message != w.what || !strings.Contains(e.Reason, w.cause) {
			t.Errorf("fault_ignored %d: %+v, want at %d ms %q because %q", i, e, w.t, w.what, w.cause)
		}
	}
	if n := len(find(res, "client-1", engine.KindPauseStart)); n != 0 {
		t.Errorf("a finished client was paused")
	}

	// A delay armed while the client runs, whose message never goes out.
	sc.Faults = []engine.Fault{{At: engine.Ms(0), Do: engine.FaultDelay, Target: "client-1", Kind: engine.MsgRenew, By: engine.Sec(1)}}
	res = mustRun(t, sc)
	ignored = find(res, "engine", engine.KindFaultIgnored)
	if len(ignored) != 1 || !strings.Contains(ignored[0].Reason, "sent no renew message") || ignored[0].T != res.Summary.EndMS {
		t.Errorf("an unsent delay: %s, want one fault_ignored at the end (%d ms)", jsonOf(t, ignored), res.Summary.EndMS)
	}
}
