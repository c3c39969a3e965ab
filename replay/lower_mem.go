package replay

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// lowerMem lowers loads, stores, atomics, reductions, prefetches and the
// texture/surface instructions.
func (l *lowerer) lowerMem(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op := p.Op
	a := p.Args
	t := op.Type()
	if f.Name == "ldmatrix" || f.Name == "stmatrix" {
		return l.lowerMatrix(p, in, f)
	}
	switch f.Mem {
	case ptx.MemPrefetch, ptx.MemAsyncCopy, ptx.MemBarrierObject:
		if f.Mem == ptx.MemPrefetch {
			in.exec = execNop
			return nil
		}
		return fmt.Errorf("unsupported memory instruction %s", op.Text)
	case ptx.MemTexture, ptx.MemQuery, ptx.MemSurfaceLoad, ptx.MemSurfaceStore, ptx.MemSurfaceReduction:
		return l.lowerTex(p, in, f)
	}
	in.vec = uint8(op.Vec)
	in.esize = uint8(t.Size())
	if t == ptx.Pred {
		in.esize = 1
	}
	in.m.Size = int(in.esize) * max(op.Vec, 1)
	var addrOp ptx.Operand
	var err error
	switch f.Mem {
	case ptx.MemLoad:
		in.m.Mem = model.MemLoad
		if err = need(a, 2); err != nil {
			return err
		}
		addrOp = a[1]
		if a[0].Kind == ptx.OpVec {
			err = l.setD(in, a[0].Elems...)
		} else {
			err = l.setD(in, a[0])
		}
		in.exec = execLd
	case ptx.MemStore:
		in.m.Mem = model.MemStore
		if err = need(a, 2); err != nil {
			return err
		}
		addrOp = a[0]
		in.ns = 1 // address register goes in s[0]
		if a[1].Kind == ptx.OpVec {
			err = l.setS(in, t, a[1].Elems...)
		} else {
			err = l.setS(in, t, a[1])
		}
		in.exec = execSt
	case ptx.MemAtomic, ptx.MemReduction:
		in.exec = execAtom
		in.sub = atomCodes[op.Atom]
		if op.Atom == "" {
			in.sub = atomCodes[op.BoolOp]
		}
		if f.Mem == ptx.MemAtomic {
			in.m.Mem = model.MemAtomic
			if err = need(a, 3); err != nil {
				return err
			}
			if in.sub == aCas {
				if err = need(a, 4); err != nil {
					return err
				}
			}
			if err = l.setD(in, a[0]); err != nil {
				return err
			}
			addrOp = a[1]
			in.ns = 1
			err = l.setS(in, t, a[2:]...)
		} else {
			in.m.Mem = model.MemReduce
			if err = need(a, 2); err != nil {
				return err
			}
			addrOp = a[0]
			in.ns = 1
			err = l.setS(in, t, a[1:]...)
		}
	default:
		return fmt.Errorf("unsupported memory instruction %s", op.Text)
	}
	if err != nil {
		return err
	}
	base, off, symSp, err := l.addr(addrOp)
	if err != nil {
		return err
	}
	in.s[0] = base
	if in.ns == 0 {
		in.ns = 1
	}
	in.off = off
	sp := spaceOf(f.Space)
	switch f.Space {
	case ptx.SpaceGeneric, ptx.SpaceNone:
		sp = spGeneric
		if symSp != spNone {
			// a generic access to a symbol's address: the symbol's space
			sp = symSp
			if sp == spFrame {
				sp = spLocal
			}
		}
	case ptx.SpaceParam:
		// a .param access in a .func or to a call-site .param variable
		// addresses the frame
		if symSp == spFrame || (symSp == spNone && !l.f.entry) {
			sp = spFrame
		}
	case ptx.SpaceLocal:
		if symSp == spFrame {
			sp = spFrame
		}
	}
	if sp == spNone {
		sp = spGeneric
	}
	in.space = sp
	in.m.Space = sp.model()
	if f.Mem == ptx.MemLoad && (sp == spParam || sp == spConst) && in.vec <= 1 && l.uniformReg(base) {
		switch in.esize {
		case 1, 2, 4, 8:
			in.flags |= fUniAddr
			in.exec = execLdUniform
			if l.f.entry && l.templateConst(base) {
				in.flags |= fUniConst
			}
		}
	}
	if (f.Mem == ptx.MemAtomic || f.Mem == ptx.MemReduction) && (sp == spGlobal || sp == spGeneric) {
		l.c.GlobalAtomics = true
	}
	if t.IsFloat() && f.Mem != ptx.MemAtomic && f.Mem != ptx.MemReduction {
		in.signed = false
	}
	return nil
}

