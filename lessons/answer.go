package lessons

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// MaxAnswerLen bounds an answer in bytes; a longer one is refused with a
// clear error before anything reads it.
const MaxAnswerLen = 2000

// Units an exercise's number is measured in. A learner may type the unit or
// leave it out; a unit of another kind ("50 s" for a count) is a format
// error, not a wrong answer, because the learner misread the question.
const (
	UnitCount     = "count"      // runs, locks, grants; also a ratio: 45x, 45 times
	UnitSeconds   = "seconds"    // 20 s, 15 min, 400 ms, 1 h; a bare number is seconds
	UnitRupees    = "rupees"     // Rs 42,000, ₹42000, 42,000 rupees
	UnitPerSecond = "per_second" // 2,000, 2,000 writes/s, 120,000 a minute
)

// formatError is an answer the checker could not read. It costs no try.
type formatError struct{ msg string }

func (e *formatError) Error() string { return e.msg }

func formatErrorf(format string, args ...any) error {
	return &formatError{fmt.Sprintf(format, args...)}
}

var (
	// numberRE reads the first number: 2,000 or 2000 or 0.8 or .8, with an
	// optional k (thousand).
	numberRE = regexp.MustCompile(`^([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+)(k\b)?`)
	spacesRE = regexp.MustCompile(`\s+`)
	digitRE  = regexp.MustCompile(`\d`)
)

// approxWords are hedges people put before a number.
var approxWords = []string{"about ", "around ", "approximately ", "approx. ", "approx ", "roughly ", "~", "≈", "= ", "="}

// currencyWords are the ways of writing rupees before or after a number.
var currencyWords = []string{"rs.", "rs", "inr", "₹", "rupees", "rupee"}

// durationUnits converts a time unit to seconds.
var durationUnits = map[string]float64{
	"ms": 0.001, "millisecond": 0.001, "milliseconds": 0.001,
	"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
	"min": 60, "mins": 60, "minute": 60, "minutes": 60, "m": 60,
	"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
}

// rateUnits converts "per time" tails to per second.
var rateUnits = map[string]float64{
	"/s": 1, "/sec": 1, "/second": 1, "per second": 1, "per sec": 1, "a second": 1, "each second": 1, "every second": 1, "per s": 1, "ps": 1,
	"/min": 1.0 / 60, "per minute": 1.0 / 60, "a minute": 1.0 / 60, "per min": 1.0 / 60, "/minute": 1.0 / 60,
}

// countWords are accepted after any count: a ratio or a plain number.
var countWords = []string{"x", "×", "times", "times longer", "fold", "-fold", "times as long"}

// parsedNumber is what the checker read from an answer.
type parsedNumber struct {
	value float64 // in the exercise's canonical unit
	read  string  // how it was read, for feedback ("900 s")
	step  float64 // the precision typed (0.001 for "0.022"), in the canonical unit
}

