package engine_test

import (
	"context"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestChaosNamesTheForgottenReleases: a lock history that is not
// linearizable only because the lock service lost a release (a promoted
// async replica that never got its copy, a single server restarting from a
// save older than it) is counted among the histories with something the
// lock service forgot, like one with a forgotten grant. Before, chaos left
// it unexplained. Swept over the generated schedules of a range of seeds,
// whose crashes fall at every distance from the release, with every
// replication lag and save period the generator draws.
func TestChaosNamesTheForgottenReleases(t *testing.T) {
	found := 0
	for _, b := range []struct {
		backend    string
		first, end int64
	}{{"async-replica", 121, 200}, {"single", 1, 60}} {
		opt := engine.ChaosOptions{Backend: b.backend, Fencing: true}
		for seed := b.first; seed < b.end; seed++ {
			sc, err := engine.GenerateScenario(context.Background(), seed, opt)
			if err != nil {
				t.Fatal(err)
			}
			res := mustRun(t, sc)
			s := res.Summary
			if s.ForgottenReleases == 0 || s.ForgottenGrants > 0 {
				continue
			}
			h := res.History()
			if h.Check(engine.DefaultCheckTimeout) != engine.LinearizableIllegal || h.ClockNote(engine.DefaultCheckTimeout) != "" {
				continue
			}
			found++
			o := opt
			o.Runs, o.Seed = 1, seed
			rep, err := engine.Chaos(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.IllegalForgotten != 1 {
				t.Errorf("%s seed %d: the lock service forgot %d release(s) and the history is not linearizable, but the report counts %d such histories: %+v",
					b.backend, seed, s.ForgottenReleases, rep.IllegalForgotten, rep.Linearizability)
			}
		}
	}
	if found == 0 {
		t.Fatal("no history made not linearizable by a forgotten release alone: the sweep tests nothing")
	}
}
