package web

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web/admission"
)

// liveRun is a session's run: first waiting for its place (and, at full
// speed, a slot), then running. Its fields are shared by the session's
// read loop (controls), the run's goroutine and, while the run asks for a
// slot to go at full speed, one more.
type liveRun struct {
	cancel   context.CancelFunc // leaves the line, or ends the run
	finished chan struct{}      // closed just before its last message: a new run may start
	done     chan struct{}      // closed once its last message is queued

	mu       sync.Mutex
	speed    float64 // the speed asked for last
	playing  float64 // the speed the run plays at: a faster one may wait for a slot
	density  float64 // its scenario's estimated events per simulated second
	events   float64 // and in all (simulatedEvents)
	paused   bool
	position int               // its place in line while it waits
	admitted bool              // it has what it needs to start
	left     bool              // it left the line ("stop" before it started)
	run      *engine.Run       // nil until it starts
	held     []ClientMessage   // controls sent before it started
	live     *admission.Ticket // its live place
	slot     *admission.Ticket // a slot, while it goes at full speed
	boosting *slotRequest      // the request for a slot in progress, if any
	waits    sync.WaitGroup    // the goroutines asking for a slot
	// line is the fault's or stop's turn waiting in a faster speed's place
	// (turn), which then tells its place in line.
	line atomic.Pointer[turnLine]
}

// slotRequest is one wait for a slot to go at full speed.
type slotRequest struct {
	cancel context.CancelFunc
	place  atomic.Int32  // its place in line, 0 before any
	done   chan struct{} // closed once it ended: the slot is the run's, or it is given up
}

func (lr *liveRun) ended() bool {
	select {
	case <-lr.finished:
		return true
	default:
		return false
	}
}

// maxHeld bounds the controls kept for a run that has not started.
const maxHeld = 32

// hold returns the engine run to apply a control to, or keeps the control
// for when the run starts (a browser may send "pause" right after
// "start"). A "stop" before the run has what it needs leaves the line
// instead.
func (lr *liveRun) hold(m ClientMessage) (*engine.Run, error) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	switch {
	case lr.run != nil:
		return lr.run, nil
	case m.Type == MsgStop && !lr.admitted:
		lr.left = true
		lr.cancel()
		return nil, nil
	case len(lr.held) >= maxHeld:
		return nil, &userError{Status: http.StatusTooManyRequests, Code: "queued", Field: "type",
			Msg: fmt.Sprintf("the run has not started yet (place %d in line) and already has %d controls waiting for it: send \"stop\" to leave the line", lr.position, maxHeld)}
	}
	lr.held = append(lr.held, m)
	return nil, nil
}

// startsPaused reports whether the run starts paused: it was asked to, or
// controls wait for it. A run that moved before they reached it would
// take an inject or a pause sent while it waited at whatever time it had
// got to (at full speed, seconds in), not at 0 s; publish resumes it once
// they are applied.
func (lr *liveRun) startsPaused() bool {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.paused || len(lr.held) > 0
}

// publish hands over the controls held so far; once there are none, the
// run is published and later controls go to it directly, in order. With
// resume, a run started paused only for its held controls is resumed
// before it is published, so that no later control comes before that.
func (lr *liveRun) publish(run *engine.Run, resume bool) []ClientMessage {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	held := lr.held
	lr.held = nil
	if len(held) == 0 {
		if resume {
			run.Resume()
		}
		lr.run = run
	}
	return held
}

func (lr *liveRun) speedNow() float64 {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.speed
}

func (lr *liveRun) leftLine() bool {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.left
}

// setSlot gives the run a slot (lr.mu not held).
func (lr *liveRun) setSlot(s *Server, t *admission.Ticket) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	lr.setSlotLocked(s, t)
}

func (lr *liveRun) setSlotLocked(s *Server, t *admission.Ticket) {
	lr.slot = t
	s.doubled.Add(1)
}

