package replay

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// lowerBra lowers bra.
func (l *lowerer) lowerBra(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	in.exec = execBra
	return nil
}

// lowerBrx lowers brx.
func (l *lowerer) lowerBrx(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a := p.Args
	if err := need(a, 2); err != nil {
		return err
	}
	if err := l.setS(in, ptx.U32, a[0]); err != nil {
		return err
	}
	list := l.cfg.TargetLists[a[1].Name]
	for _, lb := range list {
		b := l.cfg.Label(lb)
		if b == nil {
			return fmt.Errorf("brx.idx target %s not found", lb)
		}
		in.targets = append(in.targets, int32(b.First))
	}
	in.exec = execBrx
	return nil
}

// lowerRet lowers ret.
func (l *lowerer) lowerRet(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	in.exec = execRet
	return nil
}

// lowerExit lowers exit.
func (l *lowerer) lowerExit(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	in.exec = execExit
	return nil
}

// lowerTrap lowers trap.
func (l *lowerer) lowerTrap(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	in.exec = execTrap
	return nil
}

// lowerNop lowers membar, fence, nanosleep, brkpt, bar.warp.sync, pmevent, griddepcontrol, setmaxnreg, cp.
func (l *lowerer) lowerNop(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	in.exec = execNop
	return nil
}

// lowerWarpSync lowers bar.warp.sync membermask.
func (l *lowerer) lowerWarpSync(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	if err := need(p.Args, 1); err != nil {
		return err
	}
	if err := l.setS(in, ptx.B32, p.Args[0]); err != nil {
		return err
	}
	in.exec = execWarpSync
	return nil
}

// lowerCall lowers call [(rets),] fn [, (args)] [, proto].
func (l *lowerer) lowerCall(p *ptx.Instruction, in *inst) error {
	a := p.Args
	i := 0
	var rets []ptx.Operand
	if i < len(a) && a[i].Kind == ptx.OpTuple {
		rets = a[i].Elems
		i++
	}
	if i >= len(a) {
		return fmt.Errorf("call without a target")
	}
	name := a[i].Name
	i++
	var args []ptx.Operand
	if i < len(a) && a[i].Kind == ptx.OpTuple {
		args = a[i].Elems
	}
	fn, ok := l.c.Prog.funcs[name]
	if !ok {
		if _, isReg := l.regs[name]; !isReg {
			return fmt.Errorf("call of unknown function %s", name)
		}
		if err := l.lowerIndirect(p, in, name, len(rets), len(args)); err != nil {
			return err
		}
	} else {
		callee, err := l.c.lowerFunc(fn)
		if err != nil {
			return err
		}
		in.callee = callee
	}
	toSlot := func(o ptx.Operand) (slot, error) {
		if o.Kind == ptx.OpReg {
			if r, ok := l.regs[o.Name]; ok {
				return slot{reg: r * 32, size: 8}, nil
			}
			if s, ok := l.lookup(o.Name); ok && s.sp == spFrame || ok && s.sp == spLocal {
				return slot{reg: -1, off: int(s.off), size: max(s.size, 1)}, nil
			}
		}
		if o.Kind == ptx.OpImm {
			r, err := l.src(o, ptx.B64)
			return slot{reg: r, size: 8}, err
		}
		return slot{}, fmt.Errorf("unsupported call operand %q", o.Name)
	}
	for _, o := range args {
		s, err := toSlot(o)
		if err != nil {
			return err
		}
		in.args = append(in.args, s)
	}
	for _, o := range rets {
		s, err := toSlot(o)
		if err != nil {
			return err
		}
		in.rets = append(in.rets, s)
	}
	in.exec = execCall
	return nil
}

// lowerIndirect prepares a call through a register: every function of the
// module with a body and as many parameters and return values as the call
// passes is a possible callee (PTX requires the callee to match the call's
// prototype); the others, and functions that cannot be lowered, fault when
// called.
func (l *lowerer) lowerIndirect(p *ptx.Instruction, in *inst, reg string, nrets, nargs int) error {
	if err := l.setS(in, ptx.U64, ptx.Operand{Kind: ptx.OpReg, Name: reg}); err != nil {
		return err
	}
	prog := l.c.Prog
	in.callees = make([]*fnCode, len(prog.fnames))
	in.calleeErr = make([]string, len(prog.fnames))
	for i, name := range prog.fnames {
		fn := prog.funcs[name]
		switch {
		case fn.Kind == ptx.Entry:
			in.calleeErr[i] = "a kernel entry cannot be called"
			continue
		case fn.Body == nil:
			in.calleeErr[i] = "an external function without a body"
			continue
		case len(fn.Params) != nargs || len(fn.Ret) != nrets:
			in.calleeErr[i] = fmt.Sprintf("%d parameters and %d return values, the call passes %d and %d", len(fn.Params), len(fn.Ret), nargs, nrets)
			continue
		}
		f, err := l.c.lowerFunc(fn)
		if err != nil {
			in.calleeErr[i] = err.Error()
			continue
		}
		in.callees[i] = f
	}
	return nil
}

// lowerBar lowers bar/barrier: .sync (default), .arrive, .red.
func (l *lowerer) lowerBar(p *ptx.Instruction, in *inst) error {
	op := p.Op
	a := p.Args
	if op.Name == "bar" || op.Has(".aligned") {
		in.flags |= fAligned // bar.sync/arrive/red are barrier.*.aligned
	}
	if op.Has(".arrive") && len(a) < 2 {
		return fmt.Errorf("bar.arrive needs a thread count")
	}
	switch {
	case op.Has(".arrive"):
		in.sub = 1
	case op.Has(".red"):
		in.sub = 2
	}
	if in.sub == 2 {
		if err := need(a, 3); err != nil {
			return err
		}
		if err := l.setD(in, a[0]); err != nil {
			return err
		}
		if err := l.setS(in, ptx.U32, a[1]); err != nil {
			return err
		}
		if len(a) == 4 {
			if err := l.setS(in, ptx.U32, a[2]); err != nil {
				return err
			}
		} else {
			in.s[1] = -1
			in.ns = 2
		}
		if err := l.setS(in, ptx.Pred, a[len(a)-1]); err != nil {
			return err
		}
		switch {
		case op.Has(".and"):
			in.sub2 = 1
		case op.Has(".or"):
			in.sub2 = 2
		}
		in.exec = execBar
		return nil
	}
	if len(a) == 0 {
		if err := l.setS(in, ptx.U32, ptx.Operand{Kind: ptx.OpImm, Name: "0"}); err != nil {
			return err
		}
	} else if err := l.setS(in, ptx.U32, a...); err != nil {
		return err
	}
	in.exec = execBar
	return nil
}
