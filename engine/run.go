package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Options control how a run is played. None of them changes what happens,
// only when the observer sees it.
type Options struct {
	// Speed paces the playing against the wall clock: simulated seconds
	// per wall second. 0 plays it as fast as possible.
	Speed float64
	// Sink, if set, receives every event as it is played, on the run's own
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
	// receives each record as the step that settled it is played, on the
	// run's goroutine (and implies Messages).
	Messages  bool
	OnMessage func(Message)

	// Turn, if set, is called before each simulation the run makes after
	// its first (a fault injected, a stop), told what the simulation is
	// for and how many events the last one had: it waits until the run
	// may use the processor again and returns the function that ends its
	// turn. The run stands still meanwhile. The web server has a long run
	// take a slot this way, in turn with everyone's runs, and tells the
	// browser its place. A run whose turn is refused ends at once with the
	// refusal and the events it showed, without a summary, which would
	// need a turn too. A stop while a fault waits takes the fault's place
	// (TurnAsk.Stopped): the turn, once it comes, is the stop's, and the
	// fault never strikes.
	Turn func(ctx context.Context, ask TurnAsk) (done func(), err error)

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

// Run is a scenario played in the background. It was simulated to its end
// before Start returned (simulate.go); what the learner sees is that
// timeline played back at the run's pace. Its methods may be called from
// any goroutine; controls take effect between two steps of the
// simulation, and one that changes what happens (Inject, Stop) is taken by
// simulating the run again with the control written in at that step.
type Run struct {
	p     *Prepared
	sc    Scenario // normalised, for Scenario and Inject's checks
	opt   Options
	ctl   chan control
	done  chan struct{}
	res   *Result
	err   error
	nodes atomic.Pointer[[]NodeStatus] // what the real nodes said at the step shown
	// injected counts the faults injected: each costs a simulation, so a
	// run takes at most MaxInjected.
	injected atomic.Int32
	// handed counts the events handed to the sink once a step's last one
	// was: a test waits on it for a step to be whole.
	handed atomic.Int64
	// stopped is closed by the first Stop: a fault still waiting for its
	// turn gives the turn to the stop (TurnAsk.Stopped).
	stopped  chan struct{}
	stopOnce sync.Once
}

// MaxInjected is how many faults one run takes live, as many as a
// scenario may list.
const MaxInjected = MaxFaults

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
	return execute(ctx, p, nil)
}

// execute simulates a scenario straight through, with its Raft group from
// pool (nil: one is booted).
func execute(ctx context.Context, p *Prepared, pool *RaftPool) (*Result, error) {
	if p == nil {
		return nil, fieldErr("scenario", "is required")
	}
	out := simulate(ctx, p, simOptions{pool: pool})
	if out.setupErr != nil {
		return nil, out.setupErr
	}
	return out.res, out.err
}

// playGate lets a few played runs simulate at a time. A class pressing Run
// together then sees its runs begin one after another, each soon, instead
// of all of them late while hundreds of simulations share the processor.
var playGate = newGate(4 * runtime.GOMAXPROCS(0))

// Start simulates a prepared scenario to its end (its Raft group shut down
// and its database given back as soon as the simulation ends) and begins
// playing it in the background. The run ends at the scenario's end, at
// Stop, or when ctx is cancelled.
func Start(ctx context.Context, p *Prepared, opt Options) (*Run, error) {
	if p == nil {
		return nil, fieldErr("scenario", "is required")
	}
	if opt.Speed < 0 || opt.Speed > MaxSpeed || opt.Speed != opt.Speed {
		return nil, fieldErr("speed", "must be between 0 (as fast as possible) and %g", MaxSpeed)
	}
	r := &Run{p: p, sc: p.sc.clone(), opt: opt, ctl: make(chan control, 64), done: make(chan struct{}), stopped: make(chan struct{})}
	first := r.simulate(ctx, nil, nil, "")
	if first.setupErr != nil {
		return nil, first.setupErr
	}
	r.sight(first, -1)
	go r.play(ctx, first)
	return r, nil
}

// TurnAsk is what a run tells Options.Turn as it asks for a turn.
type TurnAsk struct {
	// For is what the simulation is for: TurnForFault or TurnForStop.
	For string
	// Events is how many events the run's last simulation had: what this
	// one costs, give or take the fault.
	Events int
	// Stopped, for a fault's turn, is closed once the run is stopped: the
	// wait is the stop's from then on (its place in line is the fault's),
	// and the turn, once it comes, simulates the stop, not the fault.
	Stopped <-chan struct{}
}

// What a run asks a turn for (TurnAsk.For).
const (
	// TurnForFault: a fault injected live, simulated into the run where
	// it stands.
	TurnForFault = "fault"
	// TurnForStop: a run stopped, or past its deadline, simulated up to
	// where it stands for its summary.
	TurnForStop = "stop"
)

// refusedTurn is a turn Options.Turn refused (err): the run ends there.
type refusedTurn struct{ err error }

