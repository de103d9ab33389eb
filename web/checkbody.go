package web

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/lessons"
)

// checkBody is the body of POST /api/exercises/{id}/check.
type checkBody struct {
	Answer  string `json:"answer"`
	Variant int    `json:"variant"`
	// Tries is accepted from old clients and ignored: the server counts.
	Tries int `json:"tries"`
}

// readAttempt reads a check's body with the server's one JSON reader:
// bounded by --max-body-bytes like every other body, strict about its
// fields, its errors worded like every other. The answer's own bound
// (lessons.MaxAnswerLen) is the checker's to say.
func (s *Server) readAttempt(c echo.Context, exerciseID string) (lessons.Attempt, error) {
	var b checkBody
	if err := s.readJSON(c, &b); err != nil {
		return lessons.Attempt{}, err
	}
	if err := checkVariant(b.Variant, strconv.Itoa(b.Variant)); err != nil {
		return lessons.Attempt{}, err
	}
	if b.Tries < 0 || b.Tries > 1000 {
		return lessons.Attempt{}, badRequest("tries", "must be between 0 and 1000, not %d", b.Tries)
	}
	return lessons.Attempt{Exercise: exerciseID, Answer: b.Answer, Variant: b.Variant, Tries: b.Tries}, nil
}
