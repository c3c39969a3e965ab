package replay

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Code is one lowered kernel: the entry function and every .func it calls,
// with the kernel's parameter and shared-memory layout. It is immutable and
// shared by all launches of the kernel.
type Code struct {
	Prog   *Program
	Name   string
	entry  *fnCode
	funcs  map[string]*fnCode
	order  []*fnCode
	Params []ParamInfo
	// ParamSize is the size of the kernel parameter buffer.
	ParamSize int
	// SharedStatic is the static shared memory per CTA; dynamic shared
	// memory (extern .shared arrays) starts at SharedStatic rounded up to 16.
	SharedStatic int
	sharedOff    map[string]int
	dynShared    map[string]bool
	// GlobalAtomics is set when the kernel has atomics or reductions on
	// global (or generic) memory: its CTAs run one after another.
	GlobalAtomics bool
	// UsesPrintf is set when the kernel calls vprintf.
	UsesPrintf bool
	// UsesDevRT is set when the kernel calls the CUDA device runtime
	// (dynamic parallelism, cdp.go): its CTAs run one after another.
	UsesDevRT bool
	// usesTexRef, usesSurfRef: the kernel names a texture or surface
	// reference (a device-side launch of it fails, cdp.go)
	usesTexRef, usesSurfRef bool
	// Warnings lists instructions that could not be lowered; executing one
	// is a fault.
	Warnings []string
	// Notices lists instructions that run with a documented numerical model
	// whose results are within a tolerance of hardware rather than
	// bit-exact (mma.sync on floating point), one positioned line each.
	Notices  []string
	nregs    int
	maxnreg  int // .maxnreg of the entry, 0 if none
	maxFrame int
	am       *addrMap // generic address map (64- or 32-bit module)
	// modRegUse: module-scope register -> the function using it
	modRegUse map[string]string
}

// ParamInfo is one kernel parameter in the parameter buffer.
type ParamInfo struct {
	Name   string
	Type   ptx.Type
	Size   int
	Offset int
	Align  int
	Ptr    bool // a pointer (.u64/.b64 with .ptr, or any 8-byte integer)
}

// Insts returns the lowered instructions of the entry function (static
// model views), in PC order.
func (c *Code) Insts() []*model.Inst {
	out := make([]*model.Inst, len(c.entry.code))
	for i := range c.entry.code {
		out[i] = &c.entry.code[i].m
	}
	return out
}

// RegsPerThread is the number of declared registers of the kernel and its
// callees.
func (c *Code) RegsPerThread() int { return c.nregs }

// SetProbe marks the instruction of the entry function at PTX line line
// with probe id (model.Inst.Probe), and the timer reads around it as its
// probe pair (model.Inst.Stamp). It reports whether an instruction was
// found on that line. It must be called before launches start.
func (c *Code) SetProbe(line, id int) bool {
	found := false
	for _, f := range c.order {
		for i := range f.code {
			if f.code[i].m.Line == line {
				f.code[i].m.Probe = id
				markStamps(f.code, i)
				found = true
				break
			}
		}
	}
	return found
}

// markStamps marks the timer reads of the probe pair around the probed
// access code[at]: the nearest preceding one (begin) and the nearest
// following one (end), for the model's ground truth (model.Inst.Stamp).
func markStamps(code []inst, at int) {
	for i := at - 1; i >= 0; i-- {
		if code[i].m.Clock {
			code[i].m.Stamp = model.StampBegin
			break
		}
	}
	for i := at + 1; i < len(code); i++ {
		if code[i].m.Clock {
			code[i].m.Stamp = model.StampEnd
			break
		}
	}
}

