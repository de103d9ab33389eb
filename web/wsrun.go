package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web/admission"
)

// A websocket message and the fault it may carry are read as strictly as
// an HTTP body, and their errors are worded the same way: the field named
// ("type: must be a string"), the fields taken listed.
var (
	wsMessage = strictJSON{whole: "message", of: "this message"}
	wsFault   = strictJSON{whole: "fault", prefix: "fault.", of: "a fault"}
)

// badMessage gives a decoding error the websocket's kind for a message it
// cannot read, "bad_message".
func badMessage(err error) error {
	var ue *userError
	if errors.As(err, &ue) {
		ue.Code = "bad_message"
	}
	return err
}

// handle acts on one message from the browser. Bad input is answered with
// an error message; the connection stays open.
func (ss *session) handle(data []byte) {
	var m ClientMessage
	if data == nil {
		ss.sendErr("", "bad_message", "messages must be JSON text, like {\"type\":\"start\",...}")
		return
	}
	if err := checkDepth("message", data); err != nil {
		ss.sendError(err)
		return
	}
	if err := wsMessage.decode(data, &m); err != nil {
		ss.sendError(badMessage(err))
		return
	}
	lr := ss.live
	if lr != nil && lr.ended() {
		lr = nil
	}
	switch m.Type {
	case MsgStart:
		if lr != nil {
			ss.sendErr("type", "run_live", "a run is live on this connection: send \"stop\" and wait for its summary first")
			return
		}
		ss.start(m)
	case MsgPause, MsgResume, MsgStep, MsgStop, MsgSpeed, MsgInject:
		if lr == nil {
			ss.sendErr("type", "no_run", fmt.Sprintf("%q needs a live run: send \"start\" first", m.Type))
			return
		}
		run, err := lr.hold(m)
		if err != nil {
			ss.sendError(err)
		}
		if run != nil {
			ss.control(lr, run, m)
		}
	default:
		ss.sendErr("type", "bad_message", fmt.Sprintf("unknown message type %s: use start, inject, pause, resume, step, speed or stop", excerpt(m.Type)))
	}
}

func (ss *session) control(lr *liveRun, r *engine.Run, m ClientMessage) {
	switch m.Type {
	case MsgPause:
		r.Pause()
	case MsgResume:
		r.Resume()
	case MsgStep:
		r.Step()
	case MsgStop:
		r.Stop()
	case MsgSpeed:
		if m.Speed == nil {
			ss.sendErr("speed", "bad_message", "is required: simulated seconds per wall second, 0 for as fast as possible")
			return
		}
		speed := *m.Speed
		if err := checkSpeed(speed, formatNumber(speed)); err != nil {
			ss.sendError(err)
			return
		}
		ss.setSpeed(lr, r, speed)
	case MsgInject:
		var f engine.Fault
		if len(m.Fault) == 0 {
			ss.sendErr("fault", "bad_message", `is required, like {"do":"pause","target":"client-1","for":"15s"}`)
			return
		}
		if err := wsFault.decode(m.Fault, &f); err != nil {
			ss.sendError(badMessage(err))
			return
		}
		if err := r.Inject(f); err != nil {
			ss.sendError(err)
		}
	}
}

// start queues a run for a slot; one run per connection at a time. The
// message is checked whole first (speed, scenario), so only a run that can
// start takes a place in the line.
func (ss *session) start(m ClientMessage) {
	speed := 0.0
	if m.Speed != nil {
		speed = *m.Speed
	}
	if err := checkSpeed(speed, formatNumber(speed)); err != nil {
		ss.sendError(err)
		return
	}
	if len(m.Scenario) == 0 {
		ss.sendErr("scenario", "bad_message", "is required")
		return
	}
	prepared, err := engine.ParseScenario(m.Scenario)
	if err != nil {
		ss.sendError(err)
		return
	}
	ctx, cancel := context.WithCancel(ss.ctx)
	norm := prepared.Scenario()
	density := eventDensity(norm)
	lr := &liveRun{cancel: cancel, finished: make(chan struct{}), done: make(chan struct{}), speed: speed, playing: speed, paused: m.Paused,
		density: density, events: simulatedEvents(density, norm)}
	ss.live = lr
	go ss.runLive(ctx, lr, prepared, m.Messages)
}

