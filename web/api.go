package web

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/engine"
)

// runResponse is the contract's timeline with the verdict in words and each
// event's description, so that a page needs no second request.
type runResponse struct {
	Events  []engine.Event `json:"events"`
	Summary engine.Summary `json:"summary"`
	Verdict string         `json:"verdict"`
	Heading engine.Heading `json:"heading"`
	// Scenario is the scenario run, with the engine's defaults filled in:
	// what a page draws the timeline from.
	Scenario engine.Scenario `json:"scenario"`
	// States are the run folded (Fold): what the page draws roles from.
	States []FoldedState `json:"states"`
	Texts  []string      `json:"texts"`
	// Messages are the run's messages (engine.Message), with
	// ?messages=1 only: kept apart from the timeline.
	Messages          []engine.Message `json:"messages,omitempty"`
	MessagesTruncated bool             `json:"messages_truncated,omitempty"`
}

func (s *Server) apiPresets(c echo.Context) error {
	return writeJSON(c, http.StatusOK, engine.Presets())
}

// apiRun runs a scenario (a JSON or YAML body, by its Content-Type) as
// fast as possible. The body is read and checked within its bounds (size,
// nesting) before it takes a place in the admission queue; the run then
// waits for a slot (QueueWait at most, then 503 with Retry-After) and runs
// for RunTimeout at most. The server's shutdown ends both.
func (s *Server) apiRun(c echo.Context) error {
	messages := false
	switch v := c.QueryParam("messages"); v {
	case "", "0":
	case "1":
		messages = true
	default:
		return badRequest("messages", "must be 1 or 0 (got %s)", excerpt(v))
	}
	body, err := s.readBody(c, scenarioTypes...)
	if err != nil {
		return err
	}
	if err := checkDepth("body", body); err != nil {
		return err
	}
	sc, err := engine.ParseScenario(body)
	if err != nil {
		return err
	}
	ctx, cancel := s.requestContext(c)
	defer cancel()
	t, err := s.acquireRun(ctx, c, workRun, s.requester(c))
	if err != nil {
		return err
	}
	defer t.Release()
	rctx, rcancel := context.WithTimeout(ctx, s.cfg.RunTimeout)
	defer rcancel()
	res, err := s.executeWith(rctx, sc, messages)
	if err != nil {
		return s.runError(c, err, s.cfg.RunTimeout)
	}
	s.noteClassRun(ctx, learnerToken(c), sc.Scenario())
	out := newRunResponse(sc.Scenario(), res)
	out.Messages, out.MessagesTruncated = res.Messages, res.MessagesTruncated
	return writeJSON(c, http.StatusOK, out)
}

func newRunResponse(sc engine.Scenario, res *engine.Result) runResponse {
	out := runResponse{Events: res.Events, Summary: res.Summary, Verdict: engine.Verdict(res.Summary),
		Heading: engine.HeadingOf(sc, res.Events, res.Summary, false), Scenario: sc, States: Fold(sc, res.Events), Texts: make([]string, len(res.Events))}
	for i, e := range res.Events {
		out.Texts[i] = engine.Describe(e)
	}
	return out
}

// writeJSON answers with v, keeping SQL's "<=" readable.
func writeJSON(c echo.Context, status int, v any) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	c.Response().WriteHeader(status)
	enc := json.NewEncoder(c.Response())
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// executeWith runs a scenario as execute does, keeping its messages when
// asked.
func (s *Server) executeWith(ctx context.Context, p *engine.Prepared, messages bool) (*engine.Result, error) {
	if !messages {
		return s.execute(ctx, p)
	}
	r, err := engine.Start(ctx, p, engine.Options{Pool: s.pool, Messages: true})
	if err != nil {
		return nil, err
	}
	return r.Wait()
}