// Lower lowers entry and the functions it calls.
func (p *Program) Lower(entry string) (*Code, error) {
	fn, ok := p.funcs[entry]
	if !ok || fn.Kind != ptx.Entry {
		return nil, fmt.Errorf("%s: no .entry %q (entries: %s)", p.Name, entry, strings.Join(p.Entries(), ", "))
	}
	if fn.Body == nil {
		return nil, fmt.Errorf("%s: .entry %q has no body", p.Name, entry)
	}
	c := &Code{Prog: p, Name: entry, funcs: map[string]*fnCode{}, sharedOff: map[string]int{}, dynShared: map[string]bool{}, am: &addrMap64}
	if p.addr32 {
		c.am = &addrMap32
	}
	// Kernel parameters.
	off := 0
	for _, d := range fn.Params {
		for i, n := range d.Names {
			size := d.Size(i)
			al := declAlign(d)
			if d.Align == 0 && size > 0 && size <= 16 {
				al = size
				if d.Vec == 0 && d.Type.Size() > 0 {
					al = d.Type.Size()
				}
			}
			off = alignUp(off, al)
			c.Params = append(c.Params, ParamInfo{Name: n.Name, Type: d.Type, Size: size, Offset: off, Align: al,
				Ptr: d.Ptr || (size == 8 && !d.Type.IsFloat() && len(n.Dims) == 0)})
			off += size
		}
	}
	c.ParamSize = off
	// Module shared variables: static ones first, extern arrays alias the
	// dynamic area.
	for _, v := range p.shared {
		if v.extern {
			c.dynShared[v.name] = true
			continue
		}
		o := alignUp(c.SharedStatic, v.align)
		c.sharedOff[v.name] = o
		c.SharedStatic = o + v.size
	}
	if _, err := c.lowerFunc(fn); err != nil {
		return nil, err
	}
	c.entry = c.funcs[entry]
	for _, d := range fn.Perf {
		if d.Name == ".maxnreg" && len(d.Args) == 1 {
			n, err := strconv.Atoi(d.Args[0].Text)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("%s: .entry %q: bad .maxnreg %q", p.Name, entry, d.Args[0].Text)
			}
			c.maxnreg = n
		}
	}
	// Dense model register numbers.
	base := 0
	for _, f := range c.order {
		f.regBase = base
		base += f.ndecl
		for i := range f.code {
			fillRegs(&f.code[i])
		}
	}
	c.nregs = base
	return c, nil
}

// dynBase returns the offset of dynamic shared memory.
func (c *Code) dynBase() int { return alignUp(c.SharedStatic, 16) }

// lowerFunc lowers fn (once) and the functions it calls.
func (c *Code) lowerFunc(fn *ptx.Function) (*fnCode, error) {
	if f, ok := c.funcs[fn.Name]; ok {
		return f, nil
	}
	f := &fnCode{name: fn.Name, entry: fn.Kind == ptx.Entry}
	c.funcs[fn.Name] = f
	c.order = append(c.order, f)
	if fn.Body == nil {
		switch fn.Name {
		case "vprintf":
			f.builtin = builtinVprintf
			c.UsesPrintf = true
		case "__assertfail", "__assert_fail":
			f.builtin = builtinAssert
		case "malloc":
			f.builtin = builtinMalloc
		case "free":
			f.builtin = builtinFree
		default:
			if b, ok := devrtBuiltin(fn.Name); ok {
				f.builtin = b
				c.UsesDevRT = true
				break
			}
			if why := devrtRefusal(fn.Name); why != "" {
				return nil, fmt.Errorf("%s: call of %s: %s", c.Prog.Name, fn.Name, why)
			}
			ld, isLib, err := lookupLibdevice(fn.Name)
			if !isLib {
				return nil, fmt.Errorf("%s: call of %s, which has no body and is not a known built-in", c.Prog.Name, fn.Name)
			} else if err != nil {
				return nil, fmt.Errorf("%s: %v", c.Prog.Name, err)
			}
			f.builtin, f.libdev = builtinLibdevice, ld
		}
		// Builtins take their parameters as frame bytes.
		l := &lowerer{c: c, fn: fn, f: f, regs: map[string]int32{}}
		l.layoutParams()
		f.frameSize = alignUp(l.frame, 16)
		if err := checkDevrtSig(fn.Name, f); err != nil {
			return nil, fmt.Errorf("%s: %v", c.Prog.Name, err)
		}
		if f.libdev != nil {
			if err := checkLibdevSig(fn.Name, f.libdev, f); err != nil {
				return nil, fmt.Errorf("%s: %v", c.Prog.Name, err)
			}
		}
		return f, nil
	}
	l := &lowerer{c: c, fn: fn, f: f, regs: map[string]int32{}, consts: map[regInit]int32{}}
	if err := l.lower(); err != nil {
		return nil, err
	}
	if err := l.checkModRegs(); err != nil {
		return nil, err
	}
	if f.frameSize > c.maxFrame {
		c.maxFrame = f.frameSize
	}
	return f, nil
}

