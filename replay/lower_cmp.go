package replay

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// lowerSetp lowers setp.
func (l *lowerer) lowerSetp(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, t := p.Op, p.Args, p.Op.Type()
	if err := need(a, 3); err != nil {
		return err
	}
	return l.lowerCompare(op, a, in, t, execSetp)
}

// lowerSet lowers set.
func (l *lowerer) lowerSet(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a := p.Op, p.Args
	if err := twoTypes(in, op); err != nil {
		return err
	}
	return l.lowerCompare(op, a, in, in.typ2, execSet)
}

// lowerCompare lowers the operands and modifiers setp and set share: the
// destination, the two sources compared as type t, the optional predicate
// combined with the result, the comparison and the boolean operation.
func (l *lowerer) lowerCompare(op *ptx.Opcode, a []ptx.Operand, in *inst, t ptx.Type, exec execFn) error {
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	if err := l.setS(in, t, a[1], a[2]); err != nil {
		return err
	}
	if len(a) > 3 {
		if err := l.setS(in, ptx.Pred, a[3]); err != nil {
			return err
		}
	}
	in.sub = cmpCodes[op.Cmp]
	in.sub2 = map[string]uint8{"": bNone, ".and": bAnd, ".or": bOr, ".xor": bXor}[op.BoolOp]
	in.exec = exec
	return nil
}

// lowerSelp lowers selp.
func (l *lowerer) lowerSelp(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a, t := p.Args, p.Op.Type()
	if err := l.ops(in, a[0], t, a[1], a[2]); err != nil {
		return err
	}
	if err := l.setS(in, ptx.Pred, a[3]); err != nil {
		return err
	}
	in.exec = execSelp
	return nil
}

// lowerSlct lowers slct.
func (l *lowerer) lowerSlct(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a := p.Op, p.Args
	if err := twoTypes(in, op); err != nil {
		return err
	}
	if err := l.ops(in, a[0], in.typ, a[1], a[2]); err != nil {
		return err
	}
	if err := l.setS(in, in.typ2, a[3]); err != nil {
		return err
	}
	in.exec = execSlct
	return nil
}

// twoTypes sets in's destination type (with its width and mask) and source
// type from an opcode with two type modifiers (set, slct, cvt).
func twoTypes(in *inst, op *ptx.Opcode) error {
	if len(op.Types) < 2 {
		return fmt.Errorf("%s needs two types", op.Name)
	}
	in.typ, in.typ2 = op.Types[0], op.Types[1]
	in.bits = uint8(in.typ.Size() * 8)
	in.mask = widthMask(in.bits)
	return nil
}
