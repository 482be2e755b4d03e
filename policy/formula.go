package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Variables a job_sort_formula may use besides resource names.
const (
	VarQueuePriority = "queue_priority"
	VarJobPriority   = "job_priority"
	VarEligibleTime  = "eligible_time"
)

// Formula is a compiled job_sort_formula. OpenPBS evaluates a Python
// expression per job; Strata accepts the arithmetic subset sites use
// (numbers, variables, + - * / // % **, unary minus, parentheses, min, max
// and abs) and compiles it once, so evaluation is a walk over a small tree
// with no parsing, no allocation and no way to run arbitrary code. As in
// OpenPBS an evaluation error (division by zero, overflow) gives 0.
type Formula struct {
	src  string
	vars []string // variable names, in first-use order; Eval's input
	root node
}

type node func(v []float64) (float64, bool)

// ParseFormula compiles a job_sort_formula. Every identifier that is not a
// function is a variable; the caller decides what it means (the scheduler
// gives resources, queue_priority, job_priority and eligible_time and 0 for
// anything else).
func ParseFormula(src string) (*Formula, error) {
	p := &formulaParser{src: src, index: map[string]int{}}
	if err := p.lex(); err != nil {
		return nil, err
	}
	root, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("job_sort_formula %q: unexpected %q", src, p.toks[p.pos].text)
	}
	return &Formula{src: src, vars: p.vars, root: root}, nil
}

// String returns the formula's text.
func (f *Formula) String() string { return f.src }

// Vars lists the variables the formula reads, in the order Eval wants them.
func (f *Formula) Vars() []string { return f.vars }

// Eval computes the formula for the variable values vals (len(Vars())).
func (f *Formula) Eval(vals []float64) float64 {
	v, ok := f.root(vals)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

type token struct {
	kind byte // 'n' number, 'i' identifier, 'o' operator or parenthesis
	text string
	num  float64
}

type formulaParser struct {
	src   string
	toks  []token
	pos   int
	vars  []string
	index map[string]int
}

func (p *formulaParser) lex() error {
	s := p.src
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			i++
		case ch >= '0' && ch <= '9' || ch == '.':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				(j > i && (s[j] == '+' || s[j] == '-') && (s[j-1] == 'e' || s[j-1] == 'E'))) {
				j++
			}
			v, err := strconv.ParseFloat(s[i:j], 64)
			if err != nil {
				return fmt.Errorf("job_sort_formula %q: bad number %q", p.src, s[i:j])
			}
			p.toks = append(p.toks, token{kind: 'n', text: s[i:j], num: v})
			i = j
		case ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			p.toks = append(p.toks, token{kind: 'i', text: s[i:j]})
			i = j
		default:
			for _, op := range []string{"**", "//", "+", "-", "*", "/", "%", "(", ")", ","} {
				if strings.HasPrefix(s[i:], op) {
					p.toks = append(p.toks, token{kind: 'o', text: op})
					i += len(op)
					goto next
				}
			}
			return fmt.Errorf("job_sort_formula %q: unexpected character %q", p.src, string(ch))
		next:
		}
	}
	return nil
}

func (p *formulaParser) peek(op string) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].kind == 'o' && p.toks[p.pos].text == op
}

func (p *formulaParser) expect(op string) error {
	if !p.peek(op) {
		return p.errorf("expected %q", op)
	}
	p.pos++
	return nil
}

func (p *formulaParser) errorf(format string, args ...any) error {
	at := "end of formula"
	if p.pos < len(p.toks) {
		at = strconv.Quote(p.toks[p.pos].text)
	}
	return fmt.Errorf("job_sort_formula %q: %s at %s", p.src, fmt.Sprintf(format, args...), at)
}

// expr := term (("+"|"-") term)*
func (p *formulaParser) expr() (node, error) {
	left, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.peek("+") || p.peek("-") {
		op := p.toks[p.pos].text
		p.pos++
		right, err := p.term()
		if err != nil {
			return nil, err
		}
		left = binary(op, left, right)
	}
	return left, nil
}

