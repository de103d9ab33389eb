package lessons_test

import (
	"context"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestPlaygroundsShowWhatTheirLessonsClaim runs every embedded playground as
// the lesson sets it up. Where a lesson starts a playground with fencing
// off, it does so to show a failure: the run must be unsafe, and switching
// fencing on (the lesson's fix) must make it safe.
func TestPlaygroundsShowWhatTheirLessonsClaim(t *testing.T) {
	c := mustCatalog(t)
	ctx := context.Background()
	for _, l := range c.Lessons() {
		for _, pg := range l.Playgrounds {
			p, err := engine.LoadPreset(pg.Preset)
			if err != nil {
				t.Fatalf("%s %s: %v", l.Slug, pg.ID, err)
			}
			sc := p.Scenario
			for k, v := range pg.Set {
				if sc, err = engine.SetField(sc, k, v); err != nil {
					t.Fatalf("%s %s: set %s: %v", l.Slug, pg.ID, k, err)
				}
			}
			res, err := engine.Execute(ctx, sc)
			if err != nil {
				t.Fatalf("%s %s: %v", l.Slug, pg.ID, err)
			}
			if pg.Set["fencing"] != "false" {
				continue
			}
			if res.Summary.Safe {
				t.Errorf("%s %s (%s): shown with fencing off to show a failure, but the run is safe", l.Slug, pg.ID, pg.Preset)
			}
			sc.Fencing = true
			fixed, err := engine.Execute(ctx, sc)
			if err != nil {
				t.Fatal(err)
			}
			if !fixed.Summary.Safe {
				t.Errorf("%s %s (%s): fencing on does not fix it: %s", l.Slug, pg.ID, pg.Preset, engine.Verdict(fixed.Summary))
			}
		}
	}
}

func TestPlaygroundCommandReproducesTheSetup(t *testing.T) {
	c := mustCatalog(t)
	l, err := c.Lesson("redlock")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Playgrounds[0].Command(), "playground run --preset paused-holder --fencing off --set 'lock.nodes=5'"; got != want {
		t.Errorf("Command() = %q, want %q", got, want)
	}
}
