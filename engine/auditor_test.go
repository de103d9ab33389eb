package engine_test

import (
	"fmt"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestSummaryAgreesWithTheEvents: the summary is kept by an auditor that
// reads the timeline, so everything it counts can be counted again from
// the events alone, by anyone: writes accepted and refused, stale writes
// (the events marked "stale"), claims, side effects, grants and the time
// two clients believed they held the lock. Checked on every preset, fenced
// and not, and on the fault scenarios of these tests.
func TestSummaryAgreesWithTheEvents(t *testing.T) {
	var runs []engine.Scenario
	for _, name := range engine.PresetNames() {
		for _, fencing := range []bool{false, true} {
			if fencing && name == "redlock-clock-jump" {
				continue
			}
			runs = append(runs, mustPreset(t, name, fencing))
		}
	}
	runs = append(runs, answerLostScenario(), sideScenario(engine.BackendAsyncReplica, false, "node-1", "client-1"),
		sideScenario(engine.BackendRedlock, false, "node-1", "node-2", "client-1"))
	for i, sc := range runs {
		t.Run(fmt.Sprintf("%d-%s-fencing=%v", i, sc.Title, sc.Fencing), func(t *testing.T) {
			t.Parallel()
			res := mustRun(t, sc)
			got := recount(res.Events, res.Summary.EndMS)
			s := res.Summary
			want := [...]int64{int64(s.WritesAccepted), int64(s.WritesRefused), int64(s.StaleWritesAccepted), int64(s.ClaimsWon),
				int64(s.ClaimsLost), int64(s.SideEffects), int64(s.DuplicateSideEffects), s.OverlapMS}
			if got != want {
				t.Errorf("from the events: %v, the summary says %v (accepted, refused, stale, claims won, lost, side effects, duplicates, overlap)", got, want)
			}
			if s.StaleWritesAccepted > 0 && s.Safe {
				t.Errorf("a stale write was accepted and the run is called safe: %+v", s)
			}
		})
	}
}

// recount counts the summary's fields from the events alone.
func recount(events []engine.Event, end int64) [8]int64 {
	var c [8]int64
	sent := map[string]int64{}
	since := map[string]int64{}
	type span struct{ from, to int64 }
	var spans []span
	for _, e := range events {
		switch e.Kind {
		case engine.KindWriteAccepted:
			c[0]++
			if e.Stale {
				c[2]++
			}
		case engine.KindWriteRefused:
			c[1]++
		case engine.KindClaimWon:
			c[3]++
		case engine.KindClaimLost:
			c[4]++
		case engine.KindSMSSent:
			c[5]++
			sent[e.Message]++
		case engine.KindGranted:
			if _, ok := since[e.Actor]; !ok {
				since[e.Actor] = e.T
			}
		case engine.KindLockLost, engine.KindReleased, engine.KindReleaseRefused, engine.KindGaveUp, engine.KindDone, engine.KindCrashed, engine.KindUnavailable:
			if e.Kind == engine.KindUnavailable && e.Message != "release" {
				continue
			}
			if from, ok := since[e.Actor]; ok {
				spans = append(spans, span{from, e.T})
				delete(since, e.Actor)
			}
		}
	}
	for _, n := range sent {
		c[6] += n - 1
	}
	for _, from := range since {
		spans = append(spans, span{from, end})
	}
	// Time covered by two or more spans, a millisecond at a time (runs
	// are short enough).
	for t := int64(0); t < end; t++ {
		n := 0
		for _, s := range spans {
			if s.from <= t && t < s.to {
				n++
			}
		}
		if n >= 2 {
			c[7]++
		}
	}
	return c
}
