package launch

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Expr is an expression of a launch spec (docs/launch.md, "Expressions"):
// integer and float literals, variables (Spec.Vars, loop variables,
// INPUT.NAME scalars of generated inputs), buffer elements NAME[i],
// + - * / % (integer division truncates when both sides are integers),
// comparisons, && || ! and parentheses. A plain number is an expression.
type Expr string

// UnmarshalYAML accepts any scalar (so grid: [4, "n/16"] works).
func (e *Expr) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: expected a number or an expression", n.Line)
	}
	*e = Expr(n.Value)
	return nil
}

// StepSpec is one step of the multi-launch form: exactly one of Launch,
// Repeat (with Do), Until (with Do), Fill, Swap, Set.
type StepSpec struct {
	Launch *LaunchStep `yaml:"launch,omitempty"`
	// Repeat runs Do that many times; Var (if set) counts 0, 1, ...
	Repeat Expr `yaml:"repeat,omitempty"`
	// Until runs Do, then evaluates the condition, and stops when it is
	// true (a do-while loop); Var counts iterations from 0. Max bounds the
	// iterations (default 100000; exceeding it is an error).
	Until Expr       `yaml:"until,omitempty"`
	Max   int        `yaml:"max,omitempty"`
	Var   string     `yaml:"var,omitempty"`
	Do    []StepSpec `yaml:"do,omitempty"`
	// Fill sets every element (or the first Count) of a buffer, as the
	// host would with cudaMemset/cudaMemcpy before a launch.
	Fill *FillStep `yaml:"fill,omitempty"`
	// Swap exchanges the device memory behind two buffer names (host
	// ping-pong of pointers).
	Swap []string `yaml:"swap,omitempty"`
	// Set assigns variables: name → expression.
	Set map[string]Expr `yaml:"set,omitempty"`
}

// LaunchStep is one kernel launch of the multi-launch form.
type LaunchStep struct {
	Kernel        string      `yaml:"kernel"`
	Grid          []Expr      `yaml:"grid"`
	Block         []Expr      `yaml:"block"`
	DynamicShared Expr        `yaml:"dynamic_shared,omitempty"`
	Params        []ParamSpec `yaml:"params"`
}

// FillStep fills a buffer with one value.
type FillStep struct {
	Buffer string `yaml:"buffer"`
	Value  Expr   `yaml:"value"`
	Count  Expr   `yaml:"count,omitempty"`
}

// DefaultUntilMax bounds the iterations of an until loop.
const DefaultUntilMax = 100000

func validateSteps(steps []StepSpec, where string) error {
	for i, st := range steps {
		at := fmt.Sprintf("%s[%d]", where, i)
		n := 0
		for _, set := range []bool{st.Launch != nil, st.Repeat != "", st.Until != "", st.Fill != nil, st.Swap != nil, st.Set != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: exactly one of launch, repeat, until, fill, swap, set", at)
		}
		loop := st.Repeat != "" || st.Until != ""
		if !loop && (st.Do != nil || st.Var != "" || st.Max != 0) {
			return fmt.Errorf("%s: do, var and max belong to repeat/until", at)
		}
		if loop {
			if len(st.Do) == 0 {
				return fmt.Errorf("%s: loop without do", at)
			}
			if err := validateSteps(st.Do, at+".do"); err != nil {
				return err
			}
		}
		if l := st.Launch; l != nil {
			if l.Kernel == "" {
				return fmt.Errorf("%s.launch: kernel missing", at)
			}
			if len(l.Grid) < 1 || len(l.Grid) > 3 || len(l.Block) < 1 || len(l.Block) > 3 {
				return fmt.Errorf("%s.launch: grid and block need 1 to 3 dimensions", at)
			}
			if err := validateParams(l.Params, at+".launch.params", false); err != nil {
				return err
			}
		}
		if st.Swap != nil && len(st.Swap) != 2 {
			return fmt.Errorf("%s: swap needs two buffer names", at)
		}
		if st.Fill != nil && (st.Fill.Buffer == "" || st.Fill.Value == "") {
			return fmt.Errorf("%s: fill needs buffer and value", at)
		}
	}
	return nil
}

// value is an expression value: an integer or a float.
type value struct {
	isInt bool
	i     int64
	f     float64
}

func intVal(i int64) value { return value{isInt: true, i: i} }

// floatOrInt makes an integer value of an integral float.
func floatOrInt(f float64) value {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return intVal(int64(f))
	}
	return value{f: f}
}

func (v value) float() float64 {
	if v.isInt {
		return float64(v.i)
	}
	return v.f
}

