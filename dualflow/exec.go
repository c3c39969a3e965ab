package dualflow

import (
	"fmt"
	"strings"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// Form is how a Program is encoded back into PTX.
type Form uint8

// Encodings.
const (
	// Ring emulates the Dualflow machine: a per-thread ring of 64-bit
	// slots in local memory and a register pointer %dfrp. Every source
	// operand is loaded from slot RP-d right before its instruction, every
	// result stored to slot RP+i right after it; the original registers
	// serve only as latches. A wrong distance reads a wrong value, so
	// running this form checks the conversion.
	Ring Form = iota
	// Light keeps the original registers and adds the inserted
	// instructions as identity operations (mov r, r; a dummy mov for nop;
	// real spill stores and reloads through local memory): the same values
	// at nearly the original cost. The D-FLOW timing model runs it, naming
	// operands by the Program's distances (Mapped).
	Light
)

// Encoded is a Program encoded as PTX: the function text and, for every
// instruction of the function in order (its PC once lowered), the index
// of the Dualflow instruction it belongs to in Flat.
type Encoded struct {
	Text string
	Flat []*DInst // the program's instructions in layout order
	PCs  []int    // PC -> index in Flat
	Main []bool   // PC -> the instruction that performs the DInst's operation
}

func regTypeName(t ptx.Type) string {
	switch classOfMust(t) {
	case ClassPred:
		return ".pred"
	case Class16:
		return ".b16"
	case Class32:
		return ".b32"
	}
	return ".b64"
}

func classOfMust(t ptx.Type) RegClass {
	c, _ := classOf(t)
	return c
}

// ringSize is a power of two larger than every distance plus the widest
// instruction, so no slot is overwritten before its last reader.
func (p *Program) ringSize() int {
	need := p.MaxDist + 9
	r := 16
	for r < need {
		r *= 2
	}
	return r
}

type emitter struct {
	p    *Program
	f    *Func
	b    strings.Builder
	enc  *Encoded
	cur  int
	mask int
}

func (e *emitter) ins(main bool, format string, args ...any) {
	fmt.Fprintf(&e.b, "\t"+format+"\n", args...)
	e.enc.PCs = append(e.enc.PCs, e.cur)
	e.enc.Main = append(e.enc.Main, main)
}

// slotAddr puts the address of ring slot RP+off (off may be negative)
// into %dfa.
func (e *emitter) slotAddr(off int) {
	if off >= 0 {
		e.ins(false, "add.u32 \t%%dft, %%dfrp, %d;", off)
	} else {
		e.ins(false, "sub.u32 \t%%dft, %%dfrp, %d;", -off)
	}
	e.ins(false, "and.b32 \t%%dft, %%dft, %d;", e.mask)
	e.ins(false, "mul.wide.u32 \t%%dfa, %%dft, 8;")
	e.ins(false, "add.u64 \t%%dfa, %%dfa, %%dfring;")
}

// load reads register r from the memory at [addr].
func (e *emitter) load(r, addr string) {
	switch e.f.Class(r) {
	case ClassPred:
		e.ins(false, "ld.local.u16 \t%%dfh, [%s];", addr)
		e.ins(false, "setp.ne.u16 \t%s, %%dfh, 0;", r)
	default:
		e.ins(false, "ld.local%s \t%s, [%s];", regTypeName(e.f.RegType[r]), r, addr)
	}
}

// store writes register r to the memory at [addr].
func (e *emitter) store(r, addr string) {
	switch e.f.Class(r) {
	case ClassPred:
		e.ins(false, "selp.u16 \t%%dfh, 1, 0, %s;", r)
		e.ins(false, "st.local.u16 \t[%s], %%dfh;", addr)
	default:
		e.ins(false, "st.local%s \t[%s], %s;", regTypeName(e.f.RegType[r]), addr, r)
	}
}

func (e *emitter) spillAddr(r string) string {
	return fmt.Sprintf("__df_spill+%d", 8*e.p.SpillSlot[r])
}

func (e *emitter) readSrcs(ss []Src) {
	done := map[string]bool{}
	for _, s := range ss {
		if done[s.Reg] {
			continue
		}
		done[s.Reg] = true
		e.slotAddr(-s.Dist)
		e.load(s.Reg, "%dfa")
	}
}

func (e *emitter) writeDefs(defs []string) {
	for i, r := range defs {
		e.slotAddr(i)
		e.store(r, "%dfa")
	}
}

func (e *emitter) advance(n int) { e.ins(false, "add.u32 \t%%dfrp, %%dfrp, %d;", n) }

func (e *emitter) ring(di *DInst) {
	switch di.Kind {
	case KInst:
		e.readSrcs(di.Srcs)
		text := e.f.srcText(di.Inst.In)
		if di.Target != "" {
			text = retarget(text, di.Inst.In, di.Target)
		}
		if isTerminator(di.Inst.In) {
			e.advance(di.Width())
			e.ins(true, "%s", text)
			return
		}
		e.ins(true, "%s", text)
		e.writeDefs(di.Defs)
	case KMov:
		e.readSrcs(di.Srcs)
		e.ins(true, "mov%s \t%s, %s;", regTypeName(e.f.RegType[di.Reg]), di.Reg, di.Reg)
		e.writeDefs(di.Defs)
	case KNop:
		e.ins(true, "mov.u32 \t%%dfnop, 0;")
	case KSpill:
		e.readSrcs(di.Srcs)
		e.store(di.Reg, e.spillAddr(di.Reg))
		e.enc.Main[len(e.enc.Main)-1] = true
	case KReload:
		e.load(di.Reg, e.spillAddr(di.Reg))
		e.enc.Main[len(e.enc.Main)-1] = true
		e.writeDefs(di.Defs)
	case KInit:
		e.slotAddr(0)
		e.ins(true, "st.local.u64 \t[%%dfa], %%dfz;")
	case KBra, KRet:
		e.advance(1)
		e.term(di)
		return
	}
	e.advance(di.Width())
}

func (e *emitter) light(di *DInst) {
	switch di.Kind {
	case KInst:
		text := e.f.srcText(di.Inst.In)
		if di.Target != "" {
			text = retarget(text, di.Inst.In, di.Target)
		}
		e.ins(true, "%s", text)
	case KBra, KRet:
		e.term(di)
	case KMov, KInit:
		e.ins(true, "mov%s \t%s, %s;", regTypeName(e.f.RegType[di.Reg]), di.Reg, di.Reg)
	case KNop:
		e.ins(true, "mov.u32 \t%%dfnop, 0;")
	case KSpill:
		e.store(di.Reg, e.spillAddr(di.Reg))
		e.enc.Main[len(e.enc.Main)-1] = true
	case KReload:
		e.load(di.Reg, e.spillAddr(di.Reg))
		e.enc.Main[len(e.enc.Main)-1] = true
	}
}

func (e *emitter) term(di *DInst) {
	if di.Kind == KBra {
		e.ins(true, "bra.uni \t%s;", di.Reg)
	} else {
		e.ins(true, "ret;")
	}
}

// Encode encodes p as PTX in form fm.
func (p *Program) Encode(fm Form) *Encoded {
	f := p.Func
	e := &emitter{p: p, f: f, enc: &Encoded{}, mask: p.ringSize() - 1}
	fn := f.Fn
	e.b.WriteString(string(f.File.Src[f.off(fn.Pos()):f.off(fn.Body.Lbrace.Pos)]))
	e.b.WriteString("{\n")
	var decls func(bl *ptx.Block)
	decls = func(bl *ptx.Block) {
		for _, s := range bl.Stmts {
			switch s := s.(type) {
			case *ptx.VarDecl:
				e.b.WriteString("\t" + f.srcText(s) + "\n")
			case *ptx.Block:
				decls(s)
			}
		}
	}
	decls(fn.Body)
	e.b.WriteString("\t.reg .u32 \t%dfnop;\n\t.reg .u16 \t%dfh;\n")
	if len(p.Spilled) > 0 {
		fmt.Fprintf(&e.b, "\t.local .align 8 .b8 \t__df_spill[%d];\n", 8*len(p.Spilled))
	}
	if fm == Ring {
		e.b.WriteString("\t.reg .u32 \t%dfrp, %dft;\n\t.reg .u64 \t%dfa, %dfring, %dfz;\n")
		fmt.Fprintf(&e.b, "\t.local .align 8 .b8 \t__df_ring[%d];\n", 8*p.ringSize())
		e.cur = -1
		e.ins(false, "mov.u32 \t%%dfrp, 0;")
		e.ins(false, "mov.u64 \t%%dfring, __df_ring;")
		e.ins(false, "mov.u64 \t%%dfz, 0;")
	}
	for _, s := range p.Segs {
		for _, l := range s.Labels {
			e.b.WriteString(l + ":\n")
		}
		for i := range s.Insts {
			di := &s.Insts[i]
			e.cur = len(e.enc.Flat)
			e.enc.Flat = append(e.enc.Flat, di)
			if fm == Ring {
				e.ring(di)
			} else {
				e.light(di)
			}
		}
	}
	e.b.WriteString("}\n")
	e.enc.Text = e.b.String()
	return e.enc
}

// ConvertFile converts every function with a body of file with maximum
// distance d and returns the module encoded in form fm with the programs
// and encodings by function name.
func ConvertFile(file *ptx.File, d int, fm Form) (string, map[string]*Program, map[string]*Encoded, error) {
	return ConvertFileProfiled(file, d, fm, nil)
}

// ConvertFileProfiled is ConvertFile with each function converted by
// ConvertProfiled with prof(name) (nil prof or nil result: Convert).
func ConvertFileProfiled(file *ptx.File, d int, fm Form, prof func(fn string) []uint64) (string, map[string]*Program, map[string]*Encoded, error) {
	progs := map[string]*Program{}
	encs := map[string]*Encoded{}
	out, err := RewriteFile(file, func(fn *ptx.Function) (string, error) {
		f, err := Analyze(file, fn)
		if err != nil {
			return "", err
		}
		var pr []uint64
		if prof != nil {
			pr = prof(fn.Name)
		}
		p, err := ConvertProfiled(f, d, pr)
		if err != nil {
			return "", err
		}
		enc := p.Encode(fm)
		progs[fn.Name], encs[fn.Name] = p, enc
		return enc.Text, nil
	})
	return out, progs, encs, err
}
