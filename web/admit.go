package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web/admission"
)

// Kinds of engine work, the label values of the admission metrics.
const (
	workLive  = "live"  // a run over the websocket
	workRun   = "run"   // POST /api/run
	workCheck = "check" // one engine run of an exercise check
	workChaos = "chaos" // POST /api/chaos
)

// Why a request got no slot, the label values of the refusal metric.
const (
	refusedQueueFull        = "queue_full"
	refusedSessionQueueFull = "session_queue_full"
	refusedAddressQueueFull = "address_queue_full"
	refusedTimeout          = "timeout"
	refusedShutdown         = "shutdown"
)

// requestContext is a request's context that the server's shutdown also
// ends, so that a request waiting for a slot or running the engine is
// answered at once instead of holding the shutdown up.
func (s *Server) requestContext(c echo.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(c.Request().Context())
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// acquireRun waits for a slot for one engine run of an HTTP request, at
// most QueueWait, on behalf of who. The error is the answer to give:
// 503 with Retry-After when the server is busy or shutting down, 429 when
// this client already has as many requests waiting as it may. kind labels
// the metrics (workRun, workCheck, workChaos).
//
// Every engine run of a request takes its own slot: a handler that runs
// the engine several times acquires before each run and releases after.
func (s *Server) acquireRun(ctx context.Context, c echo.Context, kind string, who admission.Who) (*admission.Ticket, error) {
	wctx, cancel := context.WithTimeout(ctx, s.cfg.QueueWait)
	defer cancel()
	t, err := s.adm.Acquire(wctx, who, admission.Slot, nil)
	if err == nil {
		s.metrics.runWait.WithLabelValues(kind).Observe(t.Waited().Seconds())
		return t, nil
	}
	return nil, s.refusal(c, err, ctx, admission.Slot)
}

// refusal turns an admission error into the answer: its status, message
// and Retry-After. ctx is the request's (not the wait's) context.
func (s *Server) refusal(c echo.Context, err error, ctx context.Context, k admission.Kind) error {
	retry := s.adm.RetryAfter(k)
	cfg := s.adm.Config()
	var reason string
	var ue *userError
	switch {
	case errors.Is(err, admission.ErrClosed) || s.ctx.Err() != nil:
		reason, retry = refusedShutdown, shutdownRetryAfter
		ue = &userError{Status: http.StatusServiceUnavailable, Code: codeBusy,
			Msg: "the server is shutting down; try again in a moment"}
	case errors.Is(err, admission.ErrFlowQueueFull):
		reason = refusedSessionQueueFull
		ue = &userError{Status: http.StatusTooManyRequests,
			Msg: fmt.Sprintf("you already have %d runs waiting for the server, the most one person may; wait for them to finish", cfg.FlowQueue)}
	case errors.Is(err, admission.ErrIPQueueFull):
		reason = refusedAddressQueueFull
		ue = &userError{Status: http.StatusTooManyRequests,
			Msg: fmt.Sprintf("your network already has %d runs waiting for the server, the most one address may; try again in %d s", cfg.IPQueue, seconds(retry))}
	case errors.Is(err, admission.ErrQueueFull):
		reason = refusedQueueFull
		ue = &userError{Status: http.StatusServiceUnavailable, Code: codeBusy,
			Msg: fmt.Sprintf("busy: %d runs are already waiting for the server; try again in %d s", cfg.Queue, seconds(retry))}
	case errors.Is(ctx.Err(), context.Canceled):
		// The client left; nobody reads the answer.
		reason = refusedTimeout
		ue = &userError{Status: http.StatusServiceUnavailable, Code: codeBusy, Msg: "the request was cancelled while it waited for the server"}
	default:
		reason = refusedTimeout
		ue = &userError{Status: http.StatusServiceUnavailable, Code: codeBusy,
			Msg: fmt.Sprintf("busy: no simulation slot came free within %s; your run was not started, try again in %d s", s.cfg.QueueWait, seconds(retry))}
	}
	s.metrics.runsRefused.WithLabelValues(reason).Inc()
	if c != nil {
		c.Response().Header().Set("Retry-After", strconv.Itoa(seconds(retry)))
	}
	return ue
}

// shutdownRetryAfter is what every answer cut short by a shutdown tells
// the client to wait: another replica, or this one restarted, is there by
// then.
const shutdownRetryAfter = 5 * time.Second

func seconds(d time.Duration) int { return max(1, int(math.Ceil(d.Seconds()))) }

// execute runs a prepared scenario as fast as it can, with a warm Raft
// group when the server keeps them.
func (s *Server) execute(ctx context.Context, p *engine.Prepared) (*engine.Result, error) {
	return s.pool.Execute(ctx, p)
}

// runError turns the error of an engine run into the answer. A run that
// could not finish because the server is overloaded or stopping (its
// deadline passed, its Raft group or database failed) is a 503 with the
// reason, logged; a bad scenario is the user's 400; a panic in the engine
// stays a 500. limit is the deadline the run had.
func (s *Server) runError(c echo.Context, err error, limit time.Duration) error {
	var fe *engine.FieldError
	var ie *lessons.InputError
	var ue *userError
	retry := s.adm.RetryAfter(admission.Slot)
	var out *userError
	switch {
	case errors.As(err, &ue), errors.As(err, &fe), errors.As(err, &ie):
		return err
	case s.ctx.Err() != nil:
		retry = shutdownRetryAfter
		out = &userError{Status: http.StatusServiceUnavailable, Code: codeBusy,
			Msg: "the server is shutting down and stopped the run; try again in a moment"}
	case errors.Is(err, context.DeadlineExceeded):
		out = &userError{Status: http.StatusServiceUnavailable, Code: codeBusy,
			Msg: fmt.Sprintf("the run took longer than %s; the server may be busy, try again in %d s", limit, seconds(retry))}
	case errors.Is(err, context.Canceled):
		out = &userError{Status: http.StatusServiceUnavailable, Code: codeBusy, Msg: "the request was cancelled"}
	case errors.Is(err, engine.ErrInternal):
		return err
	default:
		s.log.Error("engine run failed", slog.Any("err", err))
		out = &userError{Status: http.StatusServiceUnavailable, Code: codeUnavailable,
			Msg: fmt.Sprintf("the simulation could not finish (%s); the server may be overloaded, try again in %d s", firstLine(err.Error()), seconds(retry))}
	}
	if c != nil {
		c.Response().Header().Set("Retry-After", strconv.Itoa(seconds(retry)))
	}
	return out
}

// firstLine is the first line of a message, at most 160 characters.
func firstLine(msg string) string {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return boundText(msg, 160)
}

// checkRunner is the lessons.Runner of one exercise check: each engine run
// the check makes waits for a slot of its own on behalf of the learner, so
// a heavy answer pays for every run and others' runs go between them, and
// all its runs together may hold slots for at most RunTimeout: the CPU one
// check may take.
func (s *Server) checkRunner(c echo.Context, who admission.Who) lessons.Runner {
	return (&checkRuns{s: s, c: c, who: who, budget: s.cfg.RunTimeout}).run
}

// checkRuns is one check's engine runs and the slot time they used.
type checkRuns struct {
	s      *Server
	c      echo.Context
	who    admission.Who
	budget time.Duration

	mu   sync.Mutex
	used time.Duration
}

func (r *checkRuns) run(ctx context.Context, p *engine.Prepared) (*engine.Result, error) {
	s := r.s
	r.mu.Lock()
	left := r.budget - r.used
	r.mu.Unlock()
	if left <= 0 {
		return nil, s.runError(r.c, context.DeadlineExceeded, r.budget)
	}
	t, err := s.acquireRun(ctx, r.c, workCheck, r.who)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	rctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	began := time.Now()
	res, err := s.execute(rctx, p)
	r.mu.Lock()
	r.used += time.Since(began)
	r.mu.Unlock()
	if err != nil {
		return nil, s.runError(r.c, err, r.budget)
	}
	return res, nil
}