func (e refusedTurn) Error() string { return e.err.Error() }
func (e refusedTurn) Unwrap() error { return e.err }

// simulate simulates the run with the given script, a few runs at a time
// (playGate); again after last, once the run has its turn for what it is
// for (Options.Turn).
func (r *Run) simulate(ctx context.Context, script []scripted, last *simulated, why string) *simulated {
	done, err := r.turn(ctx, last, why)
	if err != nil {
		return &simulated{setupErr: err}
	}
	defer done()
	return r.simulateNow(ctx, script)
}

// turn waits for the run's turn to simulate again after last, for why
// (Options.Turn), and returns the function that ends it: at once for the
// first simulation, or with no Turn to ask. The error is the context's,
// when the run's time ran out or no one is left while it waited, as for
// any wait the run's context cuts short, or a refusedTurn.
func (r *Run) turn(ctx context.Context, last *simulated, why string) (func(), error) {
	if last == nil || r.opt.Turn == nil {
		return func() {}, nil
	}
	ask := TurnAsk{For: why, Events: len(last.res.Events)}
	if why == TurnForFault {
		ask.Stopped = r.stopped
	}
	done, err := r.opt.Turn(ctx, ask)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, refusedTurn{err}
	}
	return done, nil
}

// simulateNow simulates the run with the given script, once it has its
// turn.
func (r *Run) simulateNow(ctx context.Context, script []scripted) *simulated {
	if err := playGate.enter(ctx); err != nil {
		return &simulated{setupErr: err}
	}
	defer playGate.leave()
	return simulate(ctx, r.p, simOptions{pool: r.opt.Pool, messages: r.opt.Messages || r.opt.OnMessage != nil,
		probe: r.opt.probe, script: script, record: true})
}

// Scenario returns a copy of the normalised scenario the run executes
// (defaults filled in).
func (r *Run) Scenario() Scenario { return r.sc.clone() }

// Wait blocks until the run has ended and returns the timeline. A stopped
// run, or one whose context's deadline passed, returns what it had shown
// so far and the summary of the run up to there, together with ErrStopped
// or the context's error; a cancelled one returns what it had shown and
// no summary (Summary is zero), with context.Canceled, and so does one
// whose replay did not repeat what it had shown, with ErrInternal.
func (r *Run) Wait() (*Result, error) {
	<-r.done
	return r.res, r.err
}

// Done is closed when the run has ended.
func (r *Run) Done() <-chan struct{} { return r.done }

// Pause holds the run between two steps.
func (r *Run) Pause() { r.send(control{op: "pause"}) }

// Resume continues a paused run.
func (r *Run) Resume() { r.send(control{op: "resume"}) }

// Step runs a paused run until something happens (the next simulation
// step that emits events; one actor's turn can emit several at the same
// instant), then pauses again.
func (r *Run) Step() { r.send(control{op: "step"}) }

