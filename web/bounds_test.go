package web

import (
	"strings"
	"testing"
)

func TestCheckDepthBoundsNestingNotStrings(t *testing.T) {
	ok := []string{
		`{"title":"x","clients":[{"steps":[{"do":"acquire"}]}]}`,
		`{"s":"` + strings.Repeat("[", 100) + `"}`,   // brackets in a string
		`{"s":"\"` + strings.Repeat("{", 100) + `"}`, // after an escaped quote
		"title: x\nclients:\n  - name: a\n",          // YAML
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
	}
	for _, in := range ok {
		if err := checkDepth("body", []byte(in)); err != nil {
			t.Errorf("checkDepth(%.40q): %v", in, err)
		}
	}
	deep := strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1)
	err := checkDepth("body", []byte(deep))
	if p := mapError(err); p.Status != 400 || p.Field != "body" || !strings.Contains(p.Message, "32 levels") {
		t.Errorf("too deep: %+v", p)
	}
}
