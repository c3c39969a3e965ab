package replay

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// lowerAddSub lowers add, sub.
func (l *lowerer) lowerAddSub(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t, name := p.Args, p.Op.Type(), f.Name
	if err := need(a, 3); err != nil {
		return err
	}
	if err := l.ops(in, a[0], t, a[1], a[2]); err != nil {
		return err
	}
	if isFloatT(t) {
		s := uint8(fAdd)
		if name == "sub" {
			s = fSub
		}
		return l.setFloat(in, t, s)
	}
	switch {
	case in.flags&fCC != 0:
		in.exec = execAddCC
		if name == "sub" {
			in.sub = 1
		}
	case in.flags&fSat != 0:
		in.exec = execInt
		in.sub = iAddSat
		if name == "sub" {
			in.sub = iSubSat
		}
	case name == "add":
		in.exec = execAdd
	default:
		in.exec = execSub
	}
	return nil
}

// lowerAddcSubc lowers addc, subc.
func (l *lowerer) lowerAddcSubc(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t, name := p.Args, p.Op.Type(), f.Name
	if err := l.ops(in, a[0], t, a[1], a[2]); err != nil {
		return err
	}
	in.exec = execAddCC
	in.flags |= fCarry
	if name == "subc" {
		in.sub = 1
	}
	return nil
}

// lowerMul lowers mul.
func (l *lowerer) lowerMul(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t := p.Args, p.Op.Type()
	if err := need(a, 3); err != nil {
		return err
	}
	if err := l.ops(in, a[0], t, a[1], a[2]); err != nil {
		return err
	}
	if isFloatT(t) {
		return l.setFloat(in, t, fMul)
	}
	switch {
	case in.flags&fHi != 0:
		in.exec, in.sub = execInt, iMulHi
	case in.flags&fWide != 0:
		in.exec, in.sub = execInt, iMulWide
		in.mask = widthMask(2 * in.bits)
	default:
		in.exec = execMulLo
	}
	return nil
}

// lowerMad lowers mad, madc, fma.
func (l *lowerer) lowerMad(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t, name := p.Args, p.Op.Type(), f.Name
	if err := need(a, 4); err != nil {
		return err
	}
	if err := l.ops(in, a[0], t, a[1], a[2], a[3]); err != nil {
		return err
	}
	if isFloatT(t) {
		return l.setFloat(in, t, fFma)
	}
	switch {
	case in.flags&fCC != 0 || name == "madc":
		in.exec = execAddCC
		if name == "madc" {
			in.flags |= fCarry
		}
	case in.flags&fHi != 0:
		in.exec, in.sub = execInt, iMadHi
		if in.flags&fSat != 0 {
			in.sub = iMadHiSat
		}
	case in.flags&fWide != 0:
		in.exec, in.sub = execInt, iMadWide
		in.mask = widthMask(2 * in.bits)
	default:
		in.exec = execMadLo
	}
	return nil
}

// lowerMul24 lowers mul24, mad24.
func (l *lowerer) lowerMul24(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t, name := p.Args, p.Op.Type(), f.Name
	srcs := a[1:]
	if err := l.ops(in, a[0], t, srcs...); err != nil {
		return err
	}
	in.exec = execInt
	switch {
	case name == "mul24" && in.flags&fHi != 0:
		in.sub = iMul24Hi
	case name == "mul24":
		in.sub = iMul24Lo
	case in.flags&fHi != 0 && in.flags&fSat != 0:
		if t != ptx.S32 {
			return refuse(name, ".sat is defined for .hi.s32 only")
		}
		in.sub = iMad24HiSat
	case in.flags&fHi != 0:
		in.sub = iMad24Hi
	case in.flags&fSat != 0:
		return refuse(name, ".sat is defined for .hi.s32 only")
	default:
		in.sub = iMad24Lo
	}
	return nil
}

// lowerIntMisc lowers sad, div, rem, abs, neg, min, max, popc, clz, bfind, brev, bfe, bmsk, szext, fns.
func (l *lowerer) lowerIntMisc(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, t, name := p.Op, p.Args, p.Op.Type(), f.Name
	if err := need(a, 2); err != nil {
		return err
	}
	if err := l.ops(in, a[0], t, a[1:]...); err != nil {
		return err
	}
	if isFloatT(t) {
		switch name {
		case "div":
			if op.Has(".full") {
				in.rnd = uint8(fpx.RN)
			}
			return l.setFloat(in, t, fDiv)
		case "abs":
			return l.setFloat(in, t, fAbsV)
		case "neg":
			return l.setFloat(in, t, fNeg)
		case "min":
			if op.Has(".xorsign") {
				in.flags |= fXorSign
			}
			if op.Has(".abs") {
				in.flags |= fAbs
			}
			return l.setFloat(in, t, fMin)
		case "max":
			if op.Has(".xorsign") {
				in.flags |= fXorSign
			}
			if op.Has(".abs") {
				in.flags |= fAbs
			}
			return l.setFloat(in, t, fMax)
		}
		return fmt.Errorf("unsupported float %s", name)
	}
	in.exec = execInt
	in.sub = map[string]uint8{"sad": iSad, "div": iDiv, "rem": iRem, "abs": iAbs, "neg": iNeg,
		"min": iMin, "max": iMax, "popc": iPopc, "clz": iClz, "bfind": iBfind, "brev": iBrev,
		"bfe": iBfe, "bmsk": iBmsk, "szext": iSzext, "fns": iFns}[name]
	switch name {
	case "popc", "clz", "bfind":
		in.mask = 0xffffffff
	case "bmsk":
		in.mask = 0xffffffff
		if op.Has(".clamp") {
			in.flags |= fClamp
		}
	case "szext":
		if op.Has(".clamp") {
			in.flags |= fClamp
		}
	case "fns":
		in.mask = 0xffffffff
	}
	return nil
}

// lowerDp lowers dp4a, dp2a.
func (l *lowerer) lowerDp(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, name := p.Op, p.Args, f.Name
	if err := l.ops(in, a[0], ptx.U32, a[1:4]...); err != nil {
		return err
	}
	in.exec = execInt
	in.sub = iDp4a
	if name == "dp2a" {
		in.sub = iDp2aLo
		if op.Has(".hi") || in.flags&fHi != 0 {
			in.sub = iDp2aHi
		}
	}
	if len(op.Types) >= 2 {
		if op.Types[0].IsSigned() {
			in.sub2 |= 1
		}
		if op.Types[1].IsSigned() {
			in.sub2 |= 2
		}
	}
	in.bits, in.mask = 32, 0xffffffff
	return nil
}
