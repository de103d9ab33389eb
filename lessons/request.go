package lessons

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// DecodeAttempt reads a check request body for an exercise, bounded in
// size and strict about its fields. Every error is an *InputError, meant as
// a 400 with its message.
func DecodeAttempt(exerciseID string, body io.Reader) (Attempt, error) {
	data, err := io.ReadAll(io.LimitReader(body, MaxRequestSize+1))
	if err != nil {
		return Attempt{}, &InputError{fmt.Sprintf("reading the request: %v", err)}
	}
	if len(data) > MaxRequestSize {
		return Attempt{}, &InputError{fmt.Sprintf("the request is over %d bytes; an answer may have at most %d characters", MaxRequestSize, MaxAnswerLen)}
	}
	var req CheckRequest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Attempt{}, &InputError{fmt.Sprintf("%s: must be a %s", te.Field, te.Type)}
		}
		return Attempt{}, &InputError{`send {"answer": "...", "variant": N}: ` + err.Error()}
	}
	if req.Tries < 0 || req.Tries > 1000 {
		return Attempt{}, &InputError{"tries: must be between 0 and 1000"}
	}
	return Attempt{Exercise: exerciseID, Answer: req.Answer, Variant: req.Variant, Tries: req.Tries}, nil
}
