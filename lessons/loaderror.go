package lessons

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LoadError is a problem in one lesson or exercise file, named by file and
// line, so a teacher can fix a folder of material from the message alone.
type LoadError struct {
	File string
	Line int // 0 when the problem is with the file as a whole
	Msg  string
}

// Error returns the problem as "file:line: message", or "file: message"
// when it concerns the file as a whole, the form editors and terminals
// turn into a link to the line.
func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

var (
	yamlLineRE     = regexp.MustCompile(`line (\d+): (.*)`)
	yamlNotFoundRE = regexp.MustCompile(`field (\S+) not found in type \S+`)
	yamlTypeRE     = regexp.MustCompile(`cannot unmarshal !!(\w+) ` + "`" + `?([^` + "`" + `]*)` + "`" + `? into (\S+)`)
)

// yamlErrors turns the YAML library's errors into LoadErrors with lines
// counted from the start of the file (offset is the line the YAML starts
// on, minus one) and messages in plain words.
func yamlErrors(file string, offset int, err error) []error {
	var out []error
	for _, line := range strings.Split(err.Error(), "\n") {
		m := yamlLineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		msg := m[2]
		if f := yamlNotFoundRE.FindStringSubmatch(msg); f != nil {
			msg = fmt.Sprintf("unknown field %q", f[1])
		} else if t := yamlTypeRE.FindStringSubmatch(msg); t != nil {
			msg = fmt.Sprintf("%q is a %s, but a %s is needed here", t[2], yamlKind(t[1]), goKind(t[3]))
		} else {
			msg = "YAML: " + msg
		}
		out = append(out, &LoadError{File: file, Line: n + offset, Msg: msg})
	}
	if len(out) == 0 {
		out = append(out, &LoadError{File: file, Line: offset + 1, Msg: "YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")})
	}
	return out
}

func yamlKind(tag string) string {
	switch tag {
	case "str":
		return "text"
	case "int", "float":
		return "number"
	case "bool":
		return "true/false value"
	case "seq":
		return "list"
	case "map":
		return "mapping"
	}
	return tag
}

func goKind(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "list"
	case strings.HasPrefix(t, "map"), strings.HasPrefix(t, "lessons."):
		return "mapping"
	case t == "string":
		return "text"
	case t == "bool":
		return "true/false value"
	}
	return "number"
}

// lineOf finds the line of a key path in a parsed YAML document ("runs",
// "1", "goal"), falling back to the deepest part found, so an error about a
// value points at it.
func lineOf(doc *yaml.Node, path ...string) int {
	n := doc
	if n == nil {
		return 0
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, key := range path {
		switch n.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == key {
					line, n, found = n.Content[i].Line, n.Content[i+1], true
					break
				}
			}
			if !found {
				return line
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
		default:
			return line
		}
	}
	return line
}
