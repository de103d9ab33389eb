package web

import (
	"strconv"
	"strings"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
)

// The bounds of the values that more than one route or message reads are
// checked here, once, so the same mistake gets the same answer wherever
// it is made: a speed on a share link, in a websocket's start or speed
// message; a variant in a query or a body. Values are shown as sent.

// checkSpeed says whether a speed is one a run can go at.
func checkSpeed(f float64, sent string) error {
	if f < 0 || f > engine.MaxSpeed || f != f {
		return badRequest("speed", "must be a number between 0 (as fast as possible) and %g, not %s", engine.MaxSpeed, sent)
	}
	return nil
}

// checkVariant says whether a variant is one an exercise has.
func checkVariant(v int, sent string) error {
	if v < 0 || v > lessons.MaxVariant {
		return badRequest("variant", "must be a whole number between 0 and %d, not %s", lessons.MaxVariant, sent)
	}
	return nil
}

// boundOnDecode is the bounded field's own error for a JSON value that
// would not even decode into it (value as encoding/json names it: "number
// 1e400", "string"), so that a number too large for its type hears the
// same range as one merely out of it; nil for a field with no such check.
func boundOnDecode(field, value string) error {
	sent, isNumber := strings.CutPrefix(value, "number ")
	if !isNumber {
		sent = "a " + value
	}
	switch field {
	case "variant":
		return checkVariant(-1, sent)
	case "speed":
		return checkSpeed(-1, sent)
	}
	return nil
}

// formatNumber writes a number as it was most likely sent.
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