func (v value) int() int64 {
	if v.isInt {
		return v.i
	}
	return int64(v.f)
}

func (v value) truth() bool {
	if v.isInt {
		return v.i != 0
	}
	return v.f != 0
}

func boolVal(b bool) value {
	if b {
		return intVal(1)
	}
	return intVal(0)
}

// eval evaluates an expression against the prepared launch's variables and
// buffers.
func (p *Prepared) eval(src string) (value, error) {
	if len(src) > MaxExprLen {
		return value{}, fmt.Errorf("expression of %d bytes: longer than the %d-byte limit", len(src), MaxExprLen)
	}
	e := &exprParser{s: src, p: p}
	v, err := e.or()
	if err == nil {
		e.skip()
		if e.i < len(e.s) {
			err = fmt.Errorf("unexpected %q", e.s[e.i:])
		}
	}
	if err != nil {
		return value{}, fmt.Errorf("expression %q: %v", src, err)
	}
	return v, nil
}

// Limits of launch-spec expressions: no real spec comes near them, and
// they keep the recursive-descent parser's stack small whatever the input.
const (
	MaxExprLen   = 4096 // bytes
	MaxExprDepth = 64   // nested parentheses and unary operators
)

type exprParser struct {
	s     string
	i     int
	p     *Prepared
	depth int // unary/parenthesis nesting (MaxExprDepth)
}

func (e *exprParser) skip() {
	for e.i < len(e.s) && (e.s[e.i] == ' ' || e.s[e.i] == '\t') {
		e.i++
	}
}

func (e *exprParser) eat(op string) bool {
	e.skip()
	if strings.HasPrefix(e.s[e.i:], op) {
		// do not take "<" from "<=" etc.
		if (op == "<" || op == ">" || op == "!" || op == "=") && e.i+1 < len(e.s) && e.s[e.i+1] == '=' {
			return false
		}
		e.i += len(op)
		return true
	}
	return false
}

func (e *exprParser) or() (value, error) {
	v, err := e.and()
	for err == nil && e.eat("||") {
		var r value
		if r, err = e.and(); err == nil {
			v = boolVal(v.truth() || r.truth())
		}
	}
	return v, err
}

func (e *exprParser) and() (value, error) {
	v, err := e.cmp()
	for err == nil && e.eat("&&") {
		var r value
		if r, err = e.cmp(); err == nil {
			v = boolVal(v.truth() && r.truth())
		}
	}
	return v, err
}

func (e *exprParser) cmp() (value, error) {
	v, err := e.add()
	if err != nil {
		return v, err
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if e.eat(op) {
			r, err := e.add()
			if err != nil {
				return v, err
			}
			var c int
			if v.isInt && r.isInt {
				c = cmpI64(v.i, r.i)
			} else {
				a, b := v.float(), r.float()
				c = cmpI64(int64(sign(a-b)), 0)
			}
			switch op {
			case "==":
				return boolVal(c == 0), nil
			case "!=":
				return boolVal(c != 0), nil
			case "<=":
				return boolVal(c <= 0), nil
			case ">=":
				return boolVal(c >= 0), nil
			case "<":
				return boolVal(c < 0), nil
			default:
				return boolVal(c > 0), nil
			}
		}
	}
	return v, nil
}

func sign(f float64) float64 {
	switch {
	case f < 0:
		return -1
	case f > 0:
		return 1
	}
	return 0
}

func cmpI64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (e *exprParser) add() (value, error) {
	v, err := e.mul()
	for err == nil {
		var op byte
		switch {
		case e.eat("+"):
			op = '+'
		case e.eat("-"):
			op = '-'
		default:
			return v, nil
		}
		var r value
		if r, err = e.mul(); err != nil {
			break
		}
		if v.isInt && r.isInt {
			if op == '+' {
				v = intVal(v.i + r.i)
			} else {
				v = intVal(v.i - r.i)
			}
		} else if op == '+' {
			v = value{f: v.float() + r.float()}
		} else {
			v = value{f: v.float() - r.float()}
		}
	}
	return v, err
}

