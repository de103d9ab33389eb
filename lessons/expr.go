package lessons

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// expr is a compiled formula: an answer, a constraint on drawn parameters
// or a goal over a run's summary. Values are float64; comparisons and
// && || ! treat non-zero as true and give 1 or 0. A tiny language is enough
// here, and writing it out keeps exercise files free of code.
type expr struct {
	src  string
	eval func(env map[string]float64) (float64, error)
	vars []string // names the formula reads, for load-time checks
}

// compileExpr parses a formula. Errors say where in the formula it broke.
func compileExpr(src string) (*expr, error) {
	p := &exprParser{src: src}
	p.next()
	f, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok != "" {
		return nil, fmt.Errorf("formula %q: unexpected %q at position %d", src, p.tok, p.pos)
	}
	return &expr{src: src, eval: f, vars: p.vars}, nil
}

// value evaluates the formula.
func (e *expr) value(env map[string]float64) (float64, error) {
	v, err := e.eval(env)
	if err != nil {
		return 0, fmt.Errorf("formula %q: %w", e.src, err)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("formula %q: the result is not a finite number", e.src)
	}
	return v, nil
}

// truth evaluates the formula as a condition.
func (e *expr) truth(env map[string]float64) (bool, error) {
	v, err := e.value(env)
	return v != 0, err
}

type evalFn func(env map[string]float64) (float64, error)

type exprParser struct {
	src  string
	at   int // offset of the next unread byte
	pos  int // offset of tok
	tok  string
	vars []string
}

// next reads one token: a number, a name, or an operator.
func (p *exprParser) next() {
	for p.at < len(p.src) && p.src[p.at] == ' ' {
		p.at++
	}
	p.pos = p.at
	if p.at >= len(p.src) {
		p.tok = ""
		return
	}
	c := rune(p.src[p.at])
	switch {
	case unicode.IsDigit(c) || c == '.':
		j := p.at
		for j < len(p.src) && (unicode.IsDigit(rune(p.src[j])) || p.src[j] == '.' || p.src[j] == '_') {
			j++
		}
		p.tok, p.at = p.src[p.at:j], j
	case unicode.IsLetter(c) || c == '_':
		j := p.at
		for j < len(p.src) && (unicode.IsLetter(rune(p.src[j])) || unicode.IsDigit(rune(p.src[j])) || p.src[j] == '_') {
			j++
		}
		p.tok, p.at = p.src[p.at:j], j
	default:
		for _, op := range []string{"&&", "||", "<=", ">=", "==", "!="} {
			if strings.HasPrefix(p.src[p.at:], op) {
				p.tok, p.at = op, p.at+2
				return
			}
		}
		p.tok, p.at = p.src[p.at:p.at+1], p.at+1
	}
}

func (p *exprParser) fail(what string) error {
	if p.tok == "" {
		return fmt.Errorf("formula %q: %s, found the end", p.src, what)
	}
	return fmt.Errorf("formula %q: %s, found %q at position %d", p.src, what, p.tok, p.pos)
}

