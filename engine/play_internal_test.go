package engine

import (
	"errors"
	"testing"
)

// TestReplayThatDiffersEndsTheRun: a run simulated again with an injected
// fault must repeat what was shown before it; where it does not (another
// step count, another event, no fault where it was written in), the run
// ends with an internal error instead of showing a timeline that does not
// follow from what the learner saw.
func TestReplayThatDiffersEndsTheRun(t *testing.T) {
	shownEvents := []Event{{T: 0, Actor: "node-1", Kind: KindLeader}, {T: 100, Actor: "client-1", Kind: KindGranted, Token: 1}}
	shown := &simulated{res: &Result{Events: shownEvents},
		marks: []stepMark{{at: 0, steps: 1, events: 1}, {at: 100, steps: 2, events: 2}, {at: 200, steps: 3, events: 2}}}
	again := func(events []Event, marks ...stepMark) *simulated {
		return &simulated{res: &Result{Events: events}, marks: marks}
	}
	fault := stepMark{at: 150, steps: 2, events: 3, injected: true}
	same := append(shownEvents[:2:2], Event{T: 150, Actor: "client-1", Kind: KindPauseStart})
	if err := follows(shown, again(same, shown.marks[0], shown.marks[1], fault), 1); err != nil {
		t.Fatalf("a replay that repeats what was shown: %v", err)
	}
	other := append([]Event{shownEvents[0], {T: 100, Actor: "client-1", Kind: KindGranted, Token: 2}}, same[2])
	for name, sim := range map[string]*simulated{
		"another event":      again(other, shown.marks[0], shown.marks[1], fault),
		"another step count": again(same, shown.marks[0], stepMark{at: 100, steps: 3, events: 2}, fault),
		"no fault after it":  again(same, shown.marks[0], shown.marks[1], shown.marks[2]),
		"ends before it":     again(same, shown.marks[0]),
	} {
		if err := follows(shown, sim, 1); !errors.Is(err, ErrInternal) {
			t.Errorf("%s: want an internal error, got %v", name, err)
		}
	}
}
