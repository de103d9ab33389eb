package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/leaselab/playground/engine"
)

// A share link is /playground?s=SCENARIO&speed=S&run=1 where SCENARIO is the
// scenario's compact JSON in unpadded base64url: any timeline can be reopened
// from the URL alone, because the same scenario gives the same events.

// maxShareParam bounds the s parameter: a 64 KiB scenario in base64.
const maxShareParam = (engine.MaxScenarioSize*4 + 2) / 3

// EncodeShare encodes a scenario for a share link.
func EncodeShare(sc engine.Scenario) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sc); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(bytes.TrimSpace(buf.Bytes())), nil
}

// DecodeShare reads the s parameter of a share link; errors name it.
func DecodeShare(s string) (engine.Scenario, error) {
	if len(s) > maxShareParam {
		return engine.Scenario{}, badRequest("s", "the shared scenario is %d characters; at most %d are accepted", len(s), maxShareParam)
	}
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return engine.Scenario{}, badRequest("s", "is not a scenario link (bad base64url at character %s)", strconv.Itoa(offset(err)))
	}
	sc, err := engine.DecodeScenario(data)
	if err != nil {
		return engine.Scenario{}, err
	}
	if _, err := engine.Prepare(sc); err != nil {
		return engine.Scenario{}, err
	}
	return sc, nil
}

func offset(err error) int {
	if ce, ok := err.(base64.CorruptInputError); ok {
		return int(ce)
	}
	return 0
}

// parseSpeed reads a speed parameter: empty means def.
func parseSpeed(v string, def float64) (float64, error) {
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		f = -1 // not a number: refused with the range's words
	}
	if err := checkSpeed(f, excerpt(v)); err != nil {
		return 0, err
	}
	return f, nil
}