// turn is the engine's Options.Turn: each time a run is simulated again
// (a fault injected, a stop), a run whose last simulation was long (its
// real events, not the estimate its start went by) takes a slot, in turn
// with everyone's runs, unless it holds one already (at full speed, or
// fast enough to need one), and gives it back after; while a faster speed
// waits for the run's slot, it waits in that speed's place. While it
// waits, the browser is told its place and what waits: the fault or the
// stop, which takes a waiting fault's place when the run is stopped
// meanwhile.
func (lr *liveRun) turn(ss *session) func(context.Context, engine.TurnAsk) (func(), error) {
	return func(ctx context.Context, ask engine.TurnAsk) (func(), error) {
		if !simulationNeedsSlot(float64(ask.Events)) {
			return func() {}, nil
		}
		var line *turnLine
		for {
			lr.mu.Lock()
			holds, boost := lr.slot != nil, lr.boosting
			lr.mu.Unlock()
			if holds {
				return func() {}, nil
			}
			if line == nil {
				line = newTurnLine(ss, ask)
				defer line.over()
			}
			if boost == nil {
				break
			}
			// A faster speed waits in line for the slot this turn needs
			// too: the turn waits in its place, told as the turn's, and
			// goes on with the run's slot once it comes. A slower speed
			// asked meanwhile gives that wait up, and the turn waits on
			// its own.
			lr.line.Store(line)
			if place := boost.place.Load(); place > 0 {
				line.moved(int(place))
			}
			select {
			case <-boost.done:
				lr.line.Store(nil)
			case <-ctx.Done():
				lr.line.Store(nil)
				return nil, ctx.Err()
			}
		}
		t, err := ss.srv.adm.Acquire(ctx, ss.who, admission.Slot, line.moved)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err() // the run's time ran out, or its tab closed: not a refusal
		case err != nil:
			ask.For = line.what() // the stop's, if it took the fault's place
			return nil, ss.srv.turnRefused(err, ctx, ask)
		}
		return t.Release, nil
	}
}

// turnLine tells the browser where a run's turn stands in line, and what
// waits for it: the fault or the stop, which takes the fault's place when
// the run is stopped while its fault waits (engine.TurnAsk.Stopped).
type turnLine struct {
	ss    *session
	ask   engine.TurnAsk
	mu    sync.Mutex
	place int           // the place last told, 0 before any
	ended bool          // the wait is over: nothing more to tell
	done  chan struct{} // closed as the wait ends
}

func newTurnLine(ss *session, ask engine.TurnAsk) *turnLine {
	l := &turnLine{ss: ss, ask: ask, done: make(chan struct{})}
	if ask.Stopped != nil {
		go l.stopTakesPlace()
	}
	return l
}

// what is what waits: the fault, or the stop that took its place.
func (l *turnLine) what() string {
	select {
	case <-l.ask.Stopped: // never, for a nil channel: a stop's own turn
		return engine.TurnForStop
	default:
		return l.ask.For
	}
}

// moved tells the browser the turn's new place in line.
func (l *turnLine) moved(place int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	l.place = place
	l.ss.send(ServerMessage{Type: MsgQueued, Position: place, Waiting: l.what()})
}

// stopTakesPlace waits until the run is stopped or the wait is over; a
// stop while the turn is still in line is told at once, in the fault's
// place.
func (l *turnLine) stopTakesPlace() {
	select {
	case <-l.ask.Stopped:
	case <-l.done:
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ended && l.place > 0 {
		l.ss.send(ServerMessage{Type: MsgQueued, Position: l.place, Waiting: engine.TurnForStop})
	}
}

// over ends the wait: nothing more is told about it.
func (l *turnLine) over() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended = true
	close(l.done)
}

// turnRefused is the error that ends a live run whose fault or stop could
// not wait for a slot: why the line refused it (counted as any refusal
// is), and that the run ended where it stood.
func (s *Server) turnRefused(err error, ctx context.Context, ask engine.TurnAsk) error {
	refused := s.refusal(nil, err, ctx, admission.Slot)
	ue, ok := refused.(*userError)
	if !ok {
		return refused
	}
	out := *ue
	out.Msg = fmt.Sprintf("the %s could not wait for a free slot (%s); the run ended where it stood", ask.For, ue.Msg)
	return &out
}

