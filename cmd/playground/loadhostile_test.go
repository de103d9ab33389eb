package main

import (
	"maps"
	"strings"
	"testing"
	"time"
)

// TestLoadtestHostileBesideASmallClass plays the cross-site attack beside
// a class of 8 on a server in this process: every join, run and check of
// the class succeeds, and every fetch of the attacker is refused with 403.
func TestLoadtestHostileBesideASmallClass(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a class")
	}
	base := serveInProcess(t, "--run-slots", "2", "--max-live-runs", "8")
	attacker, stop := startHostile(t.Context(), "cross-site", base)
	rep, err := playClass(t.Context(), base, classPlan{Students: 8, Presets: []string{"paused-holder"},
		Speed: 0, Exercises: defaultAnswers[:1], Retries: 0, Arrival: 100 * time.Millisecond})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Joins.OK != 8 || rep.Runs.OK != 8 || rep.Checks.OK != 8 {
		t.Errorf("the class: joins %d, runs %d, checks %d ok, want 8 each: %v", rep.Joins.OK, rep.Runs.OK, rep.Checks.OK, rep.Errors)
	}
	// Read the counts by kind, not the summary's words: a count of 200
	// refusals would read as a 200 in "answered 403 200".
	attacker.mu.Lock()
	got := maps.Clone(attacker.got)
	attacker.mu.Unlock()
	if len(got) != 1 || got["answered 403"] == 0 {
		t.Errorf("the attacker got %v, want only 403s", got)
	}
}

func TestLoadtestHostileModeIsChecked(t *testing.T) {
	err := run(t.Context(), []string{"loadtest", "--hostile", "flood"}, noEnv, &strings.Builder{}, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "--hostile: must be one of") {
		t.Errorf("an unknown mode: %v", err)
	}
}
