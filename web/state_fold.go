package web

import (
	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
)

// FoldedState is the state a run is in from the event at index After on
// (-1: before the first event) until the next FoldedState.
type FoldedState struct {
	After int   `json:"after"`
	State State `json:"state"`
}

// Fold folds a run's events into the states it goes through, one each time
// what the panels show changes. It is the one fold: the page draws these
// states (node roles on the timeline, the panels at the playhead) and
// never folds the events itself.
func Fold(sc engine.Scenario, events []engine.Event) []FoldedState {
	s := NewState(sc)
	out := []FoldedState{{After: -1, State: s.clone()}}
	for i, e := range events {
		if s.Apply(e) {
			out = append(out, FoldedState{After: i, State: s.clone()})
		}
	}
	return out
}

// checkResponse is an exercise's result with the fold of the run it was
// graded on, for the page to draw its timeline.
type checkResponse struct {
	lessons.Result
	TimelineStates []FoldedState `json:"timeline_states,omitempty"`
}

func withStates(res lessons.Result) checkResponse {
	out := checkResponse{Result: res}
	if res.Timeline != nil {
		out.TimelineStates = Fold(res.Timeline.Scenario, res.Timeline.Events)
	}
	return out
}
