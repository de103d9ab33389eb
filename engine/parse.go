package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// ParseScenario reads a scenario from JSON or YAML (the same field names),
// rejects unknown fields and oversized input, fills in defaults and
// validates it. Every error names the field at fault. The same bytes give
// the same Prepared (parsecache.go); it is safe to share, as a Prepared
// never changes.
func ParseScenario(data []byte) (*Prepared, error) {
	gen := RegistryGeneration()
	if p := parsed.get(data, gen); p != nil {
		return p, nil
	}
	p, err := parseScenario(data)
	if err != nil {
		return nil, err
	}
	parsed.put(data, gen, p)
	return p, nil
}

// parseScenario is ParseScenario without the cache.
func parseScenario(data []byte) (*Prepared, error) {
	sc, err := DecodeScenario(data)
	if err != nil {
		return nil, err
	}
	return Prepare(sc)
}

// DecodeScenario reads a scenario without filling in defaults or
// validating it.
func DecodeScenario(data []byte) (Scenario, error) {
	var sc Scenario
	if len(data) > MaxScenarioSize {
		if len(data) == MaxScenarioSize+1 {
			// A reader that stops one byte past the limit (the CLI, a
			// body limit) cannot say how big the input really was.
			return sc, fieldErr("scenario", "is larger than %d bytes, the most accepted", MaxScenarioSize)
		}
		return sc, fieldErr("scenario", "is %d bytes; at most %d are accepted", len(data), MaxScenarioSize)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return sc, fieldErr("scenario", "is empty")
	}
	if trimmed[0] != '{' {
		j, err := yaml.YAMLToJSON(trimmed)
		if err != nil {
			return sc, fieldErr("scenario", "is neither JSON nor YAML: %v", err)
		}
		trimmed = j
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return sc, decodeErr(err, trimmed)
	}
	if err := repeatedKey(trimmed); err != nil {
		return sc, err
	}
	if dec.More() {
		return sc, fieldErr("scenario", "has more than one JSON value")
	}
	return sc, nil
}

// decodeErr turns a JSON decoding error into one that names the field,
// list indices included.
func decodeErr(err error, data []byte) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := pathAt(data, te.Offset)
		if field == "" {
			field = "scenario"
		}
		kind := jsonKind(te.Type.Kind().String())
		if kind == "a number" && strings.HasPrefix(te.Value, "number") {
			return fieldErr(field, "must be a whole number between -%d and %d, not %s", int64(MaxAmount), int64(MaxAmount), strings.TrimPrefix(te.Value, "number "))
		}
		return fieldErr(field, "must be %s, not %s", kind, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fieldErr("scenario", "is not valid JSON: it ends too early")
	case errors.As(err, &se):
		return fieldErr("scenario", "is not valid JSON at byte %d: %v", se.Offset, se)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return fieldErr(strings.Trim(name, `"`), "is not a scenario field")
	}
	return fieldErr("scenario", "%v", err)
}

func jsonKind(k string) string {
	switch k {
	case "int", "int64", "int32", "float64", "uint64":
		return "a number"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "slice":
		return "a list"
	case "struct", "map":
		return "an object"
	}
	return fmt.Sprintf("a %s", k)
}

// repeatedKey refuses an object that gives one key twice: the decoder
// would silently keep the last value. Keys are compared as the decoder
// matches them, ignoring case. The error names the key's full path.
//
// data is a JSON value the decoder already took, perhaps followed by
// more; only that first value is read. It is walked byte by byte rather
// than through a json.Decoder's tokens, which cost an allocation each and
// were half of a scenario's parsing: a class pressing Run together parses
// a thousand at once.
func repeatedKey(data []byte) error {
	var stack []jsonFrame
	var seen [][]string // each open object's keys so far, lower-cased (objects are small)
	for i := 0; i < len(data); {
		c := data[i]
		switch c {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
			continue
		}
		top := len(stack) - 1
		switch {
		case c == '}' || c == ']':
			if top < 0 {
				return nil
			}
			stack, seen = stack[:top], seen[:top]
			i++
		case top >= 0 && !stack[top].array && stack[top].isKey:
			key, next, ok := readJSONString(data, i)
			if !ok {
				return nil
			}
			i = next
			f := &stack[top]
			lower := strings.ToLower(key)
			for _, k := range seen[top] {
				if k == lower {
					f.key = key
					return fieldErr(jsonPath(stack), "is given twice in one object: give each field once")
				}
			}
			seen[top] = append(seen[top], lower)
			f.key, f.isKey = key, false
			continue
		default:
			if top >= 0 && stack[top].array {
				stack[top].index++
			}
			switch c {
			case '{':
				stack, seen = append(stack, jsonFrame{isKey: true}), append(seen, nil)
				i++
				continue
			case '[':
				stack, seen = append(stack, jsonFrame{array: true, index: -1}), append(seen, nil)
				i++
				continue
			case '"':
				_, next, ok := readJSONString(data, i)
				if !ok {
					return nil
				}
				i = next
			default: // a number, true, false or null: up to the next delimiter
				for i < len(data) && strings.IndexByte(" \t\n\r,:]}", data[i]) < 0 {
					i++
				}
			}
		}
		if len(stack) == 0 {
			return nil // the first value is whole
		}
		if n := len(stack); !stack[n-1].array {
			stack[n-1].isKey = true
		}
	}
	return nil
}

// jsonFrame is one open object or array on the way into a JSON value.
type jsonFrame struct {
	array bool
	index int    // the element being read (an array)
	key   string // the key being read, as written (an object)
	isKey bool   // the next string in this object is a key
}

// jsonPath names the value the open frames lead to, like
// "clients[1].steps[0].set".
func jsonPath(stack []jsonFrame) string {
	var b strings.Builder
	for _, f := range stack {
		if f.array {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		} else if f.key != "" {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
	}
	return b.String()
}

// readJSONString reads the JSON string that starts at data[i] (a quote) and
// returns its text and the offset just past it; ok is false if it does
// not end. A string with escapes or bytes that are not UTF-8 is decoded
// as the decoder would (which makes such bytes U+FFFD).
func readJSONString(data []byte, i int) (s string, next int, ok bool) {
	escaped := false
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			if raw := data[i+1 : j]; !escaped && utf8.Valid(raw) {
				return string(raw), j + 1, true
			}
			if err := json.Unmarshal(data[i:j+1], &s); err != nil {
				return "", 0, false
			}
			return s, j + 1, true
		}
	}
	return "", 0, false
}

// pathAt names the JSON value that ends at byte offset of data, like
// "clients[1].steps[0].set", by walking the tokens up to it.
func pathAt(data []byte, offset int64) string {
	var stack []jsonFrame
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return jsonPath(stack)
		}
		d, isDelim := tok.(json.Delim)
		closing := isDelim && (d == '}' || d == ']')
		top := len(stack) - 1
		switch {
		case closing:
			stack = stack[:top]
		case top >= 0 && !stack[top].array && stack[top].isKey:
			stack[top].key, stack[top].isKey = tok.(string), false
			continue
		case top >= 0 && stack[top].array:
			stack[top].index++ // a value starts: the list's next element
		}
		if isDelim && !closing {
			if d == '{' {
				stack = append(stack, jsonFrame{isKey: true})
			} else {
				stack = append(stack, jsonFrame{array: true, index: -1})
			}
			continue
		}
		// A value (or a container) just ended.
		if dec.InputOffset() >= offset {
			return jsonPath(stack)
		}
		if n := len(stack); n > 0 && !stack[n-1].array {
			stack[n-1].isKey = true
		}
	}
}