// symbol is a name a function can refer to.
type symbol struct {
	sp   space
	off  int64 // frame offset, shared offset, const offset, param offset
	glob int   // global variable index when sp == spGlobal
	size int
}

type lowerer struct {
	c       *Code
	table   map[string]opSpec // opTable, made on first use
	fn      *ptx.Function
	f       *fnCode
	regs    map[string]int32 // declared register -> index
	rtypes  []ptx.Type
	consts  map[regInit]int32
	scopes  []map[string]symbol // variables per block scope, innermost last
	frame   int                 // frame bytes so far
	params  map[string]symbol   // parameters of a .func (frame) or entry (param buffer)
	cfg     *ptx.CFG
	pcOf    map[*ptx.Instruction]int
	err     error
	scratch int32
	modRegs map[string]bool // module-scope registers not shadowed in this function
	modUsed map[string]bool // module-scope registers this function refers to
}

func (l *lowerer) newReg(name string, t ptx.Type) int32 {
	i := int32(len(l.rtypes))
	l.rtypes = append(l.rtypes, t)
	l.f.regNames = append(l.f.regNames, name) // indexed by register
	if name != "" {
		l.regs[name] = i
	}
	return i
}

// layoutParams assigns frame slots (or registers) to the parameters and
// return values of a .func, and param-buffer symbols for an entry.
func (l *lowerer) layoutParams() {
	l.params = map[string]symbol{}
	if l.fn.Kind == ptx.Entry {
		for _, p := range l.c.Params {
			l.params[p.Name] = symbol{sp: spParam, off: int64(p.Offset), size: p.Size}
		}
		return
	}
	add := func(ds []*ptx.VarDecl) []slot {
		var out []slot
		for _, d := range ds {
			for i, n := range d.Names {
				size := d.Size(i)
				if d.Space == ptx.SpaceReg {
					r := l.newReg(n.Name, d.Type)
					out = append(out, slot{reg: r * 32, size: size})
					continue
				}
				al := declAlign(d)
				l.frame = alignUp(l.frame, al)
				l.params[n.Name] = symbol{sp: spFrame, off: int64(l.frame), size: size}
				out = append(out, slot{reg: -1, off: l.frame, size: size})
				l.frame += size
			}
		}
		return out
	}
	l.f.rets = add(l.fn.Ret)
	l.f.params = add(l.fn.Params)
}

// collect walks the body: declares registers and variables per scope and
// records the scope of every instruction, in the order BuildCFG flattens
// them.
func (l *lowerer) collect(b *ptx.Block, scopeOf map[*ptx.Instruction][]map[string]symbol) {
	scope := map[string]symbol{}
	l.scopes = append(l.scopes, scope)
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.VarDecl:
			l.declare(s, scope)
		case *ptx.Instruction:
			scopeOf[s] = append([]map[string]symbol(nil), l.scopes...)
		case *ptx.Block:
			l.collect(s, scopeOf)
		}
	}
	l.scopes = l.scopes[:len(l.scopes)-1]
}

// declareModRegs declares the module-scope registers (PTX 1.x modules
// declare %rv1, %ra1, ... outside every function) that the function does
// not declare itself. Registers are per thread; replay gives each call
// frame its own copy, which is exact as long as no value travels between
// functions through one of them: checkModRegs refuses a kernel where two
// of its functions use the same module-scope register.
func (l *lowerer) declareModRegs() {
	for _, d := range l.c.Prog.modRegs {
		for _, n := range d.Names {
			names := []string{n.Name}
			if n.Range >= 0 {
				names = names[:0]
				for i := 0; i < n.Range; i++ {
					names = append(names, n.Name+strconv.Itoa(i))
				}
			}
			for _, nm := range names {
				if _, ok := l.regs[nm]; ok {
					continue // shadowed by a function-scope declaration
				}
				if l.modRegs == nil {
					l.modRegs, l.modUsed = map[string]bool{}, map[string]bool{}
				}
				l.modRegs[nm] = true
				l.newReg(nm, d.Type)
			}
		}
	}
}

