package replay

import (
	"github.com/ptxtrace/ptxtrace/ptx"
)

// lowerMov lowers mov.
func (l *lowerer) lowerMov(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t := p.Args, p.Op.Type()
	if err := need(a, 2); err != nil {
		return err
	}
	if a[0].Kind == ptx.OpVec {
		in.s[0], _ = l.src(a[1], t)
		in.ns = 1
		if err := l.setD(in, a[0].Elems...); err != nil {
			return err
		}
		in.exec = execMovUnpack
		return nil
	}
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	if a[1].Kind == ptx.OpVec {
		if err := l.setS(in, t, a[1].Elems...); err != nil {
			return err
		}
		in.exec = execMovPack
		return nil
	}
	if err := l.setS(in, t, a[1]); err != nil {
		return err
	}
	if t == ptx.Pred {
		in.sub = lMov
		in.exec = execPredLogic
		return nil
	}
	in.exec = execMov
	if sr, ok := l.staticSpecial(in.s[0]); ok {
		// mov from %tid.x, %ctaid.x, ...: computed into the destination,
		// the special's own register is not read
		in.exec, in.sub, in.ns = execMovSpecial, uint8(sr), 0
	}
	return nil
}

// staticSpecial reports whether register r is a special register the
// frame fills when it is created (not a dynamic one), and which.
func (l *lowerer) staticSpecial(r int32) (special, bool) {
	for _, ri := range l.f.inits {
		if ri.reg == r {
			return special(ri.idx), ri.kind == initSpecial
		}
	}
	return 0, false
}

// lowerCvt lowers cvt.
func (l *lowerer) lowerCvt(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a := p.Op, p.Args
	if err := twoTypes(in, op); err != nil {
		return err
	}
	in.signed = in.typ.IsSigned()
	if op.Has(".satfinite") {
		// .satfinite clamps to ±MAX_NORM of the destination format
		// (NaN stays NaN); the parser reports it as .sat, which
		// would clamp to [0, 1]
		in.flags &^= fSat
		in.sub = cvtSatFinite
	}
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	if err := l.setS(in, in.typ2, a[1:]...); err != nil {
		return err
	}
	if in.typ == ptx.F16x2 || in.typ == ptx.BF16x2 {
		in.exec = execCvtPack
		return nil
	}
	in.exec = execCvt
	return nil
}

// lowerCvta lowers cvta.
func (l *lowerer) lowerCvta(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, t := p.Op, p.Args, p.Op.Type()
	if err := l.ops(in, a[0], t, a[1]); err != nil {
		return err
	}
	in.space = spaceOf(op.Space)
	if op.Has(".to") {
		in.sub = 1
	}
	in.exec = execCvta
	return nil
}

// lowerIsspacep lowers isspacep.
func (l *lowerer) lowerIsspacep(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a := p.Op, p.Args
	if err := l.ops(in, a[0], ptx.U64, a[1]); err != nil {
		return err
	}
	in.space = spaceOf(op.Space)
	if in.space == spNone {
		in.space = spGlobal
	}
	in.exec = execIsspacep
	return nil
}
