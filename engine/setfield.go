package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// SetField changes one field of a scenario by its path, as in
// "lock.lease=20s", "clients[1].renew_every=1s" or
// "clients[client-1].renew_every=1s" (a list element by index or by name).
// The value is read as JSON when it is JSON ("true", "3", "{...}") and as a
// string otherwise ("20s"). The result is decoded strictly, so an unknown
// field or a wrong type gets the usual field-naming error.
func SetField(sc Scenario, path, value string) (Scenario, error) {
	if path == "" {
		return sc, fieldErr("set", "the path is empty: write it like lock.lease=20s")
	}
	raw, err := json.Marshal(sc)
	if err != nil {
		return sc, err
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return sc, err
	}
	var v any
	vd := json.NewDecoder(strings.NewReader(value))
	vd.UseNumber()
	if err := vd.Decode(&v); err != nil || vd.More() {
		v = value
	}
	root, err = setPath(root, splitPath(path), v, path)
	if err != nil {
		return sc, err
	}
	out, err := json.Marshal(root)
	if err != nil {
		return sc, err
	}
	return DecodeScenario(out)
}

// splitPath turns "clients[1].steps[0].for" into clients, [1], steps, [0], for.
func splitPath(p string) []string {
	var parts []string
	for _, seg := range strings.Split(p, ".") {
		for seg != "" {
			i := strings.IndexByte(seg, '[')
			if i < 0 {
				parts = append(parts, seg)
				break
			}
			if i > 0 {
				parts = append(parts, seg[:i])
			}
			j := strings.IndexByte(seg, ']')
			if j < i {
				parts = append(parts, seg[i:])
				break
			}
			parts = append(parts, seg[i:j+1])
			seg = seg[j+1:]
		}
	}
	return parts
}

func setPath(node any, parts []string, v any, full string) (any, error) {
	if len(parts) == 0 {
		return v, nil
	}
	head := parts[0]
	if strings.HasPrefix(head, "[") {
		list, ok := node.([]any)
		if !ok {
			return nil, fieldErr(full, "%s is not a list", head)
		}
		key := strings.TrimSuffix(strings.TrimPrefix(head, "["), "]")
		idx, err := strconv.Atoi(key)
		if err != nil {
			idx = -1
			for i, el := range list {
				if m, ok := el.(map[string]any); ok && m["name"] == key {
					idx = i
				}
			}
			if idx < 0 {
				return nil, fieldErr(full, "no element is named %q", key)
			}
		}
		if idx == len(list) {
			list = append(list, map[string]any{})
		}
		if idx < 0 || idx >= len(list) {
			return nil, fieldErr(full, "index %d is out of range (the list has %d)", idx, len(list))
		}
		el, err := setPath(list[idx], parts[1:], v, full)
		if err != nil {
			return nil, err
		}
		list[idx] = el
		return list, nil
	}
	m, ok := node.(map[string]any)
	if node == nil {
		m, ok = map[string]any{}, true
	}
	if !ok {
		return nil, fieldErr(full, "%s is not an object", head)
	}
	child, err := setPath(m[head], parts[1:], v, full)
	if err != nil {
		return nil, err
	}
	m[head] = child
	return m, nil
}

// String is a short description for logs.
func (sc Scenario) String() string {
	return fmt.Sprintf("%q (%d clients, %s, fencing %v)", sc.Title, len(sc.Clients), sc.Lock.Backend, sc.Fencing)
}
