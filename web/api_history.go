package web

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/engine"
)

// linearizeTimeout bounds the linearizability check of one history: the
// histories of a playground run are small, and a check that does not
// finish says so instead of holding the request.
const linearizeTimeout = 3 * time.Second

// historyResponse is a run's lock history: every lock-service operation
// with its call and return (in the simulation's order) and what the
// linearizability checker made of it.
type historyResponse struct {
	Operations   json.RawMessage `json:"operations"`
	Linearizable bool            `json:"linearizable"`
	Summary      engine.Summary  `json:"summary"`
	Verdict      string          `json:"verdict"`

	// ClockNote, beside a history that is not linearizable by true time,
	// names the clocks by which each grant looked legal.
	ClockNote string `json:"clock_note,omitempty"`

	// Conflict, beside a history that is not linearizable, names the two
	// operations that conflict.
	Conflict *engine.Conflict `json:"conflict,omitempty"`
}

// sharedRun runs the scenario of a share link's s parameter as POST
// /api/run does: it waits its turn for a slot, then runs for RunTimeout at
// most.
func (s *Server) sharedRun(c echo.Context) (*engine.Result, error) {
	if c.QueryParam("s") == "" {
		return nil, badRequest("s", "is required: the scenario, as a share link carries it")
	}
	sc, err := DecodeShare(c.QueryParam("s"))
	if err != nil {
		return nil, err
	}
	p, err := engine.Prepare(sc)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.requestContext(c)
	defer cancel()
	t, err := s.acquireRun(ctx, c, workRun, requester(c))
	if err != nil {
		return nil, err
	}
	defer t.Release()
	rctx, rcancel := context.WithTimeout(ctx, s.cfg.RunTimeout)
	defer rcancel()
	res, err := s.execute(rctx, p)
	if err != nil {
		return nil, s.runError(c, err, s.cfg.RunTimeout)
	}
	return res, nil
}

// apiHistory: GET /api/history?s=SCENARIO runs a shared scenario and
// answers with its lock history and whether it is linearizable (the same
// scenario always gives the same history).
func (s *Server) apiHistory(c echo.Context) error {
	res, err := s.sharedRun(c)
	if err != nil {
		return err
	}
	h := res.History()
	ops, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if h.Len() == 0 {
		ops = []byte("[]")
	}
	return writeJSON(c, http.StatusOK, historyResponse{Operations: ops, Linearizable: h.Linearizable(linearizeTimeout),
		ClockNote: h.ClockNote(linearizeTimeout), Conflict: h.Conflict(linearizeTimeout), Summary: res.Summary, Verdict: engine.Verdict(res.Summary)})
}

// historyPage: GET /playground/history?s=SCENARIO is the run's lock
// history as the checker judged it: where it is not linearizable, the two
// operations that conflict, named and drawn on a time axis, with a link
// back to the run's timeline.
func (s *Server) historyPage(c echo.Context) error {
	res, err := s.sharedRun(c)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, HistoryPage(s.page("Lock history"), newHistoryView(c.QueryParam("s"), res.History())))
}