// parseNumber reads a numeric answer the way people type it, in the unit
// of the exercise. words are extra unit words the exercise accepts ("runs",
// "writes").
func parseNumber(answer, unit string, words []string) (parsedNumber, error) {
	s := strings.ToLower(strings.TrimSpace(answer))
	s = spacesRE.ReplaceAllString(s, " ")
	s = strings.TrimRight(s, ".!")
	if s == "" {
		return parsedNumber{}, formatErrorf("The answer is empty: type a number, like %s.", example(unit))
	}
	for changed := true; changed; {
		changed = false
		for _, w := range approxWords {
			if strings.HasPrefix(s, w) {
				s, changed = strings.TrimSpace(s[len(w):]), true
			}
		}
	}
	if unit == UnitSeconds {
		// A Go-style duration: "1m30s", "15m", "900s".
		if d, err := time.ParseDuration(strings.ReplaceAll(s, " ", "")); err == nil && strings.ContainsAny(s, "hms") {
			v := d.Seconds()
			return parsedNumber{v, formatNumber(v) + " s", 0.001}, nil
		}
	}
	currency := false
	for _, c := range currencyWords {
		if strings.HasPrefix(s, c) {
			rest := strings.TrimSpace(s[len(c):])
			if rest != "" && (digitRE.MatchString(rest[:1]) || rest[0] == '.' || rest[0] == '-') {
				s, currency = rest, true
				break
			}
		}
	}
	m := numberRE.FindStringSubmatch(s)
	if m == nil {
		return parsedNumber{}, formatErrorf("I could not read a number in %q. Type it in digits, like %s.", clip(answer), example(unit))
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	if err != nil {
		return parsedNumber{}, formatErrorf("I could not read %q as a number. Type it in digits, like %s.", m[1], example(unit))
	}
	step := 1.0
	if _, frac, ok := strings.Cut(m[1], "."); ok {
		step = math.Pow(10, -float64(len(frac)))
	}
	if m[2] != "" {
		v *= 1000
		step *= 1000
	}
	tail := strings.TrimSpace(s[len(m[0]):])
	if digitRE.MatchString(tail) {
		return parsedNumber{}, formatErrorf("Give one number, not several: I read %s and then %q.", m[1], clip(tail))
	}
	if currency && unit != UnitRupees {
		return parsedNumber{}, formatErrorf("This answer is %s, not an amount of money.", describeUnit(unit))
	}
	tail = stripWords(tail, words)
	switch unit {
	case UnitRupees:
		for _, c := range currencyWords {
			if tail == c {
				tail = ""
			}
		}
		if tail == "" {
			return parsedNumber{v, "Rs " + formatNumber(v), step}, nil
		}
	case UnitSeconds:
		if tail == "" {
			return parsedNumber{v, formatNumber(v) + " s", step}, nil
		}
		if f, ok := durationUnits[tail]; ok {
			return parsedNumber{v * f, formatNumber(v*f) + " s", step * f}, nil
		}
	case UnitPerSecond:
		if tail == "" {
			return parsedNumber{v, formatNumber(v) + " a second", step}, nil
		}
		if f, ok := rateUnits[tail]; ok {
			return parsedNumber{v * f, formatNumber(v*f) + " a second", step * f}, nil
		}
	default:
		if tail == "" || contains(countWords, tail) {
			return parsedNumber{v, formatNumber(v), step}, nil
		}
	}
	if _, ok := durationUnits[tail]; ok && unit != UnitSeconds {
		return parsedNumber{}, formatErrorf("%q is a unit of time, but this answer is %s.", tail, describeUnit(unit))
	}
	if _, ok := rateUnits[tail]; ok {
		return parsedNumber{}, formatErrorf("%q is a rate, but this answer is %s.", tail, describeUnit(unit))
	}
	return parsedNumber{}, formatErrorf("I read the number %s but not the unit %q: this answer is %s, like %s.", m[1], clip(tail), describeUnit(unit), example(unit))
}

// stripWords removes the exercise's own unit words ("runs", "writes") from
// the start of a unit tail, so "2,000 writes/s" and "50 runs" read cleanly.
func stripWords(tail string, words []string) string {
	// Longest first, so "lock writes" wins over "writes".
	sorted := append([]string(nil), words...)
	sort.Slice(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	for _, w := range sorted {
		w = strings.ToLower(w)
		switch {
		case tail == w:
			return ""
		case strings.HasPrefix(tail, w+" "):
			return strings.TrimSpace(tail[len(w):])
		case strings.HasPrefix(tail, w+"/"):
			return tail[len(w):]
		}
	}
	return tail
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func describeUnit(unit string) string {
	switch unit {
	case UnitSeconds:
		return "a length of time"
	case UnitRupees:
		return "an amount in rupees"
	case UnitPerSecond:
		return "a number per second"
	}
	return "a plain number"
}

func example(unit string) string {
	switch unit {
	case UnitSeconds:
		return `"20 s" or "15 min"`
	case UnitRupees:
		return `"Rs 42,000"`
	case UnitPerSecond:
		return `"2,000" or "2,000 writes/s"`
	}
	return `"50" or "45x"`
}

// clip shortens what is quoted back to the learner.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// formatNumber writes a number the way the lessons do: thousands
// separators, at most three decimals, no trailing zeros.
func formatNumber(v float64) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// formatIn writes a value with its unit, as the checker's own answer would
// be typed.
func formatIn(v float64, unit string) string {
	switch unit {
	case UnitSeconds:
		return formatNumber(v) + " s"
	case UnitRupees:
		return "Rs " + formatNumber(v)
	case UnitPerSecond:
		return formatNumber(v) + " a second"
	}
	return formatNumber(v)
}
