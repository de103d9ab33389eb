package lessons

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// MaxRequestSize bounds the body of a check request: an answer of
// MaxAnswerLen characters, JSON-escaped, and a little more.
const MaxRequestSize = 8 * MaxAnswerLen

// CheckRequest is the body of POST /api/exercises/{id}/check.
type CheckRequest struct {
	Answer  string `json:"answer"`
	Variant int    `json:"variant"`
	Tries   int    `json:"tries"`
}

// checkRequestShape is how an error shows a well-formed check request.
const checkRequestShape = `send {"answer": "...", "variant": N, "tries": N}`

// DecodeAttempt reads a check request body for an exercise, bounded in
// size and strict about its fields. Every error is an *InputError naming
// the field at fault ("body" for the request as a whole), meant as a 400
// with its message, or a 413 when TooLarge is set.
func DecodeAttempt(exerciseID string, body io.Reader) (Attempt, error) {
	data, err := io.ReadAll(io.LimitReader(body, MaxRequestSize+1))
	if err != nil {
		return Attempt{}, &InputError{Field: "body", Msg: fmt.Sprintf("could not be read: %v", err)}
	}
	if len(data) > MaxRequestSize {
		return Attempt{}, &InputError{Field: "body", TooLarge: true,
			Msg: fmt.Sprintf("is larger than the limit of %d bytes; an answer may have at most %d characters", MaxRequestSize, MaxAnswerLen)}
	}
	var req CheckRequest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return Attempt{}, decodeError(err)
	}
	if dec.More() {
		return Attempt{}, &InputError{Field: "body", Msg: "has more than one JSON value; " + checkRequestShape}
	}
	if req.Tries < 0 || req.Tries > 1000 {
		return Attempt{}, &InputError{Field: "tries", Msg: fmt.Sprintf("must be between 0 and 1000, not %d", req.Tries)}
	}
	// A request names practice variants only: a class learner's own is
	// the server's to supply.
	if err := CheckPracticeVariant(req.Variant); err != nil {
		return Attempt{}, err
	}
	return Attempt{Exercise: exerciseID, Answer: req.Answer, Variant: req.Variant, Tries: req.Tries}, nil
}

// decodeError turns a JSON decoding error into an InputError that names the
// field and says in words what it must be.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return &InputError{Field: "body", Msg: "must be a JSON object; " + checkRequestShape}
		}
		return &InputError{Field: te.Field, Msg: "must be " + jsonKind(te.Type.Kind())}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &InputError{Field: strings.Trim(name, `"`), Msg: "is not a field of a check request; " + checkRequestShape}
	}
	if errors.Is(err, io.EOF) {
		return &InputError{Field: "body", Msg: "is empty; " + checkRequestShape}
	}
	return &InputError{Field: "body", Msg: "is not valid JSON (" + strings.TrimPrefix(err.Error(), "json: ") + "); " + checkRequestShape}
}

// jsonKind names the kind of JSON value a Go kind is decoded from.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return "a " + k.String()
}