// runLive waits for the run's slot, telling the browser its place as it
// moves, then runs it, streaming its events, and queues its summary.
//
// Its last message (the summary, or an error) is sent once the run's slot
// is given back and a new start is accepted, so a browser that starts the
// next run as soon as it reads the summary is never told one is live.
func (ss *session) runLive(ctx context.Context, lr *liveRun, prepared *engine.Prepared, messages bool) {
	var last []ServerMessage
	defer func() {
		lr.release(ss.srv)
		lr.cancel()
		ss.runEnded.Store(time.Now().UnixNano())
		close(lr.finished)
		for _, m := range last {
			ss.send(m)
		}
		close(lr.done)
	}()
	srv := ss.srv
	limit := srv.cfg.MaxRunTime
	// A run waits as long as its browser likes (it can leave the line
	// with "stop"), but no longer than a run may last: for a live place,
	// then, at full speed, for a slot too.
	wctx, wcancel := context.WithTimeout(ctx, limit)
	moved := func(pos int) {
		lr.mu.Lock()
		lr.position = pos
		lr.mu.Unlock()
		ss.send(ServerMessage{Type: MsgQueued, Position: pos})
	}
	waited := time.Duration(0)
	kind := admission.Live
	var simSlot *admission.Ticket // held for the simulation alone
	releaseSim := func() {
		if simSlot != nil {
			simSlot.Release()
			simSlot = nil
		}
	}
	defer releaseSim()
	t, err := srv.adm.Acquire(wctx, ss.who, admission.Live, moved)
	if err == nil {
		waited = t.Waited()
		lr.mu.Lock()
		lr.live = t
		lr.mu.Unlock()
		switch {
		case srv.needsSlot(lr.density, lr.speed):
			kind = admission.Slot
			var st *admission.Ticket
			if st, err = srv.adm.Acquire(wctx, ss.who, admission.Slot, moved); err == nil {
				waited += st.Waited()
				lr.setSlot(srv, st)
			}
		case simulationNeedsSlot(lr.events):
			// Its simulation is long: it takes its turn for a slot, fairly
			// with everyone's runs, and gives it back once it plays.
			kind = admission.Slot
			if simSlot, err = srv.adm.Acquire(wctx, ss.who, admission.Slot, moved); err == nil {
				waited += simSlot.Waited()
			}
		}
	}
	wcancel()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // it left the line as its turn came
	}
	if err != nil {
		switch {
		case lr.leftLine():
			last = append(last, ServerMessage{Type: MsgError, Code: "stopped", Message: "the run was stopped before it started: it was waiting for a free slot"})
		case ss.ctx.Err() != nil:
			// The session is ending; the shutdown notice, if any, is the
			// read loop's.
		default:
			last = append(last, ss.errorMessage(srv.refusal(nil, err, ctx, kind)))
		}
		return
	}
	admitted := time.Now()
	srv.metrics.runWait.WithLabelValues(workLive).Observe(waited.Seconds())
	lr.mu.Lock()
	lr.admitted = true
	lr.mu.Unlock()

	norm := prepared.Scenario()
	state := NewState(norm)
	ss.send(ServerMessage{Type: MsgState, State: ptr(state), Scenario: &norm})
	poke := make(chan struct{}, 1) // the run moved on: observe may ask its nodes
	sink := func(e engine.Event) {
		ev := e
		select {
		case poke <- struct{}{}:
		default:
		}
		ss.send(ServerMessage{Type: MsgEvent, Event: &ev, Text: engine.Describe(e)})
		if state.Apply(e) {
			ss.send(ServerMessage{Type: MsgState, State: ptr(state)})
		}
	}
	runCtx, cancelRun := context.WithTimeout(ctx, limit)
	defer cancelRun()
	startPaused := lr.startsPaused()
	opt := engine.Options{Speed: lr.speed, Sink: sink, Paused: startPaused, Pool: srv.pool, Turn: lr.turn(ss)}
	if messages {
		opt.OnMessage = func(m engine.Message) { ss.send(ServerMessage{Type: MsgMessage, Record: &m}) }
	}
	run, err := engine.Start(runCtx, prepared, opt)
	releaseSim()
	if err != nil {
		last = append(last, ss.errorMessage(srv.runError(nil, err, limit)))
		return
	}
	// The run is under way, its events on their way to the learner.
	srv.noteClassRun(ctx, ss.learner, prepared.Scenario())
	// Controls sent before the run started apply now, in order, at 0 s,
	// as if they had come just after it; then the run goes on paused or
	// not as the last of them (or the start message) said.
	paused := lr.paused
	for {
		held := lr.publish(run, startPaused && !paused)
		if len(held) == 0 {
			break
		}
		for _, m := range held {
			ss.control(lr, run, m)
			switch m.Type {
			case MsgPause, MsgStep: // a step pauses again after it
				paused = true
			case MsgResume:
				paused = false
			}
		}
	}
	began := time.Now()
	lr.mu.Lock()
	live := lr.live
	lr.mu.Unlock()
	turn := ss.watchTurn(run, live, admitted)
	ss.observe(run, poke) // until the run ends
	res, err := run.Wait()
	if turn.stop() {
		ss.send(ServerMessage{Type: MsgError, Code: "turn_over", Message: fmt.Sprintf("the run was stopped: others are waiting for a place, and a live run may hold one for %s while they wait; press Run to queue again", srv.cfg.LiveTurn)})
	}
	attrs := []any{slog.String("title", prepared.Title()), slog.Float64("speed", lr.speedNow()),
		slog.Duration("wall", time.Since(began)), slog.Duration("waited", waited), slog.Int("events", len(res.Events))}
	if !errors.Is(err, context.Canceled) && !errors.Is(err, engine.ErrInternal) {
		attrs = append(attrs, slog.Bool("safe", res.Summary.Safe)) // a cancelled run has no summary to judge
	}
	ss.log.Info("live run ended", append(attrs, slog.Any("err", err))...)
	if errors.Is(err, context.DeadlineExceeded) {
		ss.send(ServerMessage{Type: MsgError, Code: "too_long", Message: fmt.Sprintf("the run was stopped: a live run may last at most %s of wall time", limit)})
	}
	if errors.Is(err, context.Canceled) {
		return // the session is ending: a cancelled run has no summary, and no one to send one to
	}
	stopped := err != nil && (errors.Is(err, engine.ErrStopped) || errors.Is(err, context.DeadlineExceeded))
	if err != nil && !stopped {
		m := ss.errorMessage(srv.runError(nil, err, limit))
		m.Stopped = true // the error ended the run: no summary follows
		last = append(last, m)
		return
	}
	head := engine.HeadingOf(prepared.Scenario(), res.Events, res.Summary, stopped)
	last = append(last, ServerMessage{Type: MsgSummary, Summary: &res.Summary, Verdict: engine.Verdict(res.Summary), Heading: &head,
		Scenario: &norm, States: Fold(norm, res.Events), Stopped: stopped, MessagesTruncated: res.MessagesTruncated})
}
