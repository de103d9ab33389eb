package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

const mimeJSON = echo.MIMEApplicationJSON

// scenarioTypes are the media types POST /api/run takes: a scenario is
// JSON or YAML.
var scenarioTypes = []string{mimeJSON, "application/yaml", "application/x-yaml", "text/yaml"}

// readBody reads a request body of at most the server's MaxBodyBytes whose
// Content-Type is one of types (application/json when none are given).
// A body over the limit is a 413 naming the limit; another media type is a
// 415 naming the ones taken, which also keeps HTML forms (which can only
// send form encodings and text/plain) away from the JSON endpoints.
func (s *Server) readBody(c echo.Context, types ...string) ([]byte, error) {
	if len(types) == 0 {
		types = []string{mimeJSON}
	}
	r := c.Request()
	mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if err != nil || !slices.Contains(types, mt) {
		return nil, &userError{Status: http.StatusUnsupportedMediaType, Field: "Content-Type",
			Msg: "must be " + orList(types) + " (with curl: -H 'Content-Type: " + types[0] + "')"}
	}
	limit := s.cfg.MaxBodyBytes
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, limit))
	var me *http.MaxBytesError
	switch {
	case errors.As(err, &me):
		return nil, tooLarge("body", me.Limit, "")
	case err != nil:
		return nil, badRequest("body", "could not be read: %v", err)
	}
	return body, nil
}

// readJSON reads a JSON body (see readBody) into v, strictly: a field v
// does not have is refused and named, as is a value of the wrong type, and
// the body must hold one JSON value. A misspelt field is a mistake to be
// told about, not ignored. An empty body is the empty object.
func (s *Server) readJSON(c echo.Context, v any) error {
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	return decodeStrict(body, v)
}

// decodeStrict decodes one JSON request body into v, refusing unknown
// fields; errors name the field and say in words what it must be.
func decodeStrict(data []byte, v any) error {
	return strictJSON{whole: "body", of: "this request"}.decode(data, v)
}

// strictJSON names a JSON value that is decoded strictly, for its errors:
// whole is the value itself ("body", "message", "fault"), prefix goes
// before the names of its fields ("fault." for a fault inside a websocket
// message) and of says in words what it is ("this request").
type strictJSON struct{ whole, prefix, of string }

// decode decodes one JSON value into v, refusing unknown fields; errors
// name the field and say in words what it must be. Empty input is the
// empty object.
func (s strictJSON) decode(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			t := te.Type
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			if err := boundOnDecode(te.Field, te.Value); err != nil {
				return err
			}
			return badRequest(s.prefix+te.Field, "must be %s", jsonKind(t.Kind()))
		}
		if errors.As(err, &te) {
			return badRequest(s.whole, "must be a JSON object with %s", fieldList(v))
		}
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			name, _ = strconv.Unquote(name)
			return badRequest(boundText(s.prefix+name, maxField), "is not a field of %s, which takes %s", s.of, fieldList(v))
		}
		return badRequest(s.whole, "is not valid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest(s.whole, "has more than one JSON value")
	}
	return nil
}

// fieldList names the JSON fields of the struct v points to, for an error
// that says what a request takes: "name", or "preset, scenario or link".
func fieldList(v any) string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "no fields"
	}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "no fields"
	}
	return orList(names)
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// jsonKind names the kind of JSON value a Go kind is decoded from.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + k.String()
}
