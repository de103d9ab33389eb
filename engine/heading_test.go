package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestHeadingOfPresets heads every preset's run: a run that lost data is
// always "Unsafe", and lock-server-down, where nothing got done, is not
// "Safe".
func TestHeadingOfPresets(t *testing.T) {
	for _, p := range engine.Presets() {
		res, err := engine.Execute(t.Context(), p.Prepared())
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		h := engine.HeadingOf(p.Prepared().Scenario(), res.Events, res.Summary, false)
		if !res.Summary.Safe && h.Kind != engine.HeadUnsafe {
			t.Errorf("%s lost data but is headed %q", p.Name, h.Title)
		}
		if p.Name == "lock-server-down" && (h.Kind != engine.HeadUnavailable || h.Title != "Unavailable for 36s" ||
			h.Detail != "no write happened; client-2 never got the lock") {
			t.Errorf("lock-server-down is headed %+v, want unavailable for 36s, no write, client-2 never got the lock", h)
		}
	}
}

// TestHeadingOfChangedRuns heads runs a learner makes by changing a
// preset: each says what happened rather than a bare "Safe".
func TestHeadingOfChangedRuns(t *testing.T) {
	cases := []struct {
		name, preset string
		change       func(*engine.Scenario)
		stopped      bool
		kind, title  string
		detail       string
	}{
		{"a lease longer than the run", "crashed-holder", func(sc *engine.Scenario) {
			sc.Fencing = true
			sc.Lock.Lease = engine.Ms(600_000)
			sc.Until = engine.Ms(60_000)
		}, false, engine.HeadIncomplete, "Incomplete", "client-2 never got the lock"},
		{"a token granted twice, fenced", "clock-jump", func(sc *engine.Scenario) { sc.Fencing = true },
			false, engine.HeadLockBroken, "Data safe, lock broken", "the lock was granted while another client's lease still ran"},
		{"stopped before the failure", "paused-holder", func(sc *engine.Scenario) { sc.Until = engine.Ms(8000) },
			true, engine.HeadStopped, "Stopped at 8s", "stopped before its end"},
		{"the healthy run", "baseline", func(*engine.Scenario) {}, false, engine.HeadSafe, "Safe", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := engine.LoadPreset(c.preset)
			if err != nil {
				t.Fatal(err)
			}
			sc := p.Scenario
			c.change(&sc)
			pp, err := engine.Prepare(sc)
			if err != nil {
				t.Fatal(err)
			}
			res, err := engine.Execute(t.Context(), pp)
			if err != nil {
				t.Fatal(err)
			}
			h := engine.HeadingOf(pp.Scenario(), res.Events, res.Summary, c.stopped)
			if h.Kind != c.kind || h.Title != c.title || !strings.Contains(h.Detail, c.detail) {
				t.Errorf("headed %+v, want %s %q with %q", h, c.kind, c.title, c.detail)
			}
		})
	}
}
