package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
)

// Error codes: the kind of a problem, the same word in a JSON error body
// and in a websocket error message.
const (
	codeInvalid      = "invalid"      // 400: a field is malformed or out of bounds
	codeUnauthorized = "unauthorized" // 401
	codeForbidden    = "forbidden"    // 403
	codeNotFound     = "not_found"    // 404
	codeConflict     = "conflict"     // 409
	codeTooLarge     = "too_large"    // 413
	codeMediaType    = "media_type"   // 415
	codeRateLimited  = "rate_limited" // 429
	codeBusy         = "busy"         // 503: every slot taken, or a run took too long
	codeUnavailable  = "unavailable"  // 503: the class database failed or did not answer
	codeInternal     = "internal"     // 500: anything not known to be the user's doing
)

// internalMessage is all a user learns of an error that is not theirs.
const internalMessage = "internal error: sorry, something went wrong on our side; it has been logged"

// problem is what the web layer tells a user about an error: the HTTP
// status, the kind, the input at fault (if one is) and a message naming it
// ("lock.lease: must be between 100ms and 1h"), which is shown as it is.
type problem struct {
	Status  int
	Code    string
	Field   string
	Message string
}

// apiError is the JSON body of every failed API request.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
	Code  string `json:"code,omitempty"`
}

func (p problem) body() apiError { return apiError{Error: p.Message, Field: p.Field, Code: p.Code} }

// errBusy is returned when every live-run slot is taken.
var errBusy = errors.New("busy: the server is running as many simulations as it allows; try again in a minute")

// userError is the web layer's own bad input, which the user can fix.
// Status is 4xx (or 503 for "try again"); Code is optional and defaults to
// the status's kind.
type userError struct {
	Status int
	Code   string
	Field  string
	Msg    string
}

func (e *userError) Error() string { return withField(e.Field, e.Msg) }