// dropSlotLocked gives the run's slot back, if it has one.
func (lr *liveRun) dropSlotLocked(s *Server) {
	if lr.slot != nil {
		lr.slot.Release()
		lr.slot = nil
		s.doubled.Add(-1)
	}
}

// release gives back the run's slot and place, once any request for a
// slot has ended.
func (lr *liveRun) release(s *Server) {
	lr.mu.Lock()
	if lr.boosting != nil {
		lr.boosting.cancel()
		lr.boosting = nil
	}
	lr.mu.Unlock()
	lr.waits.Wait()
	lr.mu.Lock()
	defer lr.mu.Unlock()
	lr.dropSlotLocked(s)
	if lr.live != nil {
		lr.live.Release()
		lr.live = nil
	}
}

// setSpeed applies a speed the browser asked for. One that needs a slot
// (at full speed, or fast enough to, needsSlot) waits for one in line
// with everyone's runs while the run goes on at the speed it plays at:
// the browser is told that speed (a "speed" message), its place in line
// ("queued", waiting "new speed") and, once the slot comes, the new speed;
// if the line refuses it, why (an error naming "speed"), and the run goes
// on as it was. A slower speed asked meanwhile gives the wait up.
func (ss *session) setSpeed(lr *liveRun, r *engine.Run, speed float64) {
	srv := ss.srv
	lr.mu.Lock()
	defer lr.mu.Unlock()
	lr.speed = speed
	if !srv.needsSlot(lr.density, speed) {
		lr.play(r, speed)
		if lr.boosting != nil {
			lr.boosting.cancel()
			lr.boosting = nil
			ss.sendSpeed(speed) // the wait given up: this is the speed now
		}
		lr.dropSlotLocked(srv)
		return
	}
	if lr.slot != nil {
		lr.play(r, speed)
		return
	}
	ss.sendSpeed(lr.playing) // until a slot comes
	if lr.boosting != nil {
		return // already asking; the newest speed applies when it comes
	}
	ctx, cancel := context.WithCancel(ss.ctx)
	req := &slotRequest{cancel: cancel, done: make(chan struct{})}
	lr.boosting = req
	lr.waits.Add(1)
	go func() {
		defer lr.waits.Done()
		defer close(req.done) // once the slot is the run's, or given up
		defer cancel()
		moved := func(pos int) {
			req.place.Store(int32(pos))
			if l := lr.line.Load(); l != nil {
				l.moved(pos) // a fault or a stop waits in this place: what the run stands still for
				return
			}
			ss.send(ServerMessage{Type: MsgQueued, Position: pos, Waiting: "new speed"})
		}
		t, err := srv.adm.Acquire(ctx, ss.who, admission.Slot, moved)
		lr.mu.Lock()
		defer lr.mu.Unlock()
		if lr.boosting != req {
			// Slowed down again or ended meanwhile: not wanted any more.
			if err == nil {
				t.Release()
			}
			return
		}
		lr.boosting = nil
		if err != nil {
			if ss.ctx.Err() == nil && srv.ctx.Err() == nil && !lr.ended() {
				m := ss.errorMessage(srv.refusal(nil, err, ctx, admission.Slot))
				m.Field = "speed"
				m.Message = fmt.Sprintf("the run goes on %s: the faster speed could not wait for a free slot (%s)", speedInWords(lr.playing), m.Message)
				ss.send(m)
			}
			return
		}
		lr.setSlotLocked(srv, t)
		lr.play(r, lr.speed)
		ss.sendSpeed(lr.speed)
	}()
}

// play has the run play at speed; the caller holds lr.mu.
func (lr *liveRun) play(r *engine.Run, speed float64) {
	_ = r.SetSpeed(speed)
	lr.playing = speed
}

// sendSpeed tells the browser the speed the run plays at.
func (ss *session) sendSpeed(speed float64) {
	ss.send(ServerMessage{Type: MsgSpeed, Speed: &speed})
}

// speedInWords says how fast a run goes, as the page does.
func speedInWords(speed float64) string {
	if speed == 0 {
		return "as fast as possible"
	}
	return "at " + formatNumber(speed) + " s per second"
}
