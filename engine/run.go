package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Options control how a run is executed. None of them changes what happens,
// only when the observer sees it.
type Options struct {
	// Speed paces the run against the wall clock: simulated seconds per wall
	// second. 0 runs as fast as possible.
	Speed float64
	// Sink, if set, receives every event as it happens, on the run's own
	// goroutine. It must not block for long: a slow consumer should drop
	// (the web session drops a slow websocket) rather than stall the run.
	Sink func(Event)
	// Paused starts the run paused (waiting for Resume or Step).
	Paused bool
	// Pool, if set, supplies the run's Raft group from warm groups booted
	// ahead of time (see RaftPool). The timeline is the same byte for byte
	// with or without it.
	Pool *RaftPool
	// Messages asks the run to keep a record of every message the
	// simulated network carries (Result.Messages), apart from the
	// timeline, which stays the same byte for byte. OnMessage, if set,
	// receives each record as it is settled, on the run's goroutine (and
	// implies Messages).
	Messages  bool
	OnMessage func(Message)

	probe *raftProbe // tests only: watches the real Raft group
}

// Limits on the pacing of a run.
const (
	MaxSpeed = 1000.0 // simulated seconds per wall second
)

// ErrStopped is returned by Wait when the run was stopped before its end.
var ErrStopped = errors.New("the run was stopped")

// ErrInternal wraps what Wait returns when the engine itself failed (a
// panic in an actor, a broken invariant): a bug to log, not the caller's
// or the machine's fault.
var ErrInternal = errors.New("internal error")

// Run is a scenario executing in the background. Its methods may be called
// from any goroutine; controls take effect between two steps of the
// simulation.
type Run struct {
	w    *world
	ctl  chan control
	done chan struct{}
	res  *Result
	err  error
}

type control struct {
	op    string // "pause", "resume", "step", "speed", "stop", "inject"
	speed float64
	// fault is the injected fault. It is a pointer so that the run's
	// control queue stays small: a Fault is about 100 bytes, and every
	// live run keeps the queue's 64 places for its whole life.
	fault *Fault
}

// Execute runs a prepared scenario as fast as possible and returns its
// timeline.
func Execute(ctx context.Context, p *Prepared) (*Result, error) {
	r, err := Start(ctx, p, Options{})
	if err != nil {
		return nil, err
	}
	return r.Wait()
}

// Start starts everything a prepared scenario needs (the Raft group, the
// database) and begins the run in the background. The run ends at the
// scenario's end, at Stop, or when ctx is cancelled; then everything it
// started is shut down.
func Start(ctx context.Context, p *Prepared, opt Options) (*Run, error) {
	if p == nil {
		return nil, fieldErr("scenario", "is required")
	}
	if opt.Speed < 0 || opt.Speed > MaxSpeed || opt.Speed != opt.Speed {
		return nil, fieldErr("speed", "must be between 0 (as fast as possible) and %g", MaxSpeed)
	}
	if err := setupGate.enter(ctx); err != nil {
		return nil, err
	}
	w, err := newWorld(ctx, p.sc.clone(), opt.Sink, MaxEvents, opt.Pool, opt.probe)
	setupGate.leave()
	if err != nil {
		return nil, err
	}
	w.msgs = newMsgLog(w, opt.Messages, opt.OnMessage)
	r := &Run{w: w, ctl: make(chan control, 64), done: make(chan struct{})}
	go r.loop(ctx, opt)
	return r, nil
}

// Scenario returns a copy of the normalised scenario the run executes
// (defaults filled in).
func (r *Run) Scenario() Scenario { return r.w.sc.clone() }

// Wait blocks until the run has ended and everything it started is shut
// down, and returns the timeline. A stopped or cancelled run returns what it
// had so far together with ErrStopped or the context's error.
func (r *Run) Wait() (*Result, error) {
	<-r.done
	return r.res, r.err
}

// Done is closed when the run has ended and cleaned up.
func (r *Run) Done() <-chan struct{} { return r.done }

// Pause holds the run between two steps.
func (r *Run) Pause() { r.send(control{op: "pause"}) }

// Resume continues a paused run.
func (r *Run) Resume() { r.send(control{op: "resume"}) }

// Step runs a paused run until something happens (the next simulation
// step that emits events; one actor's turn can emit several at the same
// instant), then pauses again.
func (r *Run) Step() { r.send(control{op: "step"}) }

// Stop ends the run early.
func (r *Run) Stop() { r.send(control{op: "stop"}) }

