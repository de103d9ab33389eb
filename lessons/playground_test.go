package lessons_test

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
)

// TestPlaygroundsShowWhatTheirLessonsClaim runs every embedded playground as
// the lesson sets it up. Where a playground states what it shows (expect),
// the run must show it. Where a lesson starts a playground with fencing
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
			res, err := prepareAndRun(ctx, sc)
			if err != nil {
				t.Fatalf("%s %s: %v", l.Slug, pg.ID, err)
			}
			if _, err := pg.CheckExpect(ctx); err != nil {
				t.Errorf("%s %s (%s): %v", l.Slug, pg.ID, pg.Preset, err)
			}
			if pg.Set["fencing"] != "false" {
				continue
			}
			if res.Summary.Safe {
				t.Errorf("%s %s (%s): shown with fencing off to show a failure, but the run is safe", l.Slug, pg.ID, pg.Preset)
			}
			sc.Fencing = true
			fixed, err := prepareAndRun(ctx, sc)
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

// TestPlaygroundExpectIsChecked: a claim the run does not bear out is
// reported with what was measured, and a claim over a name that is not a
// measure does not load.
func TestPlaygroundExpectIsChecked(t *testing.T) {
	lesson := func(expect string) map[string]string {
		return map[string]string{"01-lesson.md": "---\ntitle: A\norder: 1\nsummary: s\nquestion: q?\npresets: [paused-holder]\nexercises: [ex-one]\n---\n\n## One\n\n" +
			"```playground\npreset: paused-holder\nset: {fencing: false}\nexpect: " + expect + "\ncaption: c\n```\n\n## Two\n"}
	}
	c, err := lessons.Load(folder(lesson("stale_writes_accepted == 0")))
	if err != nil {
		t.Fatal(err)
	}
	pg := c.Lessons()[0].Playgrounds[0]
	if _, err := pg.CheckExpect(context.Background()); err == nil || !strings.Contains(err.Error(), "measured 1 stale write landed") {
		t.Errorf("a false claim was not reported with its measure: %v", err)
	}
	rep := c.Verify(context.Background(), 1, 1)
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "playground-1") {
		t.Errorf("Verify does not report the false claim: %q", rep.Problems)
	}
	if _, err := lessons.Load(folder(lesson("stale_writes >= 1"))); err == nil || !strings.Contains(err.Error(), "unknown name stale_writes at column 1 (did you mean stale_writes_accepted?)") {
		t.Errorf("an expect over an unknown name loaded: %v", err)
	}
}

// TestEveryLessonShowsSomethingLive: each lesson embeds at least one
// playground, so no page is only text.
func TestEveryLessonShowsSomethingLive(t *testing.T) {
	for _, l := range mustCatalog(t).Lessons() {
		if len(l.Playgrounds) == 0 {
			t.Errorf("%s: no playground marker", l.Slug)
		}
	}
}

// prepareAndRun validates a scenario and runs it.
func prepareAndRun(ctx context.Context, sc engine.Scenario) (*engine.Result, error) {
	p, err := engine.Prepare(sc)
	if err != nil {
		return nil, err
	}
	return engine.Execute(ctx, p)
}
