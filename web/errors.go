package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/engine"
)

// apiError is the JSON body of every failed API request. Field names the
// input at fault, when one is.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

// errBusy is returned when every live-run slot is taken.
var errBusy = errors.New("busy: the server is running as many simulations as it allows; try again in a minute")

// userError is bad input that the user can fix; Status is 4xx.
type userError struct {
	Status int
	Field  string
	Msg    string
}

func (e *userError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func badRequest(field, format string, args ...any) error {
	return &userError{Status: http.StatusBadRequest, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// classify maps an error to a status and what the user may see. Anything
// not known to be the user's doing is a 500 with a short apology.
func classify(err error) (int, apiError) {
	var fe *engine.FieldError
	var ue *userError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &fe):
		return http.StatusBadRequest, apiError{Error: fe.Error(), Field: fe.Field}
	case errors.As(err, &ue):
		return ue.Status, apiError{Error: ue.Error(), Field: ue.Field}
	case errors.Is(err, errBusy):
		return http.StatusServiceUnavailable, apiError{Error: errBusy.Error()}
	case errors.As(err, &he):
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok && m != "" {
			msg = m
		}
		if msg == "" {
			msg = "request failed"
		}
		return he.Code, apiError{Error: strings.ToLower(msg[:1]) + msg[1:]}
	}
	return http.StatusInternalServerError, apiError{Error: "internal error: sorry, something went wrong on our side; it has been logged"}
}

// handleError is echo's one error handler: JSON for the API, a page for
// everything else; only 500s are logged, with context.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, body := classify(err)
	if status >= 500 && !errors.Is(err, errBusy) {
		s.log.Error("request failed", slog.String("method", c.Request().Method),
			slog.String("uri", c.Request().RequestURI), slog.Any("err", err))
	}
	if status == http.StatusServiceUnavailable {
		c.Response().Header().Set("Retry-After", "30")
	}
	if strings.HasPrefix(c.Path(), "/api/") || strings.HasPrefix(c.Request().URL.Path, "/api/") {
		_ = c.JSON(status, body)
		return
	}
	_ = s.render(c, status, ErrorPage(s.page("Error"), status, body.Error))
}
