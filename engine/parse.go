package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// ParseScenario reads a scenario from JSON or YAML (the same field names),
// rejects unknown fields and oversized input, fills in defaults and
// validates it. Every error names the field at fault.
func ParseScenario(data []byte) (Scenario, error) {
	sc, err := DecodeScenario(data)
	if err != nil {
		return Scenario{}, err
	}
	return Prepare(sc)
}

// DecodeScenario reads a scenario without filling in defaults or
// validating it.
func DecodeScenario(data []byte) (Scenario, error) {
	var sc Scenario
	if len(data) > MaxScenarioSize {
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
		return sc, decodeErr(err)
	}
	if dec.More() {
		return sc, fieldErr("scenario", "has more than one JSON value")
	}
	return sc, nil
}

// decodeErr turns a JSON decoding error into one that names the field.
func decodeErr(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "scenario"
		}
		return fieldErr(field, "must be %s, not %s", jsonKind(te.Type.Kind().String()), te.Value)
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
