package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Duration is a span of simulated time in whole milliseconds. In JSON and
// YAML it is a Go duration string ("400ms", "10s", "1m30s").
//
// A value that does not parse is kept with its text, so that validation can
// report it with the field's full path instead of the decoder failing without
// one.
type Duration struct {
	ms      int64
	text    string
	set     bool
	invalid bool
	raw     string // the JSON of an invalid value, written back as it came
}

// Ms returns a duration of n milliseconds.
func Ms(n int64) Duration { return Duration{ms: n, set: true} }

// Sec returns a duration of n seconds.
func Sec(n int64) Duration { return Ms(n * 1000) }

// MS returns the duration in milliseconds (0 when unset).
func (d Duration) MS() int64 { return d.ms }

// IsSet reports whether the field was given.
func (d Duration) IsSet() bool { return d.set }

// IsZero reports whether the field was not given; it lets `omitzero` drop it.
func (d Duration) IsZero() bool { return !d.set }

// String formats the duration the way it is written in a scenario.
func (d Duration) String() string {
	if d.invalid {
		return d.text
	}
	return FormatMS(d.ms)
}

// FormatMS formats milliseconds as a Go duration string ("1m30s", "400ms").
func FormatMS(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).String()
}

// MarshalJSON writes the duration as a string, and an invalid value as
// it was given, so that a scenario holding one reads back the same (and
// fails validation the same way) however often it goes through JSON.
func (d Duration) MarshalJSON() ([]byte, error) {
	if d.invalid && d.raw != "" {
		return []byte(d.raw), nil
	}
	return json.Marshal(d.String())
}

// UnmarshalJSON reads a duration string; null leaves the field unset (so
// a form or --set can clear it). A bad value is remembered, not returned
// as an error: Validate reports it with the field's path.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = Duration{}
		return nil
	}
	*d = Duration{set: true}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		d.invalid, d.text, d.raw = true, string(b), string(b)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v%time.Millisecond != 0 {
		d.invalid, d.text, d.raw = true, strconv.Quote(s), string(b)
		return nil
	}
	d.ms = int64(v / time.Millisecond)
	return nil
}

// check validates a duration field against [min, max] milliseconds.
func (d Duration) check(path string, min, max int64) error {
	if !d.set {
		return nil
	}
	if d.invalid {
		return fieldErr(path, "%s is not a duration: write it like \"400ms\" or \"10s\" (whole milliseconds)", d.text)
	}
	if d.ms < min || d.ms > max {
		if min > 0 && d.ms <= 0 {
			return fieldErr(path, "must be positive (between %s and %s)", FormatMS(min), FormatMS(max))
		}
		return fieldErr(path, "must be between %s and %s, not %s", FormatMS(min), FormatMS(max), FormatMS(d.ms))
	}
	return nil
}

// FieldError is a validation error that names the field at fault.
type FieldError struct {
	Field   string // the path, e.g. "clients[1].steps[3].for"
	Message string // what is wrong and the bound
}

// Error reads "field: message".
func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

func fieldErr(path, format string, args ...any) error {
	return &FieldError{Field: path, Message: fmt.Sprintf(format, args...)}
}
