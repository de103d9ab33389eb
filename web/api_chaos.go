package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web/admission"
)

// Bounds of POST /api/chaos. A batch is heavy: a Raft run costs a group's
// elections, and the generator runs each scenario a few times to aim its
// faults, so the web takes at most MaxAPIChaosRuns (the command line takes
// more) and gives a batch Config.ChaosTimeout, by default
// chaosTimeoutFactor times the run timeout.
const (
	MaxAPIChaosRuns    = 1000
	chaosTimeoutFactor = 4
	// chaosWorkers is how many of a batch's scenarios run at once: one
	// core's worth of Raft groups, which mostly wait on their timers.
	chaosWorkers = 4
)

// Defaults of a chaos request, the command line's.
const (
	defaultChaosRuns = 100
	defaultChaosSeed = 1
)

// chaosRequest is the body of POST /api/chaos: the chaos command's flags.
// Fencing defaults to on, except under a backend with no token.
type chaosRequest struct {
	Backend string `json:"backend"`
	// Kind is the kind of scenario searched: "locks" (the default) or
	// "claims", for a scenario whose clients take no lock.
	Kind    string `json:"kind"`
	Fencing *bool  `json:"fencing"`
	Nodes   int    `json:"nodes"`
	Runs    *int   `json:"runs"`
	Seed    *int64 `json:"seed"`
	// LoseDisk lets the generator make a node lose its disk (off by
	// default).
	LoseDisk bool `json:"lose_disk"`
}

// options turns the request into the engine's options, defaults filled
// in, and checks every bound; errors name the request's field.
func (r chaosRequest) options() (engine.ChaosOptions, error) {
	opt := engine.ChaosOptions{Backend: r.Backend, Kind: r.Kind, Nodes: r.Nodes, Runs: defaultChaosRuns, Seed: defaultChaosSeed, Workers: chaosWorkers, LoseDisk: r.LoseDisk}
	if opt.Backend == "" {
		opt.Backend = engine.DefaultBackend
	}
	b, _ := engine.LookupBackend(opt.Backend)
	opt.Fencing = b.Tokens // off where the backend has no token (unknown ones are refused below)
	if r.Fencing != nil {
		opt.Fencing = *r.Fencing
	}
	if r.Runs != nil {
		opt.Runs = *r.Runs
	}
	if r.Seed != nil {
		opt.Seed = *r.Seed
	}
	if opt.Runs < 1 || opt.Runs > MaxAPIChaosRuns {
		return opt, badRequest("runs", "must be between 1 and %d here (the chaos command takes up to %d), not %d",
			MaxAPIChaosRuns, engine.MaxChaosRuns, opt.Runs)
	}
	return opt, opt.Check()
}

// apiChaos runs a chaos batch and answers with the same report as
// `playground chaos --format json`. The batch holds one live-run slot and
// ends at its deadline, when the request is abandoned, or when the server
// shuts down.
func (s *Server) apiChaos(c echo.Context) error {
	var req chaosRequest
	if err := s.readJSON(c, &req); err != nil {
		return err
	}
	opt, err := req.options()
	if err != nil {
		return err
	}
	// The batch waits its turn for one slot like any run (at most
	// QueueWait, then 503 with Retry-After), on the requester's behalf.
	rctx, rstop := s.requestContext(c)
	defer rstop()
	t, err := s.acquireRun(rctx, c, workChaos, s.requester(c))
	if err != nil {
		return err
	}
	defer t.Release()
	limit := s.cfg.ChaosTimeout
	// The HTTP server's write timeout is sized for one run; this answer
	// may come later, so the request extends its own (where it can).
	_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Now().Add(limit + 15*time.Second))
	ctx, cancel := context.WithTimeout(c.Request().Context(), limit)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	rep, err := engine.Chaos(ctx, opt)
	switch {
	case err != nil && s.ctx.Err() != nil:
		// Said like every other answer cut short by a shutdown, with the
		// same Retry-After.
		return s.runError(c, err, limit)
	case errors.Is(err, context.DeadlineExceeded):
		c.Response().Header().Set("Retry-After", strconv.Itoa(seconds(s.adm.RetryAfter(admission.Slot))))
		return &userError{Status: http.StatusServiceUnavailable, Code: codeBusy,
			Msg: fmt.Sprintf("the chaos batch took longer than %s; ask for fewer runs, or try again when the server is less busy", limit.Round(time.Millisecond))}
	case err != nil:
		return err
	}
	return writeJSON(c, http.StatusOK, rep)
}