// SetSpeed changes the pacing (0: as fast as possible).
func (r *Run) SetSpeed(speed float64) error {
	if speed < 0 || speed > MaxSpeed {
		return fieldErr("speed", "must be between 0 (as fast as possible) and %g", MaxSpeed)
	}
	r.send(control{op: "speed", speed: speed})
	return nil
}

// Inject applies a fault at the run's current simulated time. Its "at" is
// ignored. It returns a validation error for a fault the scenario cannot
// take (an unknown target, a bad duration).
func (r *Run) Inject(f Fault) error {
	f.At = Ms(0)
	if err := validateFault(&r.w.sc, "fault", f, MaxUntil); err != nil {
		return err
	}
	r.send(control{op: "inject", fault: &f})
	return nil
}

func (r *Run) send(c control) {
	select {
	case r.ctl <- c:
	case <-r.done:
	}
}

// loop drives the scheduler: it applies controls between steps and, when
// paced, waits on the wall clock before each step. Pacing decides only when
// the next step is taken, never what it does.
func (r *Run) loop(ctx context.Context, opt Options) {
	defer close(r.done)
	w, s := r.w, r.w.s
	until := w.sc.Until.MS()
	speed, paused, stepping := opt.Speed, opt.Paused, false
	wallBase, simBase := time.Now(), int64(0)
	rebase := func() { wallBase, simBase = time.Now(), s.now }
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var stopErr error

	// virtualNow is the simulated time the wall clock has reached, never
	// past the next item.
	virtualNow := func(next int64) int64 {
		if paused || speed == 0 {
			return s.now
		}
		v := simBase + int64(float64(time.Since(wallBase).Milliseconds())*speed)
		return min(max(v, s.now), next)
	}
	handle := func(c control, next int64) {
		switch c.op {
		case "pause":
			if !paused {
				paused = true
			}
		case "resume":
			paused, stepping = false, false
			rebase()
		case "step":
			paused, stepping = false, true
			rebase()
		case "speed":
			speed = c.speed
			rebase()
		case "stop":
			stopErr = ErrStopped
		case "inject":
			s.now = virtualNow(next)
			w.applyFault(*c.fault)
			rebase()
		}
	}

	w.begin()
	for stopErr == nil && w.err == nil && s.err == nil && !w.truncated {
		next, ok := s.peek()
		if !ok || next > until {
			break
		}
		select {
		case c := <-r.ctl:
			handle(c, next)
			continue
		case <-ctx.Done():
			stopErr = ctx.Err()
			continue
		default:
		}
		if paused {
			select {
			case c := <-r.ctl:
				handle(c, next)
			case <-ctx.Done():
				stopErr = ctx.Err()
			}
			continue
		}
		if speed > 0 && !stepping {
			due := wallBase.Add(time.Duration(float64(next-simBase) / speed * float64(time.Millisecond)))
			if wait := time.Until(due); wait > 0 {
				timer.Reset(wait)
				select {
				case <-timer.C:
				case c := <-r.ctl:
					timer.Stop()
					handle(c, next)
					continue
				case <-ctx.Done():
					timer.Stop()
					stopErr = ctx.Err()
					continue
				}
			}
		}
		n := len(w.events)
		s.step()
		if w.probe != nil {
			w.probe.afterStep(w)
		}
		if stepping && len(w.events) > n {
			stepping, paused = false, true
		}
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
		// A delay still armed held nothing back: said at the run's end.
		s.now = max(s.now, end)
		w.unsentDelays()
		if n := len(w.events); n > 0 {
			end = max(end, w.events[n-1].T)
		}
	}
	internal := errors.Join(w.err, s.err)
	summary, serr := w.summarize(end)
	r.res = &Result{Events: w.events, Summary: summary, history: w.history.export()}
	if w.msgs != nil {
		r.res.Messages, r.res.MessagesTruncated = w.msgs.list, w.msgs.truncated
		if r.res.Messages == nil {
			r.res.Messages = []Message{}
		}
	}
	if r.res.Events == nil {
		r.res.Events = []Event{}
	}
	cerr := w.close()
	switch {
	case internal != nil:
		r.err = fmt.Errorf("%w: %w", ErrInternal, internal)
	case serr != nil:
		r.err = serr
	case stopErr != nil:
		r.err = stopErr
	case cerr != nil:
		r.err = fmt.Errorf("cleanup: %w", cerr)
	}
}
