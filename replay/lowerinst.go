package replay

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// setD lowers destination operands.
func (l *lowerer) setD(in *inst, ops ...ptx.Operand) error {
	for _, o := range ops {
		if o.Kind == ptx.OpPair {
			r1, err := l.dst(ptx.Operand{Kind: ptx.OpReg, Name: o.Name})
			if err != nil {
				return err
			}
			r2, err := l.dst(ptx.Operand{Kind: ptx.OpReg, Name: o.Name2})
			if err != nil {
				return err
			}
			in.d[in.nd], in.d[in.nd+1] = r1, r2
			in.nd += 2
			continue
		}
		r, err := l.dst(o)
		if err != nil {
			return err
		}
		if int(in.nd) >= len(in.d) {
			return fmt.Errorf("too many destinations")
		}
		in.d[in.nd] = r
		in.nd++
	}
	return nil
}

// setS lowers source operands read as type t.
func (l *lowerer) setS(in *inst, t ptx.Type, ops ...ptx.Operand) error {
	for _, o := range ops {
		if int(in.ns) >= len(in.s) {
			return fmt.Errorf("too many operands")
		}
		if o.Kind == ptx.OpPredNeg {
			in.sneg |= 1 << in.ns
		}
		r, err := l.src(o, t)
		if err != nil {
			return err
		}
		in.s[in.ns] = r
		in.ns++
	}
	return nil
}

func need(args []ptx.Operand, n int) error {
	if len(args) < n {
		return fmt.Errorf("expected at least %d operands, found %d", n, len(args))
	}
	return nil
}

func (l *lowerer) lowerInst(p *ptx.Instruction, in *inst) error {
	op := p.Op
	if op == nil {
		return fmt.Errorf("no opcode")
	}
	f := ptx.OpcodeFacts(op)
	in.m.Class = classOf(f, op)
	if !f.Known {
		return refuse(op.Name, "unknown opcode")
	}
	if l.table == nil {
		l.table = opTable()
	}
	spec, ok := l.table[f.Name]
	if !ok {
		return refuse(f.Name, "%s", notImplemented(f.Name))
	}
	if err := spec.checkSpelling(f.Name, op); err != nil {
		return err
	}
	if err := checkModifiers(f.Name, op); err != nil {
		return err
	}
	t := op.Type()
	in.typ = t
	in.bits = uint8(t.Size() * 8)
	if t == ptx.Pred {
		in.bits = 1
	}
	in.mask = widthMask(in.bits)
	in.signed = t.IsSigned()
	if r, ok := fpx.ParseRound(op.Rounding); ok && op.Rounding != "" {
		in.rnd = uint8(r)
	}
	fl := op.Flags
	for _, x := range []struct {
		p uint32
		q uint32
	}{{ptx.FlagFtz, fFtz}, {ptx.FlagSat, fSat}, {ptx.FlagApprox, fApprox}, {ptx.FlagHi, fHi},
		{ptx.FlagLo, fLo}, {ptx.FlagWide, fWide}, {ptx.FlagCC, fCC}, {ptx.FlagRelu, fRelu},
		{ptx.FlagNaN, fNaN}, {ptx.FlagShiftAmt, fShiftAmt}, {ptx.FlagUni, fUni}, {ptx.FlagSync, fSync}} {
		if fl&x.p != 0 {
			in.flags |= x.q
		}
	}
	a := p.Args
	for _, o := range a {
		if o.Kind == ptx.OpReg {
			if s, ok := specialNames[o.Name]; ok && s.dynamic() {
				in.flags |= fDyn
				switch s {
				case srClock, srClockHi, srClock64, srGlobaltimer, srGlobaltimerLo, srGlobaltimerHi:
					in.m.Clock = true
				}
			}
		}
	}
	if spec.lower == nil {
		return l.lowerCall(p, in)
	}
	return spec.lower(l, p, in, f)
}

// ops lowers the common "d, a, b, ..." shape.
func (l *lowerer) ops(in *inst, d ptx.Operand, t ptx.Type, srcs ...ptx.Operand) error {
	if err := l.setD(in, d); err != nil {
		return err
	}
	return l.setS(in, t, srcs...)
}

func modOf(op *ptx.Opcode, names ...string) string {
	for _, n := range names {
		if op.Has(n) {
			return n
		}
	}
	return ""
}