func (l *lowerer) noteModReg(name string) {
	if l.modRegs[name] {
		l.modUsed[name] = true
	}
}

// checkModRegs records the module-scope registers the function used and
// fails when another function of the kernel uses one of them too.
func (l *lowerer) checkModRegs() error {
	if len(l.modUsed) == 0 {
		return nil
	}
	if l.c.modRegUse == nil {
		l.c.modRegUse = map[string]string{}
	}
	names := make([]string, 0, len(l.modUsed))
	for nm := range l.modUsed {
		names = append(names, nm)
	}
	slices.Sort(names)
	for _, nm := range names {
		if other, ok := l.c.modRegUse[nm]; ok && other != l.fn.Name {
			return fmt.Errorf("%s: module-scope register %s is used by both %s and %s: values passed between functions through module-scope registers are not modelled", l.c.Prog.Name, nm, other, l.fn.Name)
		}
		l.c.modRegUse[nm] = l.fn.Name
	}
	return nil
}

func (l *lowerer) declare(d *ptx.VarDecl, scope map[string]symbol) {
	switch d.Space {
	case ptx.SpaceReg:
		for _, n := range d.Names {
			if n.Range >= 0 {
				for i := 0; i < n.Range; i++ {
					nm := n.Name + strconv.Itoa(i)
					if _, ok := l.regs[nm]; !ok {
						l.newReg(nm, d.Type)
					}
				}
				continue
			}
			if _, ok := l.regs[n.Name]; !ok {
				l.newReg(n.Name, d.Type)
			}
		}
	case ptx.SpaceLocal, ptx.SpaceParam:
		for i, n := range d.Names {
			size := d.Size(i)
			al := declAlign(d)
			l.frame = alignUp(l.frame, al)
			sp := spLocal
			if d.Space == ptx.SpaceParam {
				sp = spFrame
			}
			scope[n.Name] = symbol{sp: sp, off: int64(l.frame), size: size}
			l.frame += size
		}
	case ptx.SpaceShared:
		for i, n := range d.Names {
			size := d.Size(i)
			if size == 0 {
				l.c.dynShared[n.Name] = true
				scope[n.Name] = symbol{sp: spShared, off: -1}
				continue
			}
			key := l.fn.Name + "::" + n.Name
			o, ok := l.c.sharedOff[key]
			if !ok {
				o = alignUp(l.c.SharedStatic, declAlign(d))
				l.c.sharedOff[key] = o
				l.c.SharedStatic = o + size
			}
			scope[n.Name] = symbol{sp: spShared, off: int64(o), size: size}
		}
	case ptx.SpaceConst, ptx.SpaceGlobal:
		// function-scope .const/.global: rare; treat like module variables
		_ = l.c.Prog.addModuleVar(d)
	}
}

