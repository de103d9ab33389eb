package lti

import (
	"fmt"
	"net/http"
)

// Error is a refused LTI request: Status is 400 for a malformed request,
// 401 for a launch that failed a check (Field names the check: "state",
// "signature", "iss", "aud", "azp", "exp", "iat", "nonce",
// "deployment_id", "version", "message_type", or the claim at fault),
// 404 for an unknown platform or picker.
type Error struct {
	Status int
	Field  string
	Msg    string
}

func (e *Error) Error() string { return e.Field + ": " + e.Msg }

func failed(check, format string, args ...any) *Error {
	return &Error{Status: http.StatusUnauthorized, Field: check, Msg: fmt.Sprintf(format, args...)}
}

func invalid(field, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Field: field, Msg: fmt.Sprintf(format, args...)}
}
