package replay

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// lowerTestp lowers testp.
func (l *lowerer) lowerTestp(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, t := p.Op, p.Args, p.Op.Type()
	if err := l.ops(in, a[0], t, a[1]); err != nil {
		return err
	}
	in.exec = execTestp
	in.sub = map[string]uint8{".finite": tpFinite, ".infinite": tpInfinite, ".number": tpNumber,
		".notanumber": tpNotANumber, ".normal": tpNormal, ".subnormal": tpSubnormal}[modOf(op, ".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal")]
	return nil
}

// lowerCopysign lowers copysign.
func (l *lowerer) lowerCopysign(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t := p.Args, p.Op.Type()
	if err := l.ops(in, a[0], t, a[1], a[2]); err != nil {
		return err
	}
	return l.setFloat(in, t, fCopysign)
}

// lowerSFU lowers rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh.
func (l *lowerer) lowerSFU(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t, name := p.Args, p.Op.Type(), f.Name
	if err := l.ops(in, a[0], t, a[1]); err != nil {
		return err
	}
	return l.setFloat(in, t, map[string]uint8{"rcp": fRcp, "sqrt": fSqrt, "rsqrt": fRsqrt, "sin": fSin,
		"cos": fCos, "lg2": fLg2, "ex2": fEx2, "tanh": fTanh}[name])
}

// setFloat picks the float executor for sub-operation sub on type t.
func (l *lowerer) setFloat(in *inst, t ptx.Type, sub uint8) error {
	in.sub = sub
	switch t {
	case ptx.F32:
		plain := (in.rnd == rndNone || in.rnd == uint8(fpx.RN)) && in.flags&(fFtz|fSat|fApprox|fRelu) == 0
		switch {
		case plain && sub == fAdd:
			in.exec = execFAdd32
		case plain && sub == fSub:
			in.exec = execFSub32
		case plain && sub == fMul:
			in.exec = execFMul32
		case plain && sub == fFma:
			in.exec = execFFma32
		default:
			in.exec = execF32
		}
	case ptx.F64:
		in.exec = execF64
	case ptx.F16, ptx.BF16:
		in.exec = execH16
		in.bits = 16
	case ptx.F16x2, ptx.BF16x2:
		in.exec = execH16
		in.bits = 32
	default:
		return fmt.Errorf("unsupported float type %s", t)
	}
	if t == ptx.BF16 || t == ptx.BF16x2 {
		in.sub2 = 1
	}
	return nil
}

func isFloatT(t ptx.Type) bool { return t.IsFloat() }

func isHalfFamily(t ptx.Type) bool {
	switch t {
	case ptx.F16, ptx.F16x2, ptx.BF16, ptx.BF16x2:
		return true
	}
	return false
}