func badRequest(field, format string, args ...any) error {
	return &userError{Status: http.StatusBadRequest, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// tooLarge is a 413 naming the limit.
func tooLarge(field string, limit int64, more string) error {
	return &userError{Status: http.StatusRequestEntityTooLarge, Field: field,
		Msg: fmt.Sprintf("is larger than the limit of %d bytes%s", limit, more)}
}

func withField(field, msg string) string {
	if field == "" {
		return msg
	}
	return field + ": " + msg
}

// mapError is the one place that decides what an error means to a user:
// its status, kind, field and message, for pages, JSON and the websocket
// alike. Each domain's errors carry their own field (engine.FieldError,
// lessons.InputError, classroom.Error, userError); anything else is a 500
// with a short apology, and the caller logs it.
func mapError(err error) problem {
	var (
		fe *engine.FieldError
		ie *lessons.InputError
		ce *classroom.Error
		ue *userError
		me *http.MaxBytesError
		he *echo.HTTPError
	)
	switch {
	case err == nil:
		return problem{}
	case errors.As(err, &ue):
		return newProblem(ue.Status, ue.Code, ue.Field, ue.Msg)
	case errors.As(err, &fe):
		return newProblem(http.StatusBadRequest, "", fe.Field, fe.Message)
	case errors.As(err, &ie):
		status := http.StatusBadRequest
		if ie.TooLarge {
			status = http.StatusRequestEntityTooLarge
		}
		return newProblem(status, "", ie.Field, ie.Msg)
	case errors.Is(err, lessons.ErrUnknown):
		return newProblem(http.StatusNotFound, "", "", err.Error())
	case errors.As(err, &ce):
		return classProblem(ce)
	case errors.Is(err, errBusy):
		return newProblem(http.StatusServiceUnavailable, codeBusy, "", errBusy.Error())
	case errors.As(err, &me):
		return newProblem(http.StatusRequestEntityTooLarge, "", "body", fmt.Sprintf("is larger than the limit of %d bytes", me.Limit))
	case errors.As(err, &he):
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok && m != "" {
			msg = m
		}
		if msg == "" {
			msg = "request failed"
		}
		return newProblem(he.Code, "", "", strings.ToLower(msg[:1])+msg[1:])
	}
	return problem{Status: http.StatusInternalServerError, Code: codeInternal, Message: internalMessage}
}

// classProblem maps a classroom error's code to its status (see
// classroom/doc.go). The store's message names the field first
// ("name: must be ..."), which becomes the problem's field.
func classProblem(ce *classroom.Error) problem {
	var status int
	switch ce.Code {
	case classroom.EINVALID:
		status = http.StatusBadRequest
	case classroom.EUNAUTHORIZED:
		status = http.StatusUnauthorized
	case classroom.EFORBIDDEN, classroom.ELIMIT:
		status = http.StatusForbidden
	case classroom.ENOTFOUND:
		status = http.StatusNotFound
	case classroom.ECONFLICT:
		status = http.StatusConflict
	case classroom.EUNAVAILABLE:
		// Under load a database times out or runs out of connections:
		// the server's trouble, and passing, so "try again", not a 500.
		return newProblem(http.StatusServiceUnavailable, codeUnavailable, "", ce.Message)
	default:
		return problem{Status: http.StatusInternalServerError, Code: codeInternal, Message: internalMessage}
	}
	msg, field := ce.Message, ""
	if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
		field, msg = msg[:i], msg[i+2:]
	}
	return newProblem(status, "", field, msg)
}

func newProblem(status int, code, field, msg string) problem {
	if code == "" {
		code = statusCode(status)
	}
	field = boundText(field, maxField)
	return problem{Status: status, Code: code, Field: field, Message: boundText(withField(field, msg), maxMessage)}
}

// statusCode is the kind of problem a status means.
func statusCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return codeInvalid
	case http.StatusUnauthorized:
		return codeUnauthorized
	case http.StatusForbidden:
		return codeForbidden
	case http.StatusNotFound:
		return codeNotFound
	case http.StatusConflict:
		return codeConflict
	case http.StatusRequestEntityTooLarge:
		return codeTooLarge
	case http.StatusUnsupportedMediaType:
		return codeMediaType
	case http.StatusTooManyRequests:
		return codeRateLimited
	case http.StatusServiceUnavailable:
		return codeBusy
	}
	if status >= 500 {
		return codeInternal
	}
	return codeInvalid
}

// underField puts an error about a nested document under the request's
// field: an engine error about "clients[1].steps[3].for" in a pushed
// scenario becomes "scenario.clients[1].steps[3].for". A share link's own
// parameter s is the document itself, so it is not repeated. An error that
// is not the user's stays as it is.
func underField(prefix string, err error) error {
	p := mapError(err)
	if p.Code == codeInternal {
		return err
	}
	msg := strings.TrimPrefix(p.Message, p.Field+": ")
	f := prefix
	if p.Field != "" && p.Field != "s" {
		f = prefix + "." + p.Field
	}
	return &userError{Status: p.Status, Code: p.Code, Field: f, Msg: msg}
}

// handleError is echo's one error handler: JSON for the API, a page for
// everything else; only 500s are logged, with context.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	p := mapError(err)
	if p.Code == codeInternal || p.Code == codeUnavailable {
		s.log.Error("request failed", slog.String("method", c.Request().Method),
			slog.String("uri", loggedURI(c.Request().RequestURI)), slog.Any("err", err))
	}
	if p.Status == http.StatusServiceUnavailable && c.Response().Header().Get("Retry-After") == "" {
		c.Response().Header().Set("Retry-After", "30")
	}
	if strings.HasPrefix(c.Path(), "/api/") || strings.HasPrefix(c.Request().URL.Path, "/api/") {
		_ = c.JSON(p.Status, p.body())
		return
	}
	_ = s.render(c, p.Status, ErrorPage(s.page("Error"), p.Status, p.Message))
}
