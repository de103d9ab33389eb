package lessons

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/leaselab/playground/engine"
)

// fieldValue is the value a scenario has at a field's path
// ("clients[client-1].renew_every" is "3s"), written as a form shows it,
// or "" when the scenario leaves it unset. A form field that starts
// empty over a set value would tell the learner, beside its "empty: never
// renews", something the checker does not run.
func fieldValue(sc engine.Scenario, path string) string {
	raw, err := json.Marshal(sc)
	if err != nil {
		return ""
	}
	var node any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&node) != nil {
		return ""
	}
	for _, part := range pathParts(path) {
		switch n := node.(type) {
		case map[string]any:
			node = n[part]
		case []any:
			node = listElement(n, strings.Trim(part, "[]"))
		default:
			return ""
		}
	}
	switch v := node.(type) {
	case string:
		return v
	case bool, json.Number:
		return fmt.Sprint(v)
	}
	return ""
}

// pathParts splits "clients[client-1].steps[2].for" into clients,
// [client-1], steps, [2], for.
func pathParts(path string) []string {
	var out []string
	for _, seg := range strings.Split(path, ".") {
		for seg != "" {
			i := strings.IndexByte(seg, '[')
			j := strings.IndexByte(seg, ']')
			if i < 0 || j < i {
				out = append(out, seg)
				break
			}
			if i > 0 {
				out = append(out, seg[:i])
			}
			out = append(out, seg[i:j+1])
			seg = seg[j+1:]
		}
	}
	return out
}

// listElement is a list's element by index or by name, or nil.
func listElement(list []any, key string) any {
	if i, err := strconv.Atoi(key); err == nil {
		if i >= 0 && i < len(list) {
			return list[i]
		}
		return nil
	}
	for _, el := range list {
		if m, ok := el.(map[string]any); ok && m["name"] == key {
			return el
		}
	}
	return nil
}
