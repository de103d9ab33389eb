package lessons

import (
	"regexp"
	"strconv"
	"strings"
)

// A scenario form takes the words its own hints and ranges use: a switch
// as on/off, yes/no or true/false; a duration with or without a space and
// with its unit in words ("400 ms", "15 s", "2 minutes"), or a bare number
// in seconds; a choice in any case, with spaces for dashes
// ("Async Replica"); a number of nodes as "5 nodes". normalizeValue
// rewrites such a value into the form the engine reads, and leaves
// anything it does not recognise for checkField to refuse.

var (
	durationPartRE = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*([a-zµ]*)`)
	durationWordRE = regexp.MustCompile(`^(?:\d+(?:\.\d+)?\s*[a-zµ]*\s*)+$`)
)

// durationUnits are unit words and the engine's spelling of them.
var durationUnits = map[string]string{
	"": "s", "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
	"ms": "ms", "msec": "ms", "msecs": "ms", "millisecond": "ms", "milliseconds": "ms",
	"m": "m", "min": "m", "mins": "m", "minute": "m", "minutes": "m",
	"h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
}

// normalizeValue rewrites one learner value for a field (see above).
func normalizeValue(f Field, v string) string {
	s := strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(v), `"'`)))
	switch {
	case f.Unit == "on/off":
		switch s {
		case "on", "yes", "true", "y":
			return "true"
		case "off", "no", "false", "n":
			return "false"
		}
	case len(f.Choices) > 0:
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(s, "nodes"), "node"))
		s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '_' || r == '-' }), "-")
		for _, c := range f.Choices {
			if strings.EqualFold(c, s) {
				return c
			}
		}
	case f.Unit == "duration":
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return s + "s" // a bare number is seconds
		}
		if !durationWordRE.MatchString(s) {
			break
		}
		out, ok := "", true
		for _, m := range durationPartRE.FindAllStringSubmatch(s, -1) {
			u, known := durationUnits[m[2]]
			ok = ok && known
			out += m[1] + u
		}
		if ok && out != "" {
			return out
		}
	}
	return strings.TrimSpace(v)
}
