package replay

import (
	"github.com/ptxtrace/ptxtrace/ptx"
)

// lowerBfi lowers bfi.
func (l *lowerer) lowerBfi(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t := p.Args, p.Op.Type()
	if err := need(a, 5); err != nil {
		return err
	}
	if err := l.ops(in, a[0], t, a[1], a[2]); err != nil {
		return err
	}
	if err := l.setS(in, ptx.U32, a[3], a[4]); err != nil {
		return err
	}
	in.exec = execBfi
	return nil
}

// lowerLogic lowers and, or, xor, not, cnot.
func (l *lowerer) lowerLogic(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t, name := p.Args, p.Op.Type(), f.Name
	if err := need(a, 2); err != nil {
		return err
	}
	if err := l.ops(in, a[0], t, a[1:]...); err != nil {
		return err
	}
	if t == ptx.Pred {
		in.exec = execPredLogic
		in.sub = map[string]uint8{"and": lAnd, "or": lOr, "xor": lXor, "not": lNot, "cnot": lNot}[name]
		return nil
	}
	in.exec = map[string]execFn{"and": execAnd, "or": execOr, "xor": execXor, "not": execNot, "cnot": execCnot}[name]
	return nil
}

// lowerLop3 lowers lop3.
func (l *lowerer) lowerLop3(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t := p.Args, p.Op.Type()
	if err := need(a, 5); err != nil {
		return err
	}
	if err := l.ops(in, a[0], t, a[1:5]...); err != nil {
		return err
	}
	in.exec = execLop3
	return nil
}

// lowerShift lowers shl, shr.
func (l *lowerer) lowerShift(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t, name := p.Args, p.Op.Type(), f.Name
	if err := need(a, 3); err != nil {
		return err
	}
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	if err := l.setS(in, t, a[1]); err != nil {
		return err
	}
	if err := l.setS(in, ptx.U32, a[2]); err != nil {
		return err
	}
	if name == "shl" {
		in.exec = execShl
	} else {
		in.exec = execShr
	}
	return nil
}

// lowerShf lowers shf.
func (l *lowerer) lowerShf(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, t := p.Op, p.Args, p.Op.Type()
	if err := l.ops(in, a[0], t, a[1:4]...); err != nil {
		return err
	}
	in.exec = execInt
	in.sub = iShfR
	if op.Has(".l") {
		in.sub = iShfL
	}
	if op.Has(".clamp") {
		in.flags |= fClamp
	}
	in.mask = 0xffffffff
	return nil
}

// lowerPrmt lowers prmt.
func (l *lowerer) lowerPrmt(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, t := p.Op, p.Args, p.Op.Type()
	if err := l.ops(in, a[0], t, a[1:4]...); err != nil {
		return err
	}
	in.exec, in.sub = execInt, iPrmt
	for _, md := range []struct {
		s string
		v uint8
	}{{".f4e", prmtF4e}, {".b4e", prmtB4e}, {".rc8", prmtRc8}, {".ecl", prmtEcl}, {".ecr", prmtEcr}, {".rc16", prmtRc16}} {
		if op.Has(md.s) {
			in.sub2 = md.v
		}
	}
	in.mask = 0xffffffff
	return nil
}
