package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/leaselab/playground/engine"
)

// handle acts on one message from the browser. Bad input is answered with
// an error message; the connection stays open.
func (ss *session) handle(data []byte) {
	var m ClientMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if data == nil {
		ss.sendErr("", "bad_message", "messages must be JSON text, like {\"type\":\"start\",...}")
		return
	}
	if err := dec.Decode(&m); err != nil || dec.More() {
		why := "more than one JSON value"
		if err != nil {
			why = err.Error()
		}
		ss.sendErr("", "bad_message", "message is not valid: "+why+`; send one JSON object like {"type":"pause"}`)
		return
	}
	live := ss.run != nil
	if live {
		select {
		case <-ss.runDone:
			live = false
		default:
		}
	}
	switch m.Type {
	case MsgStart:
		ss.start(m)
	case MsgPause, MsgResume, MsgStep, MsgStop, MsgSpeed, MsgInject:
		if !live {
			ss.sendErr("type", "no_run", fmt.Sprintf("%q needs a live run: send \"start\" first", m.Type))
			return
		}
		ss.control(m)
	default:
		ss.sendErr("type", "bad_message", fmt.Sprintf("unknown message type %q: use start, inject, pause, resume, step, speed or stop", m.Type))
	}
}

func (ss *session) control(m ClientMessage) {
	r := ss.run
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
		if err := r.SetSpeed(*m.Speed); err != nil {
			ss.sendError(err)
		}
	case MsgInject:
		var f engine.Fault
		dec := json.NewDecoder(bytes.NewReader(m.Fault))
		dec.DisallowUnknownFields()
		if len(m.Fault) == 0 {
			ss.sendErr("fault", "bad_message", `is required, like {"do":"pause","target":"client-1","for":"15s"}`)
			return
		}
		if err := dec.Decode(&f); err != nil {
			ss.sendErr("fault", "bad_message", "is not a fault: "+err.Error())
			return
		}
		if err := r.Inject(f); err != nil {
			ss.sendError(err)
		}
	}
}

// start begins a run; one run per connection at a time.
func (ss *session) start(m ClientMessage) {
	if ss.run != nil {
		select {
		case <-ss.runDone:
			ss.run, ss.runDone = nil, nil
		default:
			ss.sendErr("type", "run_live", "a run is live on this connection: send \"stop\" and wait for its summary first")
			return
		}
	}
	speed := 0.0
	if m.Speed != nil {
		speed = *m.Speed
	}
	if speed < 0 || speed > engine.MaxSpeed || speed != speed {
		ss.sendErr("speed", "bad_message", fmt.Sprintf("must be between 0 (as fast as possible) and %g", engine.MaxSpeed))
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
	if !ss.srv.runs.tryAcquire() {
		ss.sendError(errBusy)
		return
	}
	state := NewState(prepared.Scenario())
	ss.send(ServerMessage{Type: MsgState, State: ptr(state)})
	sink := func(e engine.Event) {
		ev := e
		ss.send(ServerMessage{Type: MsgEvent, Event: &ev, Text: engine.Describe(e)})
		if state.Apply(e) {
			ss.send(ServerMessage{Type: MsgState, State: ptr(state)})
		}
	}
	limit := ss.srv.cfg.MaxRunTime
	runCtx, cancelRun := context.WithTimeout(ss.ctx, limit)
	run, err := engine.Start(runCtx, prepared, engine.Options{Speed: speed, Sink: sink})
	if err != nil {
		cancelRun()
		ss.srv.runs.release()
		ss.sendError(err)
		return
	}
	done := make(chan struct{})
	ss.run, ss.runDone = run, done
	go func() {
		defer close(done)
		defer ss.srv.runs.release()
		defer cancelRun()
		began := time.Now()
		res, err := run.Wait()
		ss.log.Info("live run ended", slog.String("title", prepared.Title()), slog.Float64("speed", speed),
			slog.Duration("wall", time.Since(began)), slog.Int("events", len(res.Events)),
			slog.Bool("safe", res.Summary.Safe), slog.Any("err", err))
		if errors.Is(err, context.DeadlineExceeded) {
			ss.send(ServerMessage{Type: MsgError, Code: "too_long", Message: fmt.Sprintf("the run was stopped: a live run may last at most %s of wall time", limit)})
		}
		stopped := err != nil && (errors.Is(err, engine.ErrStopped) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
		if err != nil && !stopped {
			ss.log.Error("live run failed", slog.Any("err", err))
			ss.send(ServerMessage{Type: MsgError, Code: "internal", Message: "internal error: the run failed; sorry, it has been logged"})
			return
		}
		ss.send(ServerMessage{Type: MsgSummary, Summary: &res.Summary, Verdict: engine.Verdict(res.Summary), Stopped: stopped})
	}()
}
