package web

// maxDepth bounds how deeply a JSON request may nest. A scenario nests
// five levels; the bound keeps a hostile body's decoding cost flat before
// it takes a place in the admission queue or reaches a decoder.
const maxDepth = 32

// checkDepth refuses JSON nested deeper than maxDepth, naming the field
// (the body, a websocket message). It scans the bytes once, without
// decoding; text that is not JSON (YAML in block style) passes, and its
// decoder bounds it.
func checkDepth(field string, data []byte) error {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch b {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			if depth > maxDepth {
				return badRequest(field, "nests deeper than %d levels of objects and arrays", maxDepth)
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return nil
}