func (l *lowerer) lower() error {
	l.layoutParams()
	scopeOf := map[*ptx.Instruction][]map[string]symbol{}
	l.collect(l.fn.Body, scopeOf)
	l.declareModRegs()
	l.f.ndecl = len(l.rtypes)
	l.f.dtypes = append([]ptx.Type(nil), l.rtypes...)
	l.scratch = l.newReg("", ptx.B64) * 32
	l.cfg = ptx.BuildCFG(l.fn)
	insts := l.cfg.Insts
	l.pcOf = make(map[*ptx.Instruction]int, len(insts))
	for i, in := range insts {
		l.pcOf[in] = i
	}
	// branch targets and reconvergence points per block terminator
	type br struct {
		target int32
		rpc    int32
	}
	brs := map[*ptx.Instruction]br{}
	for _, b := range l.cfg.Blocks {
		last := b.Last()
		if last == nil {
			continue
		}
		rpc := int32(-1)
		if b.IPDom != nil {
			rpc = int32(b.IPDom.First)
		}
		t := int32(-1)
		for _, e := range b.Succs {
			if e.Kind == ptx.EdgeTaken {
				t = int32(e.Block.First)
			}
		}
		brs[last] = br{t, rpc}
	}
	l.f.code = make([]inst, len(insts))
	for i, pin := range insts {
		in := &l.f.code[i]
		in.fn = l.f
		in.m.PC = i
		in.m.Probe = -1
		in.guard = -1
		in.tex = -1
		in.rnd = rndNone
		in.target, in.rpc = -1, -1
		if b, ok := brs[pin]; ok {
			in.target, in.rpc = b.target, b.rpc
		}
		if l.c.Prog.File.Tok != nil && pin.Pos().IsValid() {
			in.m.Line = l.c.Prog.File.Tok.Position(pin.Pos()).Line
		}
		in.text = instText(pin)
		l.scopes = scopeOf[pin]
		if err := l.lowerInst(pin, in); err != nil {
			in.exec = execUnsupported
			in.nd, in.ns = 0, 0
			if _, ok := err.(*unsupportedError); !ok {
				err = fmt.Errorf("replay: %s: %v", in.text, err)
			}
			in.why = err.Error()
			col := 0
			if l.c.Prog.File.Tok != nil && pin.Pos().IsValid() {
				col = l.c.Prog.File.Tok.Position(pin.Pos()).Column
			}
			l.c.Warnings = append(l.c.Warnings, fmt.Sprintf("%s:%d:%d: %v", l.c.Prog.Name, in.m.Line, col, err))
		}
		if pin.Guard != "" {
			g, err := l.regOf(pin.Guard)
			if err != nil {
				return fmt.Errorf("%s:%d: guard: %v", l.c.Prog.Name, in.m.Line, err)
			}
			in.guard, in.gneg = g, pin.GuardNeg
		}
	}
	if l.err != nil {
		return l.err
	}
	l.f.nregs = len(l.rtypes)
	l.f.frameSize = alignUp(l.frame, 16)
	return nil
}

// instText renders an instruction for fault reports.
func instText(in *ptx.Instruction) string {
	var sb strings.Builder
	toks := in.Toks.Slice()
	for i, t := range toks {
		if t.Kind == ptx.COMMENT {
			continue
		}
		if i > 0 {
			switch t.Kind {
			case ptx.COMMA, ptx.SEMI, ptx.RBRACK, ptx.RBRACE, ptx.RPAREN:
			default:
				p := toks[i-1].Kind
				if p != ptx.LBRACK && p != ptx.LBRACE && p != ptx.LPAREN && p != ptx.AT && p != ptx.NOT &&
					!(t.Kind == ptx.PLUS || p == ptx.PLUS) && t.Kind != ptx.OR && p != ptx.OR {
					sb.WriteByte(' ')
				}
			}
		}
		sb.WriteString(t.Text)
	}
	if sb.Len() == 0 && in.Op != nil {
		sb.WriteString(in.Op.Text)
	}
	return sb.String()
}

// lookup resolves a non-register name.
func (l *lowerer) lookup(name string) (symbol, bool) {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if s, ok := l.scopes[i][name]; ok {
			if s.sp == spShared && s.off < 0 {
				return symbol{sp: spShared, off: int64(l.c.dynBase())}, true
			}
			return s, true
		}
	}
	if s, ok := l.params[name]; ok {
		return s, true
	}
	p := l.c.Prog
	if i, ok := p.globalIdx[name]; ok {
		return symbol{sp: spGlobal, glob: i, size: p.globals[i].Size}, true
	}
	if o, ok := p.constOff[name]; ok {
		return symbol{sp: spConst, off: int64(o)}, true
	}
	if o, ok := l.c.sharedOff[name]; ok {
		return symbol{sp: spShared, off: int64(o)}, true
	}
	if l.c.dynShared[name] {
		return symbol{sp: spShared, off: int64(l.c.dynBase())}, true
	}
	return symbol{}, false
}