func truth(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (p *exprParser) or() (evalFn, error) {
	l, err := p.and()
	for err == nil && p.tok == "||" {
		p.next()
		var r evalFn
		if r, err = p.and(); err == nil {
			l = binary(l, r, func(a, b float64) (float64, error) { return truth(a != 0 || b != 0), nil })
		}
	}
	return l, err
}

func (p *exprParser) and() (evalFn, error) {
	l, err := p.cmp()
	for err == nil && p.tok == "&&" {
		p.next()
		var r evalFn
		if r, err = p.cmp(); err == nil {
			l = binary(l, r, func(a, b float64) (float64, error) { return truth(a != 0 && b != 0), nil })
		}
	}
	return l, err
}

var comparisons = map[string]func(a, b float64) bool{
	"<":  func(a, b float64) bool { return a < b },
	"<=": func(a, b float64) bool { return a <= b },
	">":  func(a, b float64) bool { return a > b },
	">=": func(a, b float64) bool { return a >= b },
	"==": func(a, b float64) bool { return a == b },
	"!=": func(a, b float64) bool { return a != b },
}

func (p *exprParser) cmp() (evalFn, error) {
	l, err := p.add()
	if err != nil {
		return nil, err
	}
	if op, ok := comparisons[p.tok]; ok {
		p.next()
		r, err := p.add()
		if err != nil {
			return nil, err
		}
		return binary(l, r, func(a, b float64) (float64, error) { return truth(op(a, b)), nil }), nil
	}
	return l, nil
}

func (p *exprParser) add() (evalFn, error) {
	l, err := p.mul()
	for err == nil && (p.tok == "+" || p.tok == "-") {
		op := p.tok
		p.next()
		var r evalFn
		if r, err = p.mul(); err == nil {
			if op == "+" {
				l = binary(l, r, func(a, b float64) (float64, error) { return a + b, nil })
			} else {
				l = binary(l, r, func(a, b float64) (float64, error) { return a - b, nil })
			}
		}
	}
	return l, err
}

func (p *exprParser) mul() (evalFn, error) {
	l, err := p.unary()
	for err == nil && (p.tok == "*" || p.tok == "/" || p.tok == "%") {
		op := p.tok
		p.next()
		var r evalFn
		if r, err = p.unary(); err == nil {
			l = binary(l, r, func(a, b float64) (float64, error) {
				switch op {
				case "*":
					return a * b, nil
				case "/":
					if b == 0 {
						return 0, fmt.Errorf("division by zero")
					}
					return a / b, nil
				}
				if b == 0 {
					return 0, fmt.Errorf("remainder by zero")
				}
				return math.Mod(a, b), nil
			})
		}
	}
	return l, err
}

func (p *exprParser) unary() (evalFn, error) {
	switch p.tok {
	case "-":
		p.next()
		f, err := p.unary()
		if err != nil {
			return nil, err
		}
		return func(env map[string]float64) (float64, error) { v, err := f(env); return -v, err }, nil
	case "!":
		p.next()
		f, err := p.unary()
		if err != nil {
			return nil, err
		}
		return func(env map[string]float64) (float64, error) { v, err := f(env); return truth(v == 0), err }, nil
	}
	return p.primary()
}

var functions = map[string]func(args []float64) (float64, error){
	"min": func(a []float64) (float64, error) {
		if len(a) == 0 {
			return 0, fmt.Errorf("min needs at least one argument")
		}
		m := a[0]
		for _, v := range a[1:] {
			m = math.Min(m, v)
		}
		return m, nil
	},
	"max": func(a []float64) (float64, error) {
		if len(a) == 0 {
			return 0, fmt.Errorf("max needs at least one argument")
		}
		m := a[0]
		for _, v := range a[1:] {
			m = math.Max(m, v)
		}
		return m, nil
	},
	"round": one(math.Round),
	"floor": one(math.Floor),
	"ceil":  one(math.Ceil),
	"abs":   one(math.Abs),
}

func one(f func(float64) float64) func([]float64) (float64, error) {
	return func(a []float64) (float64, error) {
		if len(a) != 1 {
			return 0, fmt.Errorf("takes one argument, not %d", len(a))
		}
		return f(a[0]), nil
	}
}

func (p *exprParser) primary() (evalFn, error) {
	tok := p.tok
	switch {
	case tok == "(":
		p.next()
		f, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.tok != ")" {
			return nil, p.fail("expected )")
		}
		p.next()
		return f, nil
	case tok != "" && (unicode.IsDigit(rune(tok[0])) || tok[0] == '.'):
		v, err := strconv.ParseFloat(strings.ReplaceAll(tok, "_", ""), 64)
		if err != nil {
			return nil, p.fail("expected a number")
		}
		p.next()
		return func(map[string]float64) (float64, error) { return v, nil }, nil
	case tok != "" && (unicode.IsLetter(rune(tok[0])) || tok[0] == '_'):
		p.next()
		if p.tok != "(" {
			switch tok {
			case "true":
				return func(map[string]float64) (float64, error) { return 1, nil }, nil
			case "false":
				return func(map[string]float64) (float64, error) { return 0, nil }, nil
			}
			p.vars = append(p.vars, tok)
			return func(env map[string]float64) (float64, error) {
				v, ok := env[tok]
				if !ok {
					return 0, fmt.Errorf("unknown name %q", tok)
				}
				return v, nil
			}, nil
		}
		fn, ok := functions[tok]
		if !ok {
			return nil, fmt.Errorf("formula %q: unknown function %q (use min, max, round, floor, ceil or abs)", p.src, tok)
		}
		p.next()
		var args []evalFn
		for p.tok != ")" {
			a, err := p.or()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if p.tok == "," {
				p.next()
			} else if p.tok != ")" {
				return nil, p.fail("expected , or )")
			}
		}
		p.next()
		return func(env map[string]float64) (float64, error) {
			vals := make([]float64, len(args))
			for i, a := range args {
				v, err := a(env)
				if err != nil {
					return 0, err
				}
				vals[i] = v
			}
			v, err := fn(vals)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", tok, err)
			}
			return v, nil
		}, nil
	}
	return nil, p.fail("expected a number, a name or (")
}

func binary(l, r evalFn, op func(a, b float64) (float64, error)) evalFn {
	return func(env map[string]float64) (float64, error) {
		a, err := l(env)
		if err != nil {
			return 0, err
		}
		b, err := r(env)
		if err != nil {
			return 0, err
		}
		return op(a, b)
	}
}
