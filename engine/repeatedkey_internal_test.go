package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// repeatedKeyByTokens is repeatedKey as it was first written, walking a
// json.Decoder's tokens: slower, and kept here as the reference the byte
// walker must agree with (FuzzRepeatedKey, TestRepeatedKeyAgreesWithTokens).
func repeatedKeyByTokens(data []byte) error {
	type frame struct {
		array bool
		index int
		key   string
		isKey bool
		seen  map[string]bool
	}
	var stack []frame
	path := func() string {
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
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the data decoded already: only its end is left
		}
		d, isDelim := tok.(json.Delim)
		closing := isDelim && (d == '}' || d == ']')
		top := len(stack) - 1
		switch {
		case closing:
			stack = stack[:top]
		case top >= 0 && !stack[top].array && stack[top].isKey:
			key := tok.(string)
			if stack[top].seen[strings.ToLower(key)] {
				stack[top].key = key
				return fieldErr(path(), "is given twice in one object: give each field once")
			}
			stack[top].seen[strings.ToLower(key)] = true
			stack[top].key, stack[top].isKey = key, false
			continue
		case top >= 0 && stack[top].array:
			stack[top].index++
		}
		if isDelim && !closing {
			if d == '{' {
				stack = append(stack, frame{isKey: true, seen: map[string]bool{}})
			} else {
				stack = append(stack, frame{array: true, index: -1})
			}
			continue
		}
		if n := len(stack); n > 0 && !stack[n-1].array {
			stack[n-1].isKey = true
		}
	}
}

// sameVerdict reports whether the two walkers agree on data: both accept
// it, or both refuse it naming the same field.
func sameVerdict(data []byte) (bool, error, error) {
	got, want := repeatedKey(data), repeatedKeyByTokens(data)
	var g, w *FieldError
	switch {
	case got == nil && want == nil:
		return true, got, want
	case errors.As(got, &g) && errors.As(want, &w):
		return g.Field == w.Field && got.Error() == want.Error(), got, want
	}
	return false, got, want
}

// TestRepeatedKeyAgreesWithTokens runs both walkers on every preset (none
// repeats a key) and on hand-made objects that do, escapes, nesting and
// case included.
func TestRepeatedKeyAgreesWithTokens(t *testing.T) {
	inputs := []string{
		`{"seed":1,"fencing":true,"fencing":false}`,
		`{"a":{"b":[1,{"c":2,"C":3}]}}`,
		`{"a":[[],[{}],[{"x":"}","x":"]"}]]}`,
		`{"k\u0065y":1,"key":2}`,
		`{"q\"":1,"q\"":2}`,
		`{"a":"\\","b":{"a":1},"a ":2}`,
		`{"n":-1.5e3,"t":true,"f":false,"z":null,"n":0}`,
		`{"K":1,"k":2}`,
		`{"\u212a":1,"k":2}`,
		`[{"a":1},{"a":2},{"a":3,"b":4,"a":5}]`,
		`{"a":1} {"a":1}`,
	}
	for _, p := range Presets() {
		data, err := json.Marshal(p.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(data))
	}
	for _, in := range inputs {
		if ok, got, want := sameVerdict([]byte(in)); !ok {
			t.Errorf("%s: byte walker %v, token walker %v", in, got, want)
		}
	}
}

// FuzzRepeatedKey: on any single JSON value the byte walker gives the
// token walker's verdict.
func FuzzRepeatedKey(f *testing.F) {
	f.Add([]byte(`{"seed":1,"fencing":true,"fencing":false}`))
	f.Add([]byte(`{"a":[{"b":1,"B":2}]}`))
	f.Add([]byte(`{"k\u0065y":1,"key":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return // the decoder refuses it before either walker runs
		}
		if ok, got, want := sameVerdict(data); !ok {
			t.Fatalf("%q: byte walker %v, token walker %v", data, got, want)
		}
	})
}