// constReg returns a register initialised by ri at frame creation.
func (l *lowerer) constReg(ri regInit) int32 {
	if r, ok := l.consts[ri]; ok {
		return r
	}
	r := l.newReg("", ptx.B64) * 32
	key := ri
	ri.reg = r
	if ri.kind == initSpecial && special(ri.idx).dynamic() {
		l.f.dyn = append(l.f.dyn, ri)
	} else {
		l.f.inits = append(l.f.inits, ri)
	}
	l.consts[key] = r
	return r
}

// symAddr returns a register holding the address of symbol s (in its own
// space) plus off.
func (l *lowerer) symAddr(s symbol, off int64) int32 {
	switch s.sp {
	case spGlobal:
		return l.constReg(regInit{kind: initGlobal, idx: int32(s.glob), v: uint64(off)})
	case spLocal, spFrame:
		return l.constReg(regInit{kind: initFrame, v: uint64(s.off + off)})
	}
	return l.constReg(regInit{kind: initImm, v: uint64(s.off + off)})
}

// regOf returns the register offset of a declared or special register.
func (l *lowerer) regOf(name string) (int32, error) {
	if r, ok := l.regs[name]; ok {
		l.noteModReg(name)
		return r * 32, nil
	}
	if sr, ok := specialNames[name]; ok {
		return l.constReg(regInit{kind: initSpecial, idx: int32(sr)}), nil
	}
	if strings.HasPrefix(name, "%envreg") || strings.HasPrefix(name, "%pm") || strings.HasPrefix(name, "%reserved_smem") {
		return l.constReg(regInit{kind: initSpecial, idx: int32(srZero)}), nil
	}
	return -1, fmt.Errorf("unknown register %s", name)
}

// src lowers a source operand read as type t to a register offset.
func (l *lowerer) src(op ptx.Operand, t ptx.Type) (int32, error) {
	switch op.Kind {
	case ptx.OpReg, ptx.OpPredNeg:
		if r, err := l.regOf(op.Name); err == nil {
			return r, nil
		}
		if s, ok := l.lookup(op.Name); ok {
			return l.symAddr(s, 0), nil
		}
		if i, ok := l.c.Prog.texIdx[op.Name]; ok {
			return l.constReg(regInit{kind: initImm, v: uint64(i)}), nil
		}
		if a, ok := l.c.Prog.funcAddr(op.Name); ok {
			return l.constReg(regInit{kind: initImm, v: a}), nil
		}
		return -1, fmt.Errorf("unknown name %s", op.Name)
	case ptx.OpImm:
		v, err := immBits(op.Name, t, false)
		if err != nil {
			return -1, err
		}
		return l.constReg(regInit{kind: initImm, v: v}), nil
	case ptx.OpExpr:
		s, off, err := l.symExpr(op.Expr)
		if err != nil {
			return -1, err
		}
		if s == nil {
			return l.constReg(regInit{kind: initImm, v: uint64(off)}), nil
		}
		return l.symAddr(*s, off), nil
	case ptx.OpSink:
		return l.scratch, nil
	}
	return -1, fmt.Errorf("unsupported operand")
}

// symExpr evaluates "sym", "sym+4", "sym-4", "4+sym", and integer
// expressions of + and -.
func (l *lowerer) symExpr(toks []ptx.Token) (*symbol, int64, error) {
	var sym *symbol
	var off int64
	sign := int64(1)
	for _, t := range toks {
		switch t.Kind {
		case ptx.PLUS:
		case ptx.MINUS:
			sign = -sign
			continue
		case ptx.LPAREN, ptx.RPAREN:
		case ptx.INT:
			v, err := immBits(t.Text, ptx.S64, false)
			if err != nil {
				return nil, 0, err
			}
			off += sign * int64(v)
		case ptx.IDENT:
			if t.Text == "generic" {
				continue
			}
			s, ok := l.lookup(t.Text)
			if !ok || sym != nil {
				return nil, 0, fmt.Errorf("unsupported expression operand")
			}
			sym = &s
		default:
			return nil, 0, fmt.Errorf("unsupported expression operand")
		}
		sign = 1
	}
	return sym, off, nil
}

