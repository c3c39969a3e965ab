package replay

import (
	"github.com/ptxtrace/ptxtrace/ptx"
)

// lowerShfl lowers shfl.
func (l *lowerer) lowerShfl(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a := p.Op, p.Args
	if err := need(a, 4); err != nil {
		return err
	}
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	if err := l.setS(in, ptx.B32, a[1:]...); err != nil {
		return err
	}
	in.sub = map[string]uint8{".up": shUp, ".down": shDown, ".bfly": shBfly, ".idx": shIdx}[modOf(op, ".up", ".down", ".bfly", ".idx")]
	in.exec = execShfl
	return nil
}

// lowerVote lowers vote.
func (l *lowerer) lowerVote(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a := p.Op, p.Args
	if err := need(a, 2); err != nil {
		return err
	}
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	if err := l.setS(in, ptx.Pred, a[1]); err != nil {
		return err
	}
	if len(a) > 2 {
		if err := l.setS(in, ptx.B32, a[2]); err != nil {
			return err
		}
	}
	in.sub = map[string]uint8{".all": vAll, ".any": vAny, ".uni": vUni, ".ballot": vBallot}[modOf(op, ".all", ".any", ".uni", ".ballot")]
	in.exec = execVote
	return nil
}

// lowerMatch lowers match.
func (l *lowerer) lowerMatch(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, t := p.Op, p.Args, p.Op.Type()
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	if err := l.setS(in, t, a[1:]...); err != nil {
		return err
	}
	if op.Has(".all") {
		in.sub = 1
	}
	in.exec = execMatch
	return nil
}

// lowerActivemask lowers activemask.
func (l *lowerer) lowerActivemask(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a := p.Args
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	in.exec = execActivemask
	return nil
}

// lowerRedux lowers redux.
func (l *lowerer) lowerRedux(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, t := p.Op, p.Args, p.Op.Type()
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	if err := l.setS(in, t, a[1:]...); err != nil {
		return err
	}
	in.sub = map[string]uint8{".add": rdAdd, ".min": rdMin, ".max": rdMax, ".and": rdAnd, ".or": rdOr, ".xor": rdXor}[op.Atom]
	if op.Atom == "" {
		in.sub = map[string]uint8{".and": rdAnd, ".or": rdOr, ".xor": rdXor}[op.BoolOp]
	}
	in.exec = execRedux
	return nil
}

// lowerElect lowers elect.
func (l *lowerer) lowerElect(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	a := p.Args
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	if len(a) > 1 {
		if err := l.setS(in, ptx.B32, a[1]); err != nil {
			return err
		}
	}
	in.exec = execElect
	return nil
}
