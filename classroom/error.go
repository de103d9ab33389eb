package classroom

import (
	"errors"
	"fmt"
)

// Error codes. The web layer maps each to one HTTP status; anything that is
// not an *Error is an internal error, logged and shown as a short apology.
const (
	EINVALID      = "invalid"      // 400: a field is malformed or out of bounds
	EUNAUTHORIZED = "unauthorized" // 401: no credential, or one that matches nobody
	EFORBIDDEN    = "forbidden"    // 403: a credential, but not for this
	ENOTFOUND     = "not_found"    // 404: no such class or learner
	ECONFLICT     = "conflict"     // 409: a name already taken, joining closed
	ELIMIT        = "limit"        // 403: a storage limit of the shared server is reached
	EUNAVAILABLE  = "unavailable"  // 503: the database failed or did not answer; try again
	EINTERNAL     = "internal"     // 500: everything else
)

// Error is an error meant for the user: Code says what kind, Message says
// what was wrong and where, in words that can be shown as they are. Err is
// the cause, for logs only (a database error behind EUNAVAILABLE).
type Error struct {
	Code    string
	Message string
	Err     error
}

// Error returns the message with its code, and the cause, for logs.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("classroom %s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("classroom %s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrTriesUsed is the cause of Record's refusal of an attempt past its
// StopAfterWrong: an ECONFLICT *Error wraps it.
var ErrTriesUsed = errors.New("the tries this exercise takes are used")

// Unavailable is the EUNAVAILABLE error for a database that failed or
// did not answer while doing what ("record the answer"): the user is told
// to try again, the log gets the cause. A store failure under load is the
// server's trouble, passing, not a bug to apologise for with a 500.
func Unavailable(what string, err error) *Error {
	return &Error{Code: EUNAVAILABLE, Err: err,
		Message: fmt.Sprintf("the class database could not %s just now (the server is busy or restarting); try again in a few seconds", what)}
}

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the *Error in err's chain, EINTERNAL for any
// other error and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of the *Error in err's
// chain, and a generic one for anything else so that no internal detail
// (a SQL error, a file path) reaches a page.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	}
	return "Internal error."
}