// dst lowers a destination register operand.
func (l *lowerer) dst(op ptx.Operand) (int32, error) {
	switch op.Kind {
	case ptx.OpSink:
		return l.scratch, nil
	case ptx.OpReg:
		if r, ok := l.regs[op.Name]; ok {
			l.noteModReg(op.Name)
			return r * 32, nil
		}
	}
	return -1, fmt.Errorf("bad destination operand %q", op.Name)
}

// addr lowers a memory address operand: the register holding the base
// (a symbol's address for [sym+off]) and the constant offset, and the
// space the symbol lives in (spNone for a register base).
func (l *lowerer) addr(op ptx.Operand) (int32, int64, space, error) {
	switch op.Kind {
	case ptx.OpAddr:
		if op.Name == "" {
			return l.constReg(regInit{kind: initImm}), op.Offset, spNone, nil
		}
		if r, err := l.regOf(op.Name); err == nil {
			return r, op.Offset, spNone, nil
		}
		s, ok := l.lookup(op.Name)
		if !ok {
			return -1, 0, spNone, fmt.Errorf("unknown symbol %s", op.Name)
		}
		return l.symAddr(s, 0), op.Offset, s.sp, nil
	case ptx.OpExpr:
		toks := op.Expr
		if len(toks) >= 2 && toks[0].Kind == ptx.LBRACK && toks[len(toks)-1].Kind == ptx.RBRACK {
			toks = toks[1 : len(toks)-1]
		}
		// [reg+sym]? only symbols and integers are supported
		s, off, err := l.symExpr(toks)
		if err != nil {
			return -1, 0, spNone, err
		}
		if s == nil {
			return l.constReg(regInit{kind: initImm}), off, spNone, nil
		}
		return l.symAddr(*s, 0), off, s.sp, nil
	}
	return -1, 0, spNone, fmt.Errorf("expected an address operand")
}

// fillRegs sets the model view's Dst and Src (declared registers only).
func fillRegs(in *inst) {
	f := in.fn
	lim := int32(f.ndecl * 32)
	add := func(list []model.Reg, r int32) []model.Reg {
		if r < 0 || r >= lim {
			return list
		}
		mr := model.Reg(f.regBase + int(r/32))
		for _, x := range list {
			if x == mr {
				return list
			}
		}
		return append(list, mr)
	}
	var dst, src []model.Reg
	for i := 0; i < int(in.nd); i++ {
		dst = add(dst, in.d[i])
	}
	for i := 0; i < int(in.ns); i++ {
		src = add(src, in.s[i])
	}
	if in.guard >= 0 {
		src = add(src, in.guard)
	}
	for _, a := range in.args {
		src = add(src, a.reg)
	}
	for _, a := range in.rets {
		dst = add(dst, a.reg)
	}
	sort.Slice(dst, func(i, j int) bool { return dst[i] < dst[j] })
	sort.Slice(src, func(i, j int) bool { return src[i] < src[j] })
	in.m.Dst, in.m.Src = dst, src
}

// classOf maps ptx facts to the model's pipeline classes.
func classOf(f ptx.Facts, o *ptx.Opcode) model.Class {
	switch f.Class {
	case ptx.ClassInt, ptx.ClassMove, ptx.ClassVideo:
		return model.ClassInt
	case ptx.ClassFP32, ptx.ClassFP16:
		return model.ClassFP32
	case ptx.ClassFP64:
		return model.ClassFP64
	case ptx.ClassSFU:
		return model.ClassSFU
	case ptx.ClassConvert:
		if len(o.Types) == 2 && !o.Types[0].IsFloat() && !o.Types[1].IsFloat() {
			return model.ClassInt
		}
		return model.ClassConv
	case ptx.ClassTensor:
		return model.ClassTensor
	case ptx.ClassMemory, ptx.ClassTexture:
		return model.ClassLdSt
	case ptx.ClassControl:
		return model.ClassBranch
	case ptx.ClassWarp:
		return model.ClassWarpSync
	case ptx.ClassSync:
		switch {
		case f.Name == "bar.warp.sync":
			return model.ClassWarpSync
		case f.Barrier:
			return model.ClassBarrier
		case f.Fence:
			return model.ClassFence
		}
	}
	return model.ClassMisc
}
