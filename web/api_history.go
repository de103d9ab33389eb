package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
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

// noCrossSiteFetch refuses a GET that runs the engine when a browser sent
// it for a page of another site: an <img> or a fetch there would spend a
// second of CPU per visitor of that page. A link followed from another
// site (a top-level navigation, which a person does once) still opens,
// and so does a request with no Sec-Fetch-Site (not a browser, or an old
// one: it has no one else's visitors to spend).
func (s *Server) noCrossSiteFetch(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header
		if h.Get("Sec-Fetch-Site") == "cross-site" && (h.Get("Sec-Fetch-Mode") != "navigate" || h.Get("Sec-Fetch-Dest") != "document") {
			return &userError{Status: http.StatusForbidden, Field: "Sec-Fetch-Site",
				Msg: "cross-site request refused: this runs a simulation, so other sites may link to it but not fetch or embed it"}
		}
		return next(c)
	}
}

// sharedRun answers a GET that runs the scenario of a share link's s
// parameter, from the cache when the same scenario was answered lately.
// Otherwise it waits its turn for a slot as POST /api/run does, and
// answer (the run, then what the route makes of its result, the
// linearizability check included) holds the slot throughout, RunTimeout
// at most for the run.
func (s *Server) sharedRun(c echo.Context, kind string, answer func(*engine.Result) (*cached, error)) (*cached, error) {
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
	norm, err := p.MarshalJSON()
	if err != nil {
		return nil, err
	}
	key := cacheKey(kind, norm)
	// Whether kept or run now, the learner reads what the run did.
	s.noteClassRun(c.Request().Context(), learnerToken(c), p.Scenario())
	if v, ok := s.histories.get(key); ok {
		return v, nil
	}
	ctx, cancel := s.requestContext(c)
	defer cancel()
	t, err := s.acquireRun(ctx, c, workRun, s.requester(c))
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
	v, err := answer(res)
	if err != nil {
		return nil, err
	}
	v.key = key
	s.histories.put(v)
	return v, nil
}

// apiHistory: GET /api/history?s=SCENARIO runs a shared scenario and
// answers with its lock history and whether it is linearizable (the same
// scenario always gives the same history).
func (s *Server) apiHistory(c echo.Context) error {
	v, err := s.sharedRun(c, "api", func(res *engine.Result) (*cached, error) {
		h := res.History()
		ops, err := json.Marshal(h)
		if err != nil {
			return nil, err
		}
		if h.Len() == 0 {
			ops = []byte("[]")
		}
		if h := historyCheckHook.Load(); h != nil {
			(*h)(s)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		err = enc.Encode(historyResponse{Operations: ops, Linearizable: h.Linearizable(linearizeTimeout),
			ClockNote: h.ClockNote(linearizeTimeout), Conflict: h.Conflict(linearizeTimeout), Summary: res.Summary, Verdict: engine.Verdict(res.Summary)})
		return &cached{body: buf.Bytes()}, err
	})
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, v.body)
}

// historyPage: GET /playground/history?s=SCENARIO is the run's lock
// history as the checker judged it: where it is not linearizable, the two
// operations that conflict, named and drawn on a time axis, with a link
// back to the run's timeline.
func (s *Server) historyPage(c echo.Context) error {
	v, err := s.sharedRun(c, "page", func(res *engine.Result) (*cached, error) {
		var buf bytes.Buffer
		err := HistoryPage(s.page("Lock history"), newHistoryView(c.QueryParam("s"), res.History())).Render(c.Request().Context(), &buf)
		return &cached{body: buf.Bytes()}, err
	})
	if err != nil {
		return err
	}
	return c.HTMLBlob(http.StatusOK, v.body)
}

// historyCheckHook, when a test sets it, is called just before the
// linearizability check of /api/history: the slot the run took must still
// be held then, since the check costs as much CPU as the run.
var historyCheckHook atomic.Pointer[func(*Server)]
