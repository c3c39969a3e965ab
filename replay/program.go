package replay

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// Program is a parsed PTX module prepared for lowering: its functions and
// module-level variables, laid out. It is immutable after NewProgram and may
// be shared by concurrent lowerings and launches.
type Program struct {
	File *ptx.File
	Name string // file name used in fault reports

	funcs  map[string]*ptx.Function
	fnIdx  map[string]int // function name -> index of its address (funcAddr)
	fnames []string       // function names in declaration order

	globals   []GlobalVar // module .global variables (texture references excluded)
	globalIdx map[string]int

	constOff  map[string]int // module .const variables: offset in the constant bank
	constSize int
	constInit []byte
	constVars []ConstVar

	shared []*sharedVar // module .shared variables, in order

	texrefs  []string // .texref names (module .global .texref / .tex)
	texIdx   map[string]int
	surfrefs []string
	surfIdx  map[string]int

	addr32  bool           // .address_size 32: 32-bit generic addresses
	modRegs []*ptx.VarDecl // module-scope .reg declarations (PTX 1.x)
}

// GlobalVar is a module-level .global variable (strings of printf, tables).
type GlobalVar struct {
	Name  string
	Size  int
	Align int
	Init  []byte // nil: zeros
}

// ConstVar is a module-level .const variable (a __constant__ symbol).
type ConstVar struct {
	Name   string
	Offset int
	Size   int
}

type sharedVar struct {
	name   string
	size   int
	align  int
	extern bool // unsized extern array: dynamic shared memory
}