// Stop ends the run early. A fault injected before it that has not struck
// yet (waiting for its turn, most often) never strikes: the stop takes its
// turn.
func (r *Run) Stop() {
	r.stopOnce.Do(func() { close(r.stopped) })
	r.send(control{op: "stop"})
}

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
// take (an unknown target, a bad duration), or past MaxInjected faults.
func (r *Run) Inject(f Fault) error {
	f.At = Ms(0)
	if err := validateFault(&r.sc, "fault", f, MaxUntil); err != nil {
		return err
	}
	if r.injected.Add(1) > MaxInjected {
		r.injected.Add(-1)
		return fieldErr("fault", "a run takes at most %d faults injected live: start it again with them in its faults", MaxInjected)
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

// sight publishes what the real nodes said at mark k (-1: before the
// first step), if they said anything new there.
func (r *Run) sight(sim *simulated, k int) {
	i, found := slices.BinarySearchFunc(sim.seen, k, func(s sighting, k int) int { return s.mark - k })
	if found {
		r.nodes.Store(&sim.seen[i].nodes)
	}
}

// play hands the simulated timeline to the sinks at the run's pace: each
// step's events when the wall clock reaches the step's simulated time.
// It applies controls between two steps. Pacing decides only when a step
// is shown, never what it does.
func (r *Run) play(ctx context.Context, sim *simulated) {
	defer close(r.done)
	opt := r.opt
	cur := -1 // the last mark shown
	// shown is where the run stands: the last mark shown (its time, the
	// steps taken, the events and messages handed on), zero before any.
	shown := func() stepMark {
		if cur < 0 {
			return stepMark{}
		}
		return sim.marks[cur]
	}
	var script []scripted
	// kept is a turn a fault waited for and a stop took (Stop), for the
	// stop's simulation.
	var kept func()
	speed, paused, stepping := opt.Speed, opt.Paused, false
	wallBase, simBase := time.Now(), int64(0)
	rebase := func() { wallBase, simBase = time.Now(), shown().at }
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var stopErr error

	// show hands the next mark's events and messages on, and says
	// whether it had events.
	show := func() bool {
		was := shown()
		cur++
		m := sim.marks[cur]
		if opt.Sink != nil {
			for _, e := range sim.res.Events[was.events:m.events] {
				opt.Sink(e)
			}
		}
		if opt.OnMessage != nil {
			for _, msg := range sim.res.Messages[was.msgs:m.msgs] {
				opt.OnMessage(msg)
			}
		}
		r.handed.Store(int64(m.events))
		r.sight(sim, cur)
		return m.events > was.events
	}
	// virtualNow is the simulated time the wall clock has reached, never
	// past the next step.
	virtualNow := func(next int64) int64 {
		now := shown().at
		if paused || speed == 0 {
			return now
		}
		v := simBase + int64(float64(time.Since(wallBase).Milliseconds())*speed)
		return min(max(v, now), next)
	}
	handle := func(c control, next int64) {
		switch c.op {
		case "pause":
			paused = true
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
			more := append(slices.Clip(script), scripted{after: int(shown().steps), at: virtualNow(next), fault: c.fault})
			done, err := r.turn(ctx, sim, TurnForFault)
			if err != nil {
				stopErr = err
				return
			}
			select {
			case <-r.stopped:
				// Stopped before the fault struck (while it waited for
				// its turn, most often): the fault never strikes, and the
				// stop's simulation takes the turn it waited for.
				kept, stopErr = done, ErrStopped
				return
			default:
			}
			again := r.simulateNow(ctx, more)
			done()
			if err := follows(sim, again, cur); err != nil {
				stopErr = err
				return
			}
			script, sim = more, again
			show()
			rebase()
		}
	}

	for stopErr == nil && cur+1 < len(sim.marks) {
		m := sim.marks[cur+1]
		next := m.at
		if !m.injected && m.steps == shown().steps {
			show() // the run's last words, said as its last step is
			continue
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
		if show() && stepping {
			stepping, paused = false, true
		}
	}
	r.finish(ctx, sim, script, shown(), stopErr, kept)
}

// follows checks that a run simulated again with one more control shows
// the same steps, and the same events, up to where the control applies: the simulation is
// deterministic, so anything else is a bug, and the run ends with it
// rather than show a timeline that does not follow from what was shown.
func follows(shown, again *simulated, cur int) error {
	switch {
	case again.setupErr != nil:
		return again.setupErr
	case len(again.marks) <= cur+1 || !again.marks[cur+1].injected ||
		(cur >= 0 && (again.marks[cur] != shown.marks[cur] ||
			!reflect.DeepEqual(again.res.Events[:shown.marks[cur].events], shown.res.Events[:shown.marks[cur].events]))):
		if again.err != nil {
			return again.err
		}
		return fmt.Errorf("%w: the run simulated again with the injected fault does not repeat the steps shown before it", ErrInternal)
	}
	return nil
}

// finish settles the run's result: the simulated one when it played to
// its end, or, when it was stopped or ran out of time, the run simulated
// again up to the step shown last (its summary is of what happened until
// then). A cancelled run (its context ended: the tab closed, the server
// is shutting down) returns the events and messages it showed and no
// summary, which no one is left to read: a class leaving at once, or a
// server stopping, does not simulate a thousand runs again. kept, if not
// nil, is the turn a stop took from a fault: the stop's simulation runs in
// it, without asking for another.
func (r *Run) finish(ctx context.Context, sim *simulated, script []scripted, at stepMark, stopErr error, kept func()) {
	if kept != nil {
		defer kept()
	}
	shown := func() *Result {
		res := &Result{Events: sim.res.Events[:at.events:at.events]}
		if sim.res.Messages != nil {
			res.Messages = sim.res.Messages[:at.msgs:at.msgs]
		}
		return res
	}
	var refused refusedTurn
	switch {
	case stopErr == nil:
		r.res, r.err = sim.res, sim.err
		return
	case errors.Is(stopErr, ErrInternal), errors.Is(stopErr, context.Canceled):
		// A replay that did not follow, or no one left to read: what was
		// shown, without a summary.
		r.res, r.err = shown(), stopErr
		return
	case errors.As(stopErr, &refused):
		// A fault that could not have its turn: a summary could not
		// either.
		r.res, r.err = shown(), refused.err
		return
	}
	upTo := append(script, scripted{after: int(at.steps)})
	var cut *simulated
	if kept != nil {
		cut = r.simulateNow(context.WithoutCancel(ctx), upTo)
	} else {
		cut = r.simulate(context.WithoutCancel(ctx), upTo, sim, TurnForStop)
	}
	switch {
	case errors.As(cut.setupErr, &refused):
		// No turn to simulate it again (its line is full): what was
		// shown, and why there is no summary.
		r.res, r.err = shown(), refused.err
	case cut.setupErr != nil:
		// The group could not be set up (the server is stopping): what
		// was shown, and why there is no summary.
		r.res, r.err = shown(), cut.setupErr
	case cut.err != nil && !errors.Is(cut.err, ErrStopped):
		r.res, r.err = cut.res, cut.err
	default:
		r.res, r.err = cut.res, stopErr
	}
}
