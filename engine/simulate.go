package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// A run is simulated as fast as the machine goes, then played back at
// the pace the learner asked for (Run). The simulation is deterministic,
// so a control that changes what happens (a fault injected now, a stop)
// is taken by simulating the run again from the start with that control
// written into its script at the step where the learner gave it: the steps
// before it come out the same, and the rest follows from the fault. A run
// being played holds its timeline and nothing else: its Raft group was
// shut down and its database given back to the pool when the simulation
// ended.

// scripted is one control written into a run's simulation, applied
// between two steps: a fault injected, or the stop.
type scripted struct {
	after int    // the scheduler steps taken before it applies
	at    int64  // the simulated time it applies at
	fault *Fault // nil: the run stops there
}

// stepMark is where one step of a simulated run ends: a scheduler step, or a
// scripted fault (which emits its own events between two steps).
type stepMark struct {
	at       int64 // the simulated time after it
	steps    int32 // the scheduler steps taken, this one included
	events   int32 // the events emitted so far, this step's included
	msgs     int32 // the message records settled so far
	injected bool  // a scripted fault, not a scheduler step
}

// sighting is what a run's real Raft nodes reported about themselves
// after a step that emitted events (mark), kept where it differs from the
// one before.
type sighting struct {
	mark  int // -1: before the first step
	nodes []NodeStatus
}

// simulated is the outcome of one simulation.
type simulated struct {
	res *Result
	err error
	// setupErr is set when the run could not start at all (Start's error).
	setupErr error
	marks    []stepMark
	seen     []sighting
}

// simOptions are what a simulation is given besides its scenario.
type simOptions struct {
	pool     *RaftPool
	messages bool
	probe    *raftProbe
	script   []scripted
	// record keeps the marks and sightings (a run played back); Execute
	// does without them.
	record bool
}

// simulate runs a prepared scenario to its end (or its scripted stop, or
// ctx's end) as fast as possible, applying the script's controls between
// the steps they name.
func simulate(ctx context.Context, p *Prepared, o simOptions) *simulated {
	out := &simulated{}
	if err := setupGate.enter(ctx); err != nil {
		out.setupErr = err
		return out
	}
	w, err := newWorld(ctx, p.sc.clone(), nil, MaxEvents, o.pool, o.probe)
	setupGate.leave()
	if err != nil {
		out.setupErr = err
		return out
	}
	w.msgs = newMsgLog(w, o.messages, nil)
	s := w.s
	until := w.sc.Until.MS()
	reporter, _ := w.svc.(nodeReporter)
	if !o.record {
		reporter = nil
	}
	look := func(at int) {
		if reporter == nil {
			return
		}
		nodes := reporter.status()
		if n := len(out.seen); n > 0 && slices.Equal(out.seen[n-1].nodes, nodes) {
			return
		}
		out.seen = append(out.seen, sighting{mark: at, nodes: nodes})
	}
	put := func(at int64, injected bool, steps int) {
		if !o.record {
			return
		}
		m := stepMark{at: at, steps: int32(steps), events: int32(len(w.events)), injected: injected}
		if w.msgs != nil {
			m.msgs = int32(len(w.msgs.list))
		}
		// The nodes are read where the step said something: that is when
		// the page is shown a step and asks how they see themselves, and
		// it keeps a run's sightings as few as its events.
		shown := int32(0)
		if n := len(out.marks); n > 0 {
			shown = out.marks[n-1].events
		}
		out.marks = append(out.marks, m)
		if m.events > shown {
			look(len(out.marks) - 1)
		}
	}

	var stopErr error
	script := o.script
	steps := 0
	w.begin()
	look(-1)
	for stopErr == nil && w.err == nil && s.err == nil && !w.truncated {
		next, ok := s.peek()
		if !ok || next > until {
			break
		}
		if len(script) > 0 && script[0].after == steps {
			c := script[0]
			script = script[1:]
			if c.fault == nil {
				stopErr = ErrStopped
				continue
			}
			s.now = c.at
			w.applyFault(*c.fault)
			put(s.now, true, steps)
			continue
		}
		select {
		case <-ctx.Done():
			stopErr = ctx.Err()
			continue
		default:
		}
		s.step()
		steps++
		if w.probe != nil {
			w.probe.afterStep(w)
		}
		put(s.now, false, steps)
	}
	// The run ends at its last event, or at "until" when work was still
	// due after it (a lease still running, a client still waiting).
	end := int64(0)
	if n := len(w.events); n > 0 {
		end = w.events[n-1].T
	}
	if next, ok := s.peek(); ok && next > until && stopErr == nil {
		end = until
	} else if stopErr != nil {
		end = s.now
	}
	if stopErr == nil && w.err == nil && s.err == nil && !w.truncated {
		// A delay still armed held nothing back: said at the run's end,
		// played as soon as the last step is (the run does not wait for
		// "until").
		last := s.now
		s.now = max(s.now, end)
		w.unsentDelays()
		if n := len(w.events); n > 0 {
			end = max(end, w.events[n-1].T)
		}
		put(last, false, steps)
	}
	internal := errors.Join(w.err, s.err)
	summary, serr := w.summarize(end)
	out.res = &Result{Events: w.events, Summary: summary, history: w.history.export()}
	if w.msgs != nil {
		out.res.Messages, out.res.MessagesTruncated = w.msgs.list, w.msgs.truncated
		if out.res.Messages == nil {
			out.res.Messages = []Message{}
		}
	}
	if out.res.Events == nil {
		out.res.Events = []Event{}
	}
	cerr := w.close()
	switch {
	case internal != nil:
		out.err = fmt.Errorf("%w: %w", ErrInternal, internal)
	case serr != nil:
		out.err = serr
	case stopErr != nil:
		out.err = stopErr
	case cerr != nil:
		out.err = fmt.Errorf("cleanup: %w", cerr)
	}
	return out
}