func (e *exprParser) mul() (value, error) {
	v, err := e.unary()
	for err == nil {
		var op byte
		switch {
		case e.eat("*"):
			op = '*'
		case e.eat("/"):
			op = '/'
		case e.eat("%"):
			op = '%'
		default:
			return v, nil
		}
		var r value
		if r, err = e.unary(); err != nil {
			break
		}
		if v.isInt && r.isInt {
			switch op {
			case '*':
				v = intVal(v.i * r.i)
			default:
				if r.i == 0 {
					return v, fmt.Errorf("division by zero")
				}
				if op == '/' {
					v = intVal(v.i / r.i)
				} else {
					v = intVal(v.i % r.i)
				}
			}
			continue
		}
		switch op {
		case '*':
			v = value{f: v.float() * r.float()}
		case '/':
			v = value{f: v.float() / r.float()}
		default:
			v = value{f: math.Mod(v.float(), r.float())}
		}
	}
	return v, err
}

func (e *exprParser) unary() (value, error) {
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > MaxExprDepth {
		return value{}, fmt.Errorf("nested more than %d deep", MaxExprDepth)
	}
	if e.eat("-") {
		v, err := e.unary()
		if v.isInt {
			v.i = -v.i
		} else {
			v.f = -v.f
		}
		return v, err
	}
	if e.eat("+") {
		return e.unary()
	}
	if e.eat("!") {
		v, err := e.unary()
		return boolVal(!v.truth()), err
	}
	return e.primary()
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && (c >= '0' && c <= '9' || c == '.')
}

func (e *exprParser) primary() (value, error) {
	e.skip()
	if e.i >= len(e.s) {
		return value{}, fmt.Errorf("unexpected end")
	}
	c := e.s[e.i]
	switch {
	case c == '(':
		e.i++
		v, err := e.or()
		if err != nil {
			return v, err
		}
		if !e.eat(")") {
			return v, fmt.Errorf("missing )")
		}
		return v, nil
	case c >= '0' && c <= '9' || c == '.':
		j := e.i
		if strings.HasPrefix(e.s[j:], "0x") || strings.HasPrefix(e.s[j:], "0X") {
			j += 2
			for j < len(e.s) && strings.IndexByte("0123456789abcdefABCDEF", e.s[j]) >= 0 {
				j++
			}
		} else {
			for j < len(e.s) && (e.s[j] >= '0' && e.s[j] <= '9' || e.s[j] == '.' || e.s[j] == 'e' || e.s[j] == 'E' ||
				(e.s[j] == '-' || e.s[j] == '+') && (e.s[j-1] == 'e' || e.s[j-1] == 'E')) {
				j++
			}
		}
		lit := e.s[e.i:j]
		e.i = j
		if i, err := strconv.ParseInt(lit, 0, 64); err == nil {
			return intVal(i), nil
		}
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return value{}, fmt.Errorf("bad number %q", lit)
		}
		return value{f: f}, nil
	case isIdentByte(c, true):
		j := e.i
		for j < len(e.s) && isIdentByte(e.s[j], j == e.i) {
			j++
		}
		name := e.s[e.i:j]
		e.i = j
		if e.eat("[") {
			idx, err := e.or()
			if err != nil {
				return idx, err
			}
			if !e.eat("]") {
				return idx, fmt.Errorf("missing ]")
			}
			return e.p.element(name, idx.int())
		}
		v, ok := e.p.vars[name]
		if !ok {
			return value{}, fmt.Errorf("unknown variable %s", name)
		}
		return v, nil
	}
	return value{}, fmt.Errorf("unexpected %q", e.s[e.i:])
}

// element reads element i of a buffer (its current contents).
func (p *Prepared) element(name string, i int64) (value, error) {
	b := p.byName[name]
	if b == nil {
		return value{}, fmt.Errorf("no buffer %s", name)
	}
	es, _ := elemSize(b.Type)
	if i < 0 || (i+1)*int64(es) > int64(len(b.Alloc.Data)) {
		return value{}, fmt.Errorf("%s[%d] is out of range", name, i)
	}
	f := decodeElem(b.Alloc.Data[i*int64(es):], b.Type)
	if isFloatElem(b.Type) {
		return value{f: f}, nil
	}
	if b.Type == "u64" || b.Type == "b64" {
		return intVal(int64(le(b.Alloc.Data[i*8:], 8))), nil
	}
	return intVal(int64(f)), nil
}

// dims evaluates a grid/block list.
func (p *Prepared) dims(es []Expr, what string) ([3]int, error) {
	out := [3]int{1, 1, 1}
	for i, e := range es {
		v, err := p.eval(string(e))
		if err != nil {
			return out, fmt.Errorf("%s[%d]: %v", what, i, err)
		}
		if v.int() <= 0 || v.int() > 1<<31-1 {
			return out, fmt.Errorf("%s[%d] = %d must be positive", what, i, v.int())
		}
		out[i] = int(v.int())
	}
	return out, nil
}
