package dualflow

import (
	"fmt"
	"go/token"
	"sort"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// RegClass is the physical register file a virtual register needs: PTX
// registers are typed; a 64-bit value takes two 32-bit physical registers
// (as in SASS) and a 16-bit one a whole 32-bit register. Predicates live in
// their own small file and are not counted against N (ptxas -v does not
// count them either).
type RegClass uint8

// Register classes.
const (
	ClassPred RegClass = iota
	Class16
	Class32
	Class64
	numClasses
)

var classNames = [...]string{"pred", "b16", "b32", "b64"}

func (c RegClass) String() string { return classNames[c] }

// words is how many 32-bit physical registers one register of class c takes.
func (c RegClass) words() int {
	switch c {
	case ClassPred:
		return 0
	case Class64:
		return 2
	}
	return 1
}

func classOf(t ptx.Type) (RegClass, bool) {
	if t == ptx.Pred {
		return ClassPred, true
	}
	switch t.Size() {
	case 1, 2:
		return Class16, true
	case 4:
		return Class32, true
	case 8:
		return Class64, true
	}
	return 0, false
}

// Inst is one instruction of a function with its register effects.
type Inst struct {
	In    *ptx.Instruction
	Index int      // position in Func.Insts (source order)
	Block int      // index of its basic block in Func.CFG.Blocks
	Defs  []string // registers written, in operand order
	// Uses are the registers read: the guard first, then the sources in
	// operand order (each once), then, for a guarded instruction, its
	// destinations (a predicated-off instruction leaves the old value, so
	// the old value flows through it).
	Uses []string
	Line int
}

// Func is a kernel body prepared for the passes of this package: its CFG,
// the register effects of every instruction and liveness per block.
type Func struct {
	File  *ptx.File
	Fn    *ptx.Function
	CFG   *ptx.CFG
	Insts []*Inst
	// Regs are the function's declared registers in declaration order with
	// their types.
	Regs    []string
	RegType map[string]ptx.Type
	// LiveIn and LiveOut per block index.
	LiveIn, LiveOut []map[string]bool
	regIdx          map[string]int // declaration index, built on first use
}

// Pos formats the source position of in as file:line:col.
func (f *Func) Pos(in *ptx.Instruction) string {
	if f.File.Tok == nil || !in.Pos().IsValid() {
		return f.File.Name
	}
	p := f.File.Tok.Position(in.Pos())
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}

func (f *Func) line(p token.Pos) int {
	if f.File.Tok == nil || !p.IsValid() {
		return 0
	}
	return f.File.Tok.Position(p).Line
}

// Analyze prepares fn of file for conversion and allocation. It refuses
// (with file:line:col) what the passes cannot handle exactly: indirect
// branches, calls, unresolved branch targets, registers wider than 64 bits.
func Analyze(file *ptx.File, fn *ptx.Function) (*Func, error) {
	if fn.Body == nil {
		return nil, fmt.Errorf("%s: %s has no body", file.Name, fn.Name)
	}
	f := &Func{File: file, Fn: fn, RegType: map[string]ptx.Type{}}
	if err := f.collectRegs(); err != nil {
		return nil, err
	}
	f.CFG = ptx.BuildCFG(fn)
	if len(f.CFG.Issues) > 0 {
		is := f.CFG.Issues[0]
		return nil, fmt.Errorf("%s: %s", f.Pos(is.Inst), is.Msg)
	}
	rs := ptx.FunctionRegs(fn)
	for bi, b := range f.CFG.Blocks {
		for _, in := range b.Insts {
			if in.Op != nil {
				switch in.Op.Name {
				case "brx", "call":
					return nil, fmt.Errorf("%s: %s is not supported by the Dualflow passes", f.Pos(in), in.Op.Name)
				}
			}
			it := &Inst{In: in, Index: len(f.Insts), Block: bi, Line: f.line(in.Pos())}
			for _, r := range ptx.AppendDefs(nil, in, rs) {
				if _, ok := f.RegType[r]; ok && !contains(it.Defs, r) {
					it.Defs = append(it.Defs, r)
				}
			}
			for _, r := range ptx.AppendUses(nil, in, rs) {
				if _, ok := f.RegType[r]; ok && !contains(it.Uses, r) {
					it.Uses = append(it.Uses, r)
				}
			}
			if in.Guard != "" {
				for _, r := range it.Defs {
					if !contains(it.Uses, r) {
						it.Uses = append(it.Uses, r)
					}
				}
			}
			f.Insts = append(f.Insts, it)
		}
	}
	f.liveness()
	return f, nil
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func (f *Func) collectRegs() error {
	var walk func(b *ptx.Block) error
	walk = func(b *ptx.Block) error {
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ptx.VarDecl:
				if s.Space != ptx.SpaceReg {
					continue
				}
				if s.Vec > 0 {
					return fmt.Errorf("%s: vector registers are not supported", f.posOf(s.Pos()))
				}
				if _, ok := classOf(s.Type); !ok {
					return fmt.Errorf("%s: register type %s is not supported", f.posOf(s.Pos()), s.TypeName)
				}
				for _, d := range s.Names {
					if d.Range >= 0 {
						for i := 0; i < d.Range; i++ {
							f.addReg(fmt.Sprintf("%s%d", d.Name, i), s.Type)
						}
					} else {
						f.addReg(d.Name, s.Type)
					}
				}
			case *ptx.Block:
				if err := walk(s); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(f.Fn.Body)
}

func (f *Func) posOf(p token.Pos) string {
	if f.File.Tok == nil || !p.IsValid() {
		return f.File.Name
	}
	q := f.File.Tok.Position(p)
	return fmt.Sprintf("%s:%d:%d", q.Filename, q.Line, q.Column)
}

func (f *Func) addReg(name string, t ptx.Type) {
	if _, ok := f.RegType[name]; ok {
		return
	}
	f.RegType[name] = t
	f.Regs = append(f.Regs, name)
}

// Class returns the register class of a declared register.
func (f *Func) Class(r string) RegClass {
	c, _ := classOf(f.RegType[r])
	return c
}

// liveness computes LiveIn/LiveOut per block by the usual backward
// fixed point.
func (f *Func) liveness() {
	n := len(f.CFG.Blocks)
	f.LiveIn = make([]map[string]bool, n)
	f.LiveOut = make([]map[string]bool, n)
	for i := range f.LiveIn {
		f.LiveIn[i] = map[string]bool{}
		f.LiveOut[i] = map[string]bool{}
	}
	byBlock := make([][]*Inst, n)
	for _, it := range f.Insts {
		byBlock[it.Block] = append(byBlock[it.Block], it)
	}
	for changed := true; changed; {
		changed = false
		for bi := n - 1; bi >= 0; bi-- {
			b := f.CFG.Blocks[bi]
			out := f.LiveOut[bi]
			for _, e := range b.Succs {
				for r := range f.LiveIn[e.Block.Index] {
					if !out[r] {
						out[r] = true
						changed = true
					}
				}
			}
			live := map[string]bool{}
			for r := range out {
				live[r] = true
			}
			insts := byBlock[bi]
			for i := len(insts) - 1; i >= 0; i-- {
				for _, r := range insts[i].Defs {
					delete(live, r)
				}
				for _, r := range insts[i].Uses {
					live[r] = true
				}
			}
			for r := range live {
				if !f.LiveIn[bi][r] {
					f.LiveIn[bi][r] = true
					changed = true
				}
			}
		}
	}
}

// blockInsts returns the instructions of block bi.
func (f *Func) blockInsts(bi int) []*Inst {
	b := f.CFG.Blocks[bi]
	if len(b.Insts) == 0 {
		return nil
	}
	return f.Insts[b.First : b.First+len(b.Insts)]
}

// sortedRegs returns the keys of m in declaration order.
func (f *Func) sortedRegs(m map[string]bool) []string {
	if f.regIdx == nil {
		f.regIdx = make(map[string]int, len(f.Regs))
		for i, r := range f.Regs {
			f.regIdx[r] = i
		}
	}
	idx := f.regIdx
	out := make([]string, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return idx[out[i]] < idx[out[j]] })
	return out
}
