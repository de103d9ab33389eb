package web

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web/admission"
)

// liveRun is a session's run: first waiting for its slot, then running.
// Its fields are shared by the session's read loop (controls), the run's
// goroutine and, while the run asks for more of a slot, one more.
type liveRun struct {
	cancel   context.CancelFunc // leaves the line, or ends the run
	finished chan struct{}      // closed just before its last message: a new run may start
	done     chan struct{}      // closed once its last message is queued

	paused bool // it starts paused, waiting for "step" or "resume"

	mu       sync.Mutex
	speed    float64
	position int               // its place in line while it waits
	left     bool              // it left the line ("stop" before it started)
	run      *engine.Run       // nil until it starts
	held     []ClientMessage   // controls sent before it started
	ticket   *admission.Ticket // its share of a slot, once it has it
	boost    *admission.Ticket // the rest of a slot, while it runs at full speed
	boosting *boostRequest     // the request for boost in progress, if any
	waits    sync.WaitGroup    // the goroutines asking for a boost
}

// boostRequest is one wait for the rest of a slot.
type boostRequest struct{ cancel context.CancelFunc }

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
// "start"). A "stop" before the run has its slot leaves the line instead.
func (lr *liveRun) hold(m ClientMessage) (*engine.Run, error) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	switch {
	case lr.run != nil:
		return lr.run, nil
	case m.Type == MsgStop && lr.ticket == nil:
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

// publish hands over the controls held so far; once there are none, the
// run is published and later controls go to it directly, in order.
func (lr *liveRun) publish(run *engine.Run) []ClientMessage {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	held := lr.held
	lr.held = nil
	if len(held) == 0 {
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

// release gives back the run's slot, once any request for more of it has
// ended.
func (lr *liveRun) release() {
	lr.mu.Lock()
	if lr.boosting != nil {
		lr.boosting.cancel()
		lr.boosting = nil
	}
	lr.mu.Unlock()
	lr.waits.Wait()
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if lr.boost != nil {
		lr.boost.Release()
		lr.boost = nil
	}
	if lr.ticket != nil {
		lr.ticket.Release()
	}
}

// setSpeed changes a running run's pace. A run paced for watching holds a
// share of a slot; at full speed it needs a whole one, so going to full
// speed waits (in the background, the run going on at its pace) for the
// rest of a slot, and slowing down gives it back.
func (ss *session) setSpeed(lr *liveRun, r *engine.Run, speed float64) {
	want := ss.srv.runCost(speed)
	lr.mu.Lock()
	defer lr.mu.Unlock()
	base := lr.ticket.Cost()
	if want <= base {
		if lr.boosting != nil {
			lr.boosting.cancel()
			lr.boosting = nil
		}
		if lr.boost != nil {
			lr.boost.Release()
			lr.boost = nil
		}
		lr.speed = speed
		_ = r.SetSpeed(speed)
		lr.ticket.Shrink(want)
		return
	}
	lr.speed = speed
	if lr.boost != nil {
		_ = r.SetSpeed(speed)
		return
	}
	if lr.boosting != nil {
		return // already asking; the newest speed applies when it comes
	}
	ctx, cancel := context.WithCancel(ss.ctx)
	req := &boostRequest{cancel: cancel}
	lr.boosting = req
	lr.waits.Add(1)
	go func() {
		defer lr.waits.Done()
		defer cancel()
		t, err := ss.srv.adm.Acquire(ctx, ss.who, want-base, nil)
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
			return // the session or the server is ending
		}
		lr.boost = t
		_ = r.SetSpeed(lr.speed)
	}()
}
