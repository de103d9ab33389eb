package lessons

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// formula is a compiled formula from an exercise file or a playground
// marker: an answer, a let, a constraint on drawn parameters, or a
// condition over a run.
//
// Formulas are github.com/expr-lang/expr programs compiled against a typed
// environment: every name a formula may read is a float64, and a value
// formula must give a number, a condition true or false. So a misspelt
// name, a stray operator or a condition that is really a number fails when
// the folder loads, with the column where it broke, not when a learner
// answers.
type formula struct {
	src  string
	prog *vm.Program
	// vars are the names the formula reads, in order of first use: the
	// values a failed goal reports ("blocked_after_crash_ms = 74,000").
	vars []string
}

// maxFormulaNodes bounds the size of one formula, so a folder of material
// cannot hand the checker something expensive to run on every answer.
const maxFormulaNodes = 200

// compileValue compiles a formula that gives a number from names.
func compileValue(src string, names []string) (*formula, error) {
	return compileFormula(src, names, expr.AsFloat64())
}

// compileCond compiles a condition (true or false) over names.
func compileCond(src string, names []string) (*formula, error) {
	return compileFormula(src, names, expr.AsBool())
}

// mod is % for the numbers formulas work with: expr's own % takes whole
// numbers only, and every name here is a float64.
func mod(params ...any) (any, error) {
	a, b := params[0].(float64), params[1].(float64)
	if b == 0 {
		return nil, errors.New("mod by zero")
	}
	return math.Mod(a, b), nil
}

func compileFormula(src string, names []string, as expr.Option) (*formula, error) {
	env := make(map[string]float64, len(names))
	for _, n := range names {
		env[n] = 0
	}
	prog, err := expr.Compile(src, expr.Env(env), as, expr.MaxNodes(maxFormulaNodes),
		expr.Function("mod", mod, new(func(float64, float64) float64)))
	if err != nil {
		err = formulaError(src, err)
		if m := unknownNameRE.FindStringSubmatch(err.Error()); m != nil {
			if near := nearest(m[1], names); near != "" {
				err = fmt.Errorf("%w (did you mean %s?)", err, near)
			}
		}
		return nil, err
	}
	f := &formula{src: src, prog: prog}
	node := prog.Node()
	ast.Walk(&node, &nameCollector{env: env, f: f})
	return f, nil
}

// nameCollector records the environment names a formula reads.
type nameCollector struct {
	env map[string]float64
	f   *formula
}

// Visit implements ast.Visitor.
func (c *nameCollector) Visit(n *ast.Node) {
	id, ok := (*n).(*ast.IdentifierNode)
	if !ok {
		return
	}
	if _, isName := c.env[id.Value]; isName && !slices.Contains(c.f.vars, id.Value) {
		c.f.vars = append(c.f.vars, id.Value)
	}
}

var unknownNameRE = regexp.MustCompile(`unknown name (\w+)`)

// nearest is the name closest to a misspelt one, if any is close: a
// prefix of it, or at most a third of its letters away.
func nearest(name string, names []string) string {
	best, bestD := "", len(name)/3+1
	for _, n := range names {
		if strings.HasPrefix(n, name) || strings.HasPrefix(name, n) {
			return n
		}
		if d := editDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between two short names.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// formulaError writes expr's error on one line with the column it points
// at: `formula "locks *": unexpected token EOF at column 7`.
func formulaError(src string, err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		if fe.Line > 0 {
			return fmt.Errorf("formula %q: %s at column %d", src, fe.Message, fe.Column+1)
		}
		return fmt.Errorf("formula %q: %s", src, fe.Message)
	}
	return fmt.Errorf("formula %q: %v", src, err)
}

// value evaluates a value formula.
func (f *formula) value(env map[string]float64) (float64, error) {
	out, err := expr.Run(f.prog, env)
	if err != nil {
		return 0, formulaError(f.src, err)
	}
	v, ok := out.(float64)
	if !ok {
		return 0, fmt.Errorf("formula %q: gave %v, not a number", f.src, out)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("formula %q: the result is not a finite number (a division by zero?)", f.src)
	}
	return v, nil
}

// truth evaluates a condition.
func (f *formula) truth(env map[string]float64) (bool, error) {
	out, err := expr.Run(f.prog, env)
	if err != nil {
		return false, formulaError(f.src, err)
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("formula %q: gave %v, not true or false", f.src, out)
	}
	return b, nil
}

// truth01 writes a yes/no fact of a run as the 1 or 0 a formula compares.
func truth01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
