package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestRepeatedKeyRefused: an object that gives a field twice is refused,
// naming the field, instead of silently keeping the last value; at the
// top, deep inside a list, and spelt in another case (the decoder matches
// fields ignoring case). The same key in two different objects is fine.
func TestRepeatedKeyRefused(t *testing.T) {
	for _, tc := range []struct{ json, field string }{
		{`{"seed":1,"fencing":true,"fencing":false,"clients":[{"name":"c","steps":[{"do":"acquire"}]}]}`, "fencing"},
		{`{"seed":1,"clients":[{"name":"c","steps":[{"do":"work","for":"1s","for":"9s"}]}]}`, "clients[0].steps[0].for"},
		{`{"seed":1,"lock":{"lease":"10s","Lease":"1s"},"clients":[{"name":"c","steps":[{"do":"acquire"}]}]}`, "lock.Lease"},
	} {
		_, err := engine.DecodeScenario([]byte(tc.json))
		var fe *engine.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: got %v, want an error naming %s", tc.json, err, tc.field)
		}
	}
	ok := `{"seed":1,"clients":[{"name":"a","steps":[{"do":"acquire"}]},{"name":"b","steps":[{"do":"acquire"}]}]}`
	if _, err := engine.DecodeScenario([]byte(ok)); err != nil {
		t.Errorf("the same key in two objects: %v", err)
	}
}

// TestOversizedInputIsNotMisreported: a reader that stops one byte past
// the limit (as the CLI does) hands over exactly limit+1 bytes; the error
// must not claim that is the input's size.
func TestOversizedInputIsNotMisreported(t *testing.T) {
	data := make([]byte, engine.MaxScenarioSize+1)
	_, err := engine.DecodeScenario(data)
	if err == nil || contains(err.Error(), "65537") || !contains(err.Error(), "larger than 65536 bytes") {
		t.Errorf("got %v", err)
	}
}

// TestWordsWithoutAToken: Redlock hands out no token, so its events never
// speak of "token 0" or of releasing "no token".
func TestWordsWithoutAToken(t *testing.T) {
	res := mustRun(t, mustPreset(t, "redlock-clock-jump", false))
	for _, e := range res.Events {
		if d := engine.Describe(e); contains(d, "token 0") || contains(d, "released no token") {
			t.Errorf("%s at %d: %q", e.Kind, e.T, d)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
