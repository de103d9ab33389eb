package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
)

// TestMapErrorDecidesStatusKindFieldAndMessage holds every domain's
// errors to one mapping: the field each error carries comes out as the
// problem's field and as the head of its message, wrapped or not; what is
// not the user's doing is a 500 that tells nothing of the cause.
func TestMapErrorDecidesStatusKindFieldAndMessage(t *testing.T) {
	sqlErr := errors.New("sql: database is locked at /var/lib/x.db")
	for _, tc := range []struct {
		name string
		err  error
		want problem
	}{
		{"engine field", &engine.FieldError{Field: "lock.lease", Message: "must be between 100ms and 1h"},
			problem{400, "invalid", "lock.lease", "lock.lease: must be between 100ms and 1h"}},
		{"engine field, wrapped", fmt.Errorf("preset x: %w", &engine.FieldError{Field: "until", Message: "must be positive"}),
			problem{400, "invalid", "until", "until: must be positive"}},
		{"lesson input", &lessons.InputError{Field: "variant", Msg: "must be a whole number"},
			problem{400, "invalid", "variant", "variant: must be a whole number"}},
		{"lesson input too large", &lessons.InputError{Field: "body", Msg: "is larger than the limit of 16000 bytes", TooLarge: true},
			problem{413, "too_large", "body", "body: is larger than the limit of 16000 bytes"}},
		{"unknown exercise", fmt.Errorf("exercise %q: %w", "nope", lessons.ErrUnknown),
			problem{404, "not_found", "", `exercise "nope": not found`}},
		{"class invalid names its field", classroom.Errorf(classroom.EINVALID, "name: must be at most 40 characters"),
			problem{400, "invalid", "name", "name: must be at most 40 characters"}},
		{"class sentence has no field", classroom.Errorf(classroom.ENOTFOUND, "no class has the code K7QX2M"),
			problem{404, "not_found", "", "no class has the code K7QX2M"}},
		{"class unauthorized", classroom.Errorf(classroom.EUNAUTHORIZED, "a teacher key is required"),
			problem{401, "unauthorized", "", "a teacher key is required"}},
		{"class limit", classroom.Errorf(classroom.ELIMIT, "the class has 500 learners, the most it may have"),
			problem{403, "forbidden", "", "the class has 500 learners, the most it may have"}},
		{"class conflict", classroom.Errorf(classroom.ECONFLICT, "name: Ada is taken"),
			problem{409, "conflict", "name", "name: Ada is taken"}},
		{"class internal", classroom.Errorf(classroom.EINTERNAL, "disk full"),
			problem{500, "internal", "", internalMessage}},
		{"class store unavailable", classroom.Unavailable("record the answer", sqlErr),
			problem{503, "unavailable", "", classroom.Unavailable("record the answer", nil).Message}},
		{"web input", badRequest("speed", "must be a number"),
			problem{400, "invalid", "speed", "speed: must be a number"}},
		{"web input with its own kind", &userError{Status: 400, Code: "bad_message", Field: "type", Msg: "unknown"},
			problem{400, "bad_message", "type", "type: unknown"}},
		{"media type", &userError{Status: 415, Field: "Content-Type", Msg: "must be application/json"},
			problem{415, "media_type", "Content-Type", "Content-Type: must be application/json"}},
		{"busy", errBusy, problem{503, "busy", "", errBusy.Error()}},
		{"busy, wrapped", fmt.Errorf("run: %w", errBusy), problem{503, "busy", "", errBusy.Error()}},
		{"body over MaxBytesReader", &http.MaxBytesError{Limit: 2048},
			problem{413, "too_large", "body", "body: is larger than the limit of 2048 bytes"}},
		{"echo 404", echo.ErrNotFound, problem{404, "not_found", "", "not Found"}},
		{"echo 405", echo.ErrMethodNotAllowed, problem{405, "invalid", "", "method Not Allowed"}},
		{"anything else", sqlErr, problem{500, "internal", "", internalMessage}},
		{"a cancelled context", context.Canceled, problem{500, "internal", "", internalMessage}},
	} {
		if got := mapError(tc.err); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

// TestUnderFieldNestsTheField: a pushed scenario's errors are named from
// the request's own field, whichever domain they come from.
func TestUnderFieldNestsTheField(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want problem
	}{
		{&engine.FieldError{Field: "clients[1].steps[3].for", Message: "must be positive"},
			problem{400, "invalid", "scenario.clients[1].steps[3].for", "scenario.clients[1].steps[3].for: must be positive"}},
		{badRequest("s", "is not a scenario link"), problem{400, "invalid", "scenario", "scenario: is not a scenario link"}},
		{&userError{Status: 413, Msg: "too big"}, problem{413, "too_large", "scenario", "scenario: too big"}},
	} {
		if got := mapError(underField("scenario", tc.err)); got != tc.want {
			t.Errorf("%v:\n got %+v\nwant %+v", tc.err, got, tc.want)
		}
	}
	internal := errors.New("boom")
	if got := underField("scenario", internal); got != internal {
		t.Errorf("an internal error was turned into %v", got)
	}
}
