package web

import (
	"context"
	"encoding/json"
	"errors"
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
	Texts   []string       `json:"texts"`
}

func (s *Server) apiPresets(c echo.Context) error {
	return writeJSON(c, http.StatusOK, engine.Presets())
}

// apiRun runs a scenario (a JSON or YAML body, by its Content-Type) as
// fast as possible.
func (s *Server) apiRun(c echo.Context) error {
	body, err := s.readBody(c, scenarioTypes...)
	if err != nil {
		return err
	}
	sc, err := engine.ParseScenario(body)
	if err != nil {
		return err
	}
	if !s.runs.tryAcquire() {
		return errBusy
	}
	defer s.runs.release()
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.RunTimeout)
	defer cancel()
	res, err := engine.Execute(ctx, sc)
	if errors.Is(err, context.DeadlineExceeded) {
		return &userError{Status: http.StatusServiceUnavailable, Msg: "the run took longer than " + s.cfg.RunTimeout.String() + "; the server may be busy, try again"}
	}
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, newRunResponse(res))
}

func newRunResponse(res *engine.Result) runResponse {
	out := runResponse{Events: res.Events, Summary: res.Summary, Verdict: engine.Verdict(res.Summary), Texts: make([]string, len(res.Events))}
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