// NewProgram prepares a parsed module. It lays out the constant bank and
// collects module variables; functions are lowered on demand by Lower.
func NewProgram(f *ptx.File) (*Program, error) {
	p := &Program{
		File: f, Name: f.Name,
		funcs:     map[string]*ptx.Function{},
		fnIdx:     map[string]int{},
		globalIdx: map[string]int{},
		constOff:  map[string]int{},
		texIdx:    map[string]int{},
		surfIdx:   map[string]int{},
	}
	if d := f.Directive(".address_size"); d != nil {
		if n, ok := d.AddressSize(); ok && n == 32 {
			p.addr32 = true
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ptx.Function:
			if old, ok := p.funcs[d.Name]; ok && old.Body != nil && d.Body == nil {
				continue // keep the definition over a later prototype
			}
			if _, ok := p.fnIdx[d.Name]; !ok {
				p.fnIdx[d.Name] = len(p.fnames)
				p.fnames = append(p.fnames, d.Name)
			}
			p.funcs[d.Name] = d
		case *ptx.VarDecl:
			if d.Space == ptx.SpaceReg {
				p.modRegs = append(p.modRegs, d)
				continue
			}
			if err := p.addModuleVar(d); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

func alignUp(x, a int) int {
	if a <= 1 {
		return x
	}
	return (x + a - 1) / a * a
}

func declAlign(d *ptx.VarDecl) int {
	a := d.Align
	if a == 0 {
		a = d.Type.Size()
		if d.Vec > 0 {
			a *= d.Vec
		}
	}
	if a <= 0 {
		a = 1
	}
	return a
}

func (p *Program) addModuleVar(d *ptx.VarDecl) error {
	switch d.Type {
	case ptx.TexRef:
		for _, n := range d.Names {
			p.texIdx[n.Name] = len(p.texrefs)
			p.texrefs = append(p.texrefs, n.Name)
		}
		return nil
	case ptx.SurfRef:
		for _, n := range d.Names {
			p.surfIdx[n.Name] = len(p.surfrefs)
			p.surfrefs = append(p.surfrefs, n.Name)
		}
		return nil
	case ptx.SamplerRef:
		return nil
	}
	if d.Space == ptx.SpaceTex {
		for _, n := range d.Names {
			p.texIdx[n.Name] = len(p.texrefs)
			p.texrefs = append(p.texrefs, n.Name)
		}
		return nil
	}
	for i, n := range d.Names {
		size := d.Size(i)
		var init []byte
		if n.Init != nil {
			b, err := parseInit(d, n.Init)
			if err != nil {
				return fmt.Errorf("%s: initializer of %s: %v", p.Name, n.Name, err)
			}
			init = b
			if size == 0 {
				size = len(b)
			}
		}
		al := declAlign(d)
		switch d.Space {
		case ptx.SpaceGlobal:
			p.globalIdx[n.Name] = len(p.globals)
			p.globals = append(p.globals, GlobalVar{Name: n.Name, Size: size, Align: al, Init: init})
		case ptx.SpaceConst:
			off := alignUp(p.constSize, al)
			p.constOff[n.Name] = off
			p.constSize = off + size
			if len(p.constInit) < p.constSize {
				p.constInit = append(p.constInit, make([]byte, p.constSize-len(p.constInit))...)
			}
			copy(p.constInit[off:], init)
			p.constVars = append(p.constVars, ConstVar{Name: n.Name, Offset: off, Size: size})
		case ptx.SpaceShared:
			p.shared = append(p.shared, &sharedVar{name: n.Name, size: size, align: al,
				extern: size == 0 && d.Linkage&ptx.Extern != 0 || size == 0})
		}
	}
	return nil
}

// AddressSize returns the module's generic address width: 32 for an
// `.address_size 32` module, else 64.
func (p *Program) AddressSize() int {
	if p.addr32 {
		return 32
	}
	return 64
}

// ConstVars lists the module's .const variables (the __constant__ symbols a
// launch spec may set), in declaration order.
func (p *Program) ConstVars() []ConstVar { return append([]ConstVar(nil), p.constVars...) }

// Globals lists the module's .global variables.
func (p *Program) Globals() []GlobalVar { return append([]GlobalVar(nil), p.globals...) }

// TexRefs lists the module's texture references in declaration order.
func (p *Program) TexRefs() []string { return append([]string(nil), p.texrefs...) }

// SurfRefs lists the module's surface references in declaration order.
func (p *Program) SurfRefs() []string { return append([]string(nil), p.surfrefs...) }

// ConstInit returns a copy of the module's initial constant bank: every
// .const variable at its ConstVar.Offset, initialised or zero.
func (p *Program) ConstInit() []byte { return append([]byte(nil), p.constInit...) }

// Entries lists the .entry names of the module in order.
func (p *Program) Entries() []string {
	var out []string
	for _, d := range p.File.Decls {
		if fn, ok := d.(*ptx.Function); ok && fn.Kind == ptx.Entry && fn.Body != nil {
			out = append(out, fn.Name)
		}
	}
	return out
}

// parseInit turns an initializer ("{1, 2, 3}" or "5" or "0f3F800000") into
// bytes of the declared element type.
func parseInit(d *ptx.VarDecl, toks []ptx.Token) ([]byte, error) {
	el := d.Type.Size()
	if el == 0 {
		el = 1
	}
	var out []byte
	neg := false
	for _, t := range toks {
		switch t.Kind {
		case ptx.LBRACE, ptx.RBRACE, ptx.COMMA:
			continue
		case ptx.MINUS:
			neg = !neg
			continue
		case ptx.INT, ptx.FLOAT:
			v, err := immBits(t.Text, d.Type, neg)
			if err != nil {
				return nil, err
			}
			var buf [8]byte
			binary.LittleEndian.PutUint64(buf[:], v)
			out = append(out, buf[:el]...)
			neg = false
		case ptx.IDENT:
			// generic(sym) / sym address initializers are not supported:
			// store zero so the layout stays right.
			if t.Text == "generic" {
				continue
			}
			out = append(out, make([]byte, el)...)
		default:
			// parentheses of generic(...) and the like
			continue
		}
	}
	return out, nil
}

// immBits converts a literal to the bits of a value of type t.
func immBits(text string, t ptx.Type, neg bool) (uint64, error) {
	s := text
	if strings.HasPrefix(s, "-") {
		neg = !neg
		s = s[1:]
	}
	isF := t.IsFloat()
	switch {
	case len(s) == 10 && (strings.HasPrefix(s, "0f") || strings.HasPrefix(s, "0F")):
		u, err := strconv.ParseUint(s[2:], 16, 32)
		if err != nil {
			return 0, err
		}
		if neg {
			u ^= 1 << 31
		}
		if t == ptx.F64 {
			return math.Float64bits(float64(math.Float32frombits(uint32(u)))), nil
		}
		return u, nil
	case len(s) == 18 && (strings.HasPrefix(s, "0d") || strings.HasPrefix(s, "0D")):
		u, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return 0, err
		}
		if neg {
			u ^= 1 << 63
		}
		if t == ptx.F32 {
			return uint64(math.Float32bits(float32(math.Float64frombits(u)))), nil
		}
		return u, nil
	}
	if strings.ContainsAny(s, ".eE") && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, err
		}
		if neg {
			f = -f
		}
		if t == ptx.F64 {
			return math.Float64bits(f), nil
		}
		return uint64(math.Float32bits(float32(f))), nil
	}
	s = strings.TrimRight(s, "Uu")
	base := 10
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	u, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return 0, fmt.Errorf("bad literal %q", text)
	}
	if neg {
		u = -u
	}
	if isF {
		iv := float64(int64(u))
		if t == ptx.F64 {
			return math.Float64bits(iv), nil
		}
		return uint64(math.Float32bits(float32(iv))), nil
	}
	return u, nil
}

// FuncAddrBase is the value a function's name has as an operand (its
// "address", used by indirect calls): function i of the module, in
// declaration order, has address FuncAddrBase + 16*i. The range lies far
// from every allocation, so a data access through it faults.
const FuncAddrBase = 0x7f00_0000_0000_0000

// funcAddr returns the address of the named function.
func (p *Program) funcAddr(name string) (uint64, bool) {
	i, ok := p.fnIdx[name]
	return FuncAddrBase + 16*uint64(i), ok
}
