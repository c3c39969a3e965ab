package replay

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/model"
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

func isFloatT(t ptx.Type) bool { return t.IsFloat() }

func isHalfFamily(t ptx.Type) bool {
	switch t {
	case ptx.F16, ptx.F16x2, ptx.BF16, ptx.BF16x2:
		return true
	}
	return false
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
	if !implemented(f.Name) {
		return refuse(f.Name, "%s", notImplemented(f.Name))
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
	if f.Mem != ptx.MemNone {
		return l.lowerMem(p, in, f)
	}
	name := op.Name
	if f.Name == "bar.warp.sync" {
		name = "bar.warp.sync"
	}
	switch name {
	case "mov":
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
		return nil
	case "add", "sub":
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
	case "addc", "subc":
		if err := l.ops(in, a[0], t, a[1], a[2]); err != nil {
			return err
		}
		in.exec = execAddCC
		in.flags |= fCarry
		if name == "subc" {
			in.sub = 1
		}
		return nil
	case "mul":
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
	case "mad", "madc", "fma":
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
	case "mul24", "mad24":
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
		case in.flags&fHi != 0:
			in.sub = iMad24Hi
		default:
			in.sub = iMad24Lo
		}
		return nil
	case "sad", "div", "rem", "abs", "neg", "min", "max", "popc", "clz", "bfind", "brev", "bfe", "bmsk", "szext", "fns":
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
	case "bfi":
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
	case "and", "or", "xor", "not", "cnot":
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
	case "lop3":
		if err := need(a, 5); err != nil {
			return err
		}
		if err := l.ops(in, a[0], t, a[1:5]...); err != nil {
			return err
		}
		in.exec = execLop3
		return nil
	case "shl", "shr":
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
	case "shf":
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
	case "prmt":
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
	case "dp4a", "dp2a":
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
	case "setp":
		if err := need(a, 3); err != nil {
			return err
		}
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
		in.exec = execSetp
		return nil
	case "set":
		if err := twoTypes(in, op); err != nil {
			return err
		}
		if err := l.setD(in, a[0]); err != nil {
			return err
		}
		if err := l.setS(in, in.typ2, a[1], a[2]); err != nil {
			return err
		}
		if len(a) > 3 {
			if err := l.setS(in, ptx.Pred, a[3]); err != nil {
				return err
			}
		}
		in.sub = cmpCodes[op.Cmp]
		in.sub2 = map[string]uint8{"": bNone, ".and": bAnd, ".or": bOr, ".xor": bXor}[op.BoolOp]
		in.exec = execSet
		return nil
	case "selp":
		if err := l.ops(in, a[0], t, a[1], a[2]); err != nil {
			return err
		}
		if err := l.setS(in, ptx.Pred, a[3]); err != nil {
			return err
		}
		in.exec = execSelp
		return nil
	case "slct":
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
	case "cvt":
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
	case "cvta":
		if err := l.ops(in, a[0], t, a[1]); err != nil {
			return err
		}
		in.space = spaceOf(op.Space)
		if op.Has(".to") {
			in.sub = 1
		}
		in.exec = execCvta
		return nil
	case "isspacep":
		if err := l.ops(in, a[0], ptx.U64, a[1]); err != nil {
			return err
		}
		in.space = spaceOf(op.Space)
		if in.space == spNone {
			in.space = spGlobal
		}
		in.exec = execIsspacep
		return nil
	case "testp":
		if err := l.ops(in, a[0], t, a[1]); err != nil {
			return err
		}
		in.exec = execTestp
		in.sub = map[string]uint8{".finite": tpFinite, ".infinite": tpInfinite, ".number": tpNumber,
			".notanumber": tpNotANumber, ".normal": tpNormal, ".subnormal": tpSubnormal}[modOf(op, ".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal")]
		return nil
	case "copysign":
		if err := l.ops(in, a[0], t, a[1], a[2]); err != nil {
			return err
		}
		return l.setFloat(in, t, fCopysign)
	case "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh":
		if err := l.ops(in, a[0], t, a[1]); err != nil {
			return err
		}
		return l.setFloat(in, t, map[string]uint8{"rcp": fRcp, "sqrt": fSqrt, "rsqrt": fRsqrt, "sin": fSin,
			"cos": fCos, "lg2": fLg2, "ex2": fEx2, "tanh": fTanh}[name])
	case "bra":
		in.exec = execBra
		return nil
	case "brx":
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
	case "call":
		return l.lowerCall(p, in)
	case "ret":
		in.exec = execRet
		return nil
	case "exit":
		in.exec = execExit
		return nil
	case "trap":
		in.exec = execTrap
		return nil
	case "bar", "barrier":
		return l.lowerBar(p, in)
	case "membar", "fence", "nanosleep", "brkpt", "bar.warp.sync", "pmevent", "griddepcontrol", "setmaxnreg", "cp":
		in.exec = execNop
		if name == "bar.warp.sync" && len(a) > 0 {
			_ = l.setS(in, ptx.B32, a[0])
		}
		return nil
	case "shfl":
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
	case "vote":
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
	case "match":
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
	case "activemask":
		if err := l.setD(in, a[0]); err != nil {
			return err
		}
		in.exec = execActivemask
		return nil
	case "redux":
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
	case "elect":
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
	return fmt.Errorf("unsupported instruction %s", op.Text)
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
	if (f.Mem == ptx.MemAtomic || f.Mem == ptx.MemReduction) && (sp == spGlobal || sp == spGeneric) {
		l.c.GlobalAtomics = true
	}
	if t.IsFloat() && f.Mem != ptx.MemAtomic && f.Mem != ptx.MemReduction {
		in.signed = false
	}
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
		if _, isReg := l.regs[name]; isReg {
			return fmt.Errorf("indirect calls are not supported")
		}
		return fmt.Errorf("call of unknown function %s", name)
	}
	callee, err := l.c.lowerFunc(fn)
	if err != nil {
		return err
	}
	in.callee = callee
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