// term := unary (("*"|"/"|"//"|"%") unary)*
func (p *formulaParser) term() (node, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek("*") || p.peek("/") || p.peek("//") || p.peek("%") {
		op := p.toks[p.pos].text
		p.pos++
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left = binary(op, left, right)
	}
	return left, nil
}

// unary := ("-"|"+") unary | power
func (p *formulaParser) unary() (node, error) {
	if p.peek("-") || p.peek("+") {
		neg := p.toks[p.pos].text == "-"
		p.pos++
		x, err := p.unary()
		if err != nil || !neg {
			return x, err
		}
		return func(v []float64) (float64, bool) { a, ok := x(v); return -a, ok }, nil
	}
	return p.power()
}

// power := atom ("**" unary)?  (right-associative, binds tighter than
// unary minus on its left, as in Python: -2**2 == -4)
func (p *formulaParser) power() (node, error) {
	base, err := p.atom()
	if err != nil {
		return nil, err
	}
	if p.peek("**") {
		p.pos++
		exp, err := p.unary()
		if err != nil {
			return nil, err
		}
		return binary("**", base, exp), nil
	}
	return base, nil
}

// atom := number | name | name "(" args ")" | "(" expr ")"
func (p *formulaParser) atom() (node, error) {
	if p.pos >= len(p.toks) {
		return nil, p.errorf("expected a value")
	}
	t := p.toks[p.pos]
	switch {
	case t.kind == 'n':
		p.pos++
		n := t.num
		return func([]float64) (float64, bool) { return n, true }, nil
	case t.kind == 'i' && p.pos+1 < len(p.toks) && p.toks[p.pos+1].text == "(":
		p.pos += 2
		var args []node
		for !p.peek(")") {
			a, err := p.expr()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if !p.peek(",") {
				break
			}
			p.pos++
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return call(p, t.text, args)
	case t.kind == 'i':
		p.pos++
		i, ok := p.index[t.text]
		if !ok {
			i = len(p.vars)
			p.index[t.text] = i
			p.vars = append(p.vars, t.text)
		}
		return func(v []float64) (float64, bool) { return v[i], true }, nil
	case t.text == "(":
		p.pos++
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		return x, p.expect(")")
	}
	return nil, p.errorf("expected a value")
}

func call(p *formulaParser, name string, args []node) (node, error) {
	switch name {
	case "abs":
		if len(args) != 1 {
			return nil, p.errorf("abs takes one argument")
		}
		x := args[0]
		return func(v []float64) (float64, bool) { a, ok := x(v); return math.Abs(a), ok }, nil
	case "min", "max":
		if len(args) < 1 {
			return nil, p.errorf("%s needs arguments", name)
		}
		pick := math.Min
		if name == "max" {
			pick = math.Max
		}
		return func(v []float64) (float64, bool) {
			out, ok := args[0](v)
			for _, a := range args[1:] {
				x, ok2 := a(v)
				out, ok = pick(out, x), ok && ok2
			}
			return out, ok
		}, nil
	}
	return nil, p.errorf("unknown function %q", name)
}

func binary(op string, l, r node) node {
	f := map[string]func(a, b float64) (float64, bool){
		"+": func(a, b float64) (float64, bool) { return a + b, true },
		"-": func(a, b float64) (float64, bool) { return a - b, true },
		"*": func(a, b float64) (float64, bool) { return a * b, true },
		"/": func(a, b float64) (float64, bool) { return a / b, b != 0 },
		"//": func(a, b float64) (float64, bool) {
			return math.Floor(a / b), b != 0
		},
		"%": func(a, b float64) (float64, bool) {
			if b == 0 {
				return 0, false
			}
			m := math.Mod(a, b)
			if m != 0 && (m < 0) != (b < 0) { // Python's sign rule
				m += b
			}
			return m, true
		},
		"**": func(a, b float64) (float64, bool) { return math.Pow(a, b), true },
	}[op]
	return func(v []float64) (float64, bool) {
		a, ok1 := l(v)
		b, ok2 := r(v)
		if !ok1 || !ok2 {
			return 0, false
		}
		return f(a, b)
	}
}