func spaceOf(s ptx.Space) space {
	switch s {
	case ptx.SpaceGlobal:
		return spGlobal
	case ptx.SpaceShared, ptx.SpaceSharedCluster:
		return spShared
	case ptx.SpaceLocal:
		return spLocal
	case ptx.SpaceConst:
		return spConst
	case ptx.SpaceParam:
		return spParam
	}
	return spNone
}

// lowerMatrix lowers ldmatrix d, [a] and stmatrix [a], s.
func (l *lowerer) lowerMatrix(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op := p.Op
	a := p.Args
	name := f.Name
	num := 0
	var shape, sync, aligned, b16 bool
	for _, m := range op.Mods {
		switch m {
		case ".x1":
			num = 1
		case ".x2":
			num = 2
		case ".x4":
			num = 4
		case ".trans":
			in.sub2 = 1
		case ".m8n8":
			shape = true
		case ".sync":
			sync = true
		case ".aligned":
			aligned = true
		case ".b16":
			b16 = true
		case ".shared", ".shared::cta":
		default:
			return refuse(name, "modifier %s is not implemented (only .m8n8 .b16 with .x1/.x2/.x4 and .trans)", m)
		}
	}
	switch {
	case !shape || !b16:
		return refuse(name, "only the .m8n8 shape with .b16 elements is implemented")
	case num == 0:
		return refuse(name, "missing .x1, .x2 or .x4")
	case !sync || !aligned:
		return refuse(name, ".sync and .aligned are mandatory")
	}
	if err := need(a, 2); err != nil {
		return err
	}
	regs, addrOp := a[0], a[1]
	if name == "stmatrix" {
		regs, addrOp = a[1], a[0]
	}
	elems := []ptx.Operand{regs}
	if regs.Kind == ptx.OpVec {
		elems = regs.Elems
	}
	if len(elems) != num {
		return refuse(name, ".x%d needs %d registers, found %d", num, num, len(elems))
	}
	base, off, symSp, err := l.addr(addrOp)
	if err != nil {
		return err
	}
	in.s[0], in.ns = base, 1
	in.off = off
	in.vec = uint8(num)
	in.esize = 16
	in.m.Size = 16
	// without a state-space modifier the address is generic (the facts
	// default of ldmatrix/stmatrix is .shared, the ISA's is generic)
	sp := spaceOf(op.Space)
	if op.Space == ptx.SpaceNone || op.Space == ptx.SpaceGeneric {
		sp = spGeneric
		if symSp == spShared {
			sp = spShared
		}
	}
	if sp != spShared && sp != spGeneric {
		return refuse(name, "only shared memory is allowed")
	}
	in.space = sp
	in.m.Space = spShared.model()
	if name == "ldmatrix" {
		if err := l.setD(in, elems...); err != nil {
			return err
		}
		in.exec = execLdmatrix
		return nil
	}
	if err := l.setS(in, ptx.B32, elems...); err != nil {
		return err
	}
	in.exec = execStmatrix
	return nil
}

// uniformReg reports whether register offset r of the function being
// lowered holds the same value in every lane: a register initialised at
// frame creation with an immediate, a global's address or a frame address
// (not a special register). No instruction writes such a register (it has
// no name).
// templateConst reports whether register r is initialised to the same
// value in every frame of the function (an immediate or a global's
// address): the value the kernel's register template holds for it.
func (l *lowerer) templateConst(r int32) bool {
	for _, ri := range l.f.inits {
		if ri.reg == r {
			return ri.kind == initImm || ri.kind == initGlobal
		}
	}
	return false
}

func (l *lowerer) uniformReg(r int32) bool {
	for _, ri := range l.f.inits {
		if ri.reg == r {
			return ri.kind == initImm || ri.kind == initGlobal || ri.kind == initFrame
		}
	}
	return false
}
