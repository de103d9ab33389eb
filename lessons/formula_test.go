package lessons

import (
	"strings"
	"testing"
)

func TestFormulasEvaluateOverTypedNames(t *testing.T) {
	names := []string{"locks", "slow_pct", "a", "b"}
	env := map[string]float64{"locks": 5000, "slow_pct": 1, "a": 2, "b": 3}
	values := map[string]float64{
		"locks * slow_pct / 100": 50,
		"-(a + b) * 2":           -10,
		"max(a, b) - min(a, b)":  1,
		"round(10 / 3)":          3,
		"floor(5 / 2) + 1":       3,
		"mod(locks, 3)":          2,
		"a > b ? 1 : 0":          0,
	}
	for src, want := range values {
		f, err := compileValue(src, names)
		if err != nil {
			t.Fatalf("compileValue(%q): %v", src, err)
		}
		got, err := f.value(env)
		if err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", src, got, err, want)
		}
	}
	conds := map[string]bool{
		"a < b && !(a == b)": true,
		"a > b || b >= 4":    false,
		"false":              false,
	}
	for src, want := range conds {
		f, err := compileCond(src, names)
		if err != nil {
			t.Fatalf("compileCond(%q): %v", src, err)
		}
		if got, err := f.truth(env); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", src, got, err, want)
		}
	}
	f, _ := compileValue("a / (b - 3)", names)
	if _, err := f.value(env); err == nil {
		t.Error("a division by zero gave a number")
	}
	g, _ := compileCond("b > 1 && a < locks", names)
	if strings.Join(g.vars, ",") != "b,a,locks" {
		t.Errorf("vars = %q, want the names in order of use", g.vars)
	}
}

// TestFormulaErrorsSayWhereAndWhy checks what a teacher sees for a broken
// formula: the formula, what is wrong, and the column, at load time.
func TestFormulaErrorsSayWhereAndWhy(t *testing.T) {
	names := []string{"a", "b"}
	tests := []struct {
		src  string
		cond bool
		want string
	}{
		{"a +", false, `unexpected token EOF at column`},
		{"(a", false, `formula "(a"`},
		{"a b", false, `at column 3`},
		{"nope(1)", false, `nope`},
		{"a $ b", false, `formula "a $ b"`},
		{"c + 1", false, `unknown name c at column 1`},
		{"a + 1", true, `expected bool`},
		{"a > 1", false, `expected float64`},
		{"'forty'", false, `expected float64`},
	}
	for _, tt := range tests {
		var err error
		if tt.cond {
			_, err = compileCond(tt.src, names)
		} else {
			_, err = compileValue(tt.src, names)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("compiling %q: %v, want an error containing %q", tt.src, err, tt.want)
		}
	}
}
