package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/leaselab/playground/engine"
)

// A share link is /playground?s=SCENARIO&speed=S&from=PRESET where SCENARIO
// is the scenario's compact JSON in unpadded base64url: any timeline can be
// reopened from the URL alone, because the same scenario gives the same
// events. PRESET, if any, is the preset it was changed from: the page
// notes what changed. The link opens waiting at 0 s, its outcome folded,
// as a preset does; run=1 (links from a lesson the learner has just run)
// starts it at once.

// maxShareParam bounds the s parameter: a 64 KiB scenario in base64.
const maxShareParam = (engine.MaxScenarioSize*4 + 2) / 3

// MaxHeaderBytes is what an HTTP server in front of the handler must let
// a request's line and headers hold (http.Server.MaxHeaderBytes): a share
// link whose s is as long as it may be, and 16 KiB for the rest (the
// path, cookies, the other headers). Less, and the longest links the page
// makes would be refused by Go's server, before the handler, with a 431
// that names neither s nor its limit.
const MaxHeaderBytes = maxShareParam + 16<<10

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

// maxChangesShown bounds the note of what a shared scenario changed from
// its preset: past it, the note counts the rest.
const maxChangesShown = 6

// shareChanges lists what sc changes from the preset it was shared from,
// one setting a line in the scenario's own field names ("fencing: true,
// the preset has false"), so that a learner opening the link knows the
// preset's question and story describe a different run. Titles and notes
// are not settings and are left out.
func shareChanges(preset, sc engine.Scenario) []string {
	was, now := flatScenario(preset), flatScenario(sc)
	keys := make([]string, 0, len(was)+len(now))
	for k := range was {
		keys = append(keys, k)
	}
	for k := range now {
		if _, ok := was[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		a, inWas := was[k]
		b, inNow := now[k]
		switch {
		case inWas && inNow && a == b:
		case !inNow:
			out = append(out, fmt.Sprintf("%s removed (the preset has %s)", k, a))
		case !inWas:
			out = append(out, fmt.Sprintf("%s: %s (not in the preset)", k, b))
		default:
			out = append(out, fmt.Sprintf("%s: %s (the preset has %s)", k, b, a))
		}
	}
	if len(out) > maxChangesShown {
		out = append(out[:maxChangesShown-1], fmt.Sprintf("and %d more changes", len(out)-maxChangesShown+1))
	}
	return out
}

// flatScenario is sc's settings by path: "lock.lease", "clients[client-2].start",
// "faults" (the fault list as one value: its order is its meaning).
func flatScenario(sc engine.Scenario) map[string]string {
	sc.Title, sc.Question, sc.Watch = "", "", ""
	data, _ := json.Marshal(sc)
	var v map[string]any
	_ = json.Unmarshal(data, &v)
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(joinPath(path, k), e)
			}
		case []any:
			if path == "clients" {
				for i, e := range x {
					name, _ := e.(map[string]any)["name"].(string)
					if name == "" {
						name = strconv.Itoa(i + 1)
					}
					walk("clients["+name+"]", e)
				}
				return
			}
			b, _ := json.Marshal(x)
			out[path] = string(b)
		default:
			b, _ := json.Marshal(x)
			out[path] = string(b)
		}
	}
	walk("", v)
	delete(out, "title")
	return out
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
