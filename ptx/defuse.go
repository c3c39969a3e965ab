package ptx

// Register definitions and uses of single instructions.
//
// Which names are registers: a name is a register when it is declared by a
// .reg declaration of the function (in any nested scope, or as a .reg
// parameter) or when it is a special register (%tid.x, %clock64, ...). A
// RegSet built by FunctionRegs answers that question; without one (a nil
// *RegSet) a name is taken to be a register when it starts with '%', which
// is right for compiler output except for back ends that declare registers
// without '%' (TornadoVM's "rud0"). Labels, function names, .param and
// other variables are never registers, so they never appear in Defs/Uses.
//
// A register operand written with a component selector ("%r1.b0",
// "%rd2.x") names the register without the selector; special registers keep
// theirs ("%tid.x" is its own register).
//
// Operand conventions (operands are numbered from 0; "rest" is every
// operand not listed as a definition):
//
//	| instructions                                   | defines                          | uses                          |
//	|------------------------------------------------|----------------------------------|-------------------------------|
//	| most instructions (arithmetic, mov, cvt, ld,   | operand 0: a register, every     | the rest                      |
//	| ldu, atom, setp, selp, shfl, vote, tex, tld4,   | element of a vector {a,_,c},     |                               |
//	| txq, suld, suq, ldmatrix, wmma.load, wmma.mma, | both registers of a pair p|q     |                               |
//	| mma, mbarrier.arrive/test_wait/try_wait,       | ("_" sinks define nothing)       |                               |
//	| bar.red, elect, activemask, ...)               |                                  |                               |
//	| wgmma.mma_async(.sp)                           | operand 0 (vector)               | operand 0 too (the accumulator |
//	|                                                |                                  | is read) and the rest         |
//	| st, st.async, st.bulk, red, red.async, sust,   | nothing                          | every operand                 |
//	| sured, stmatrix, wmma.store, multimem.st/red,  |                                  |                               |
//	| cp.async*, cp.reduce.async*, prefetch(u),      |                                  |                               |
//	| bar/barrier (without .red), bar.warp.sync,     |                                  |                               |
//	| membar, fence, bra, brx.idx, ret, exit, trap,  |                                  |                               |
//	| brkpt, nanosleep, pmevent, stackrestore, ...   |                                  |                               |
//	| call (ret), f, (args)[, proto]                 | the registers of the (ret) tuple | f when it is a register (an   |
//	|                                                |                                  | indirect call) and the args   |
//	| any instruction whose operand 0 is an address  | nothing                          | every operand                 |
//	| ([a], or an address expression)               |                                  |                               |
//	| any guarded instruction @p / @!p               |                                  | p, before the operands        |
//
// Within operands: an address [base+off] uses base; a texture/surface
// address [tex, {c0, c1}] uses tex (when it is a register, i.e. a texture
// object) and the coordinates; a vector or tuple uses each element; !p uses
// p; an expression uses each register token in it. Immediates and sinks use
// nothing.
//
// Not modelled: the carry flag written by .cc instructions and read by
// addc/subc/madc, and memory (see Facts). A guarded definition may leave the
// register unchanged; Defs still lists it.

import "strings"

// RegSet is the set of register names declared in a function. Range
// declarators ("%r<10>") are stored once and matched arithmetically, so
// building a RegSet costs one map entry per declarator. All scopes of the
// function are merged: a name declared in any nested block is a register
// everywhere in the function (PTX generators never reuse a register name
// for a variable in another scope). The zero value and nil hold no declared
// registers. A RegSet is not modified after FunctionRegs returns it.
type RegSet struct {
	names  map[string]Type    // scalar declarators
	ranges map[string]duRange // range declarators by prefix
}

type duRange struct {
	n int
	t Type
}

// FunctionRegs collects the registers declared in fn: .reg declarations in
// its body and nested blocks and .reg parameters.
func FunctionRegs(fn *Function) *RegSet {
	rs := &RegSet{names: map[string]Type{}, ranges: map[string]duRange{}}
	if fn == nil {
		return rs
	}
	for _, ps := range [][]*VarDecl{fn.Ret, fn.Params} {
		for _, d := range ps {
			rs.addDecl(d)
		}
	}
	if fn.Body != nil {
		rs.addBlock(fn.Body)
	}
	return rs
}

// addBlock adds the declarations of b and its nested blocks, in order
// (as Inspect would visit them).
func (rs *RegSet) addBlock(b *Block) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *VarDecl:
			rs.addDecl(s)
		case *Block:
			rs.addBlock(s)
		}
	}
}

func (rs *RegSet) addDecl(d *VarDecl) {
	if d.Space != SpaceReg {
		return
	}
	for _, dc := range d.Names {
		if dc.Range >= 0 {
			if r, ok := rs.ranges[dc.Name]; !ok || dc.Range > r.n {
				rs.ranges[dc.Name] = duRange{dc.Range, d.Type}
			}
		} else {
			rs.names[dc.Name] = d.Type
		}
	}
}

// Declared reports whether name is declared as a register and its type.
func (rs *RegSet) Declared(name string) (Type, bool) {
	if rs == nil {
		return TypeNone, false
	}
	if t, ok := rs.names[name]; ok {
		return t, true
	}
	if len(rs.ranges) == 0 {
		return TypeNone, false
	}
	// name = prefix + decimal index without leading zeros; the prefix may
	// itself end in digits ("%r1<3>" declares %r10..%r12), so try every
	// split of the trailing digit run.
	end := len(name)
	start := end
	for start > 0 && name[start-1] >= '0' && name[start-1] <= '9' {
		start--
	}
	for k := start; k < end; k++ {
		if name[k] == '0' && k != end-1 {
			continue
		}
		r, ok := rs.ranges[name[:k]]
		if !ok {
			continue
		}
		idx := 0
		for _, c := range name[k:] {
			idx = idx*10 + int(c-'0')
			if idx >= r.n {
				break
			}
		}
		if idx < r.n {
			return r.t, true
		}
	}
	return TypeNone, false
}

// Reg returns the register an operand name refers to: the name itself for
// a declared or special register, the name without its component selector
// for "%r1.b0", and false for anything else. With a nil RegSet any name
// starting with '%' is a register. It allocates nothing.
func (rs *RegSet) Reg(name string) (string, bool) {
	if name == "" || name == "_" {
		return "", false
	}
	if name[0] == '%' && IsSpecialReg(name) {
		return name, true
	}
	base := name
	if i := strings.IndexByte(name, '.'); i > 0 {
		base = name[:i]
	}
	if rs == nil {
		return base, base[0] == '%'
	}
	if _, ok := rs.Declared(base); ok {
		return base, true
	}
	return "", false
}

// IsSpecialReg reports whether name is a PTX special register, with or
// without a component (%tid, %tid.x, %clock64, %envreg3, %pm0_64,
// %lanemask_lt, %cluster_ctaid.y, ...).
func IsSpecialReg(name string) bool {
	if len(name) < 2 || name[0] != '%' {
		return false
	}
	n := name[1:]
	if i := strings.IndexByte(n, '.'); i >= 0 {
		switch n[i+1:] {
		case "x", "y", "z", "w":
		default:
			return false
		}
		n = n[:i]
		switch n {
		case "tid", "ntid", "ctaid", "nctaid", "clusterid", "nclusterid",
			"cluster_ctaid", "cluster_nctaid":
			return true
		}
		return false
	}
	switch n {
	case "tid", "ntid", "laneid", "warpid", "nwarpid", "ctaid", "nctaid", "smid", "nsmid",
		"gridid", "is_explicit_cluster", "clusterid", "nclusterid", "cluster_ctaid",
		"cluster_nctaid", "cluster_ctarank", "cluster_nctarank",
		"lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt",
		"clock", "clock_hi", "clock64", "globaltimer", "globaltimer_lo", "globaltimer_hi",
		"total_smem_size", "aggr_smem_size", "dynamic_smem_size", "current_graph_exec",
		"reserved_smem_offset_begin", "reserved_smem_offset_end", "reserved_smem_offset_cap":
		return true
	}
	if d, ok := strings.CutPrefix(n, "pm"); ok { // %pm0..%pm7, %pm0_64..%pm7_64
		d, _ = strings.CutSuffix(d, "_64")
		return len(d) == 1 && d[0] >= '0' && d[0] <= '7'
	}
	if d, ok := strings.CutPrefix(n, "envreg"); ok { // %envreg0..%envreg31
		return duSmallIndex(d, 32)
	}
	if d, ok := strings.CutPrefix(n, "reserved_smem_offset_"); ok { // %reserved_smem_offset_<2>
		return duSmallIndex(d, 2)
	}
	return false
}

// duSmallIndex reports whether d is a decimal number below n without
// leading zeros.
func duSmallIndex(d string, n int) bool {
	if d == "" || len(d) > 2 || (len(d) > 1 && d[0] == '0') {
		return false
	}
	v := 0
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
		v = v*10 + int(c-'0')
	}
	return v < n
}

// duRule is how an instruction's operands split into definitions and uses.
type duRule uint8

const (
	duFirstDest duRule = iota // operand 0 is the destination unless it is an address
	duNoDest                  // every operand is a use
	duCall                    // call (ret), f, (args)
	duAccum                   // operand 0 is defined and used (wgmma accumulators)
)

// duNoDestNames lists the compound opcode names (as matched by the opcode
// table) that define no register.
var duNoDestNames = map[string]bool{
	"st": true, "st.async": true, "st.bulk": true, "red": true, "red.async": true,
	"sust": true, "sured": true, "stmatrix": true, "wmma.store": true,
	"multimem.st": true, "multimem.red": true, "tensormap.replace": true,
	"tensormap.cp_fenceproxy": true,
	"cp.async":                true, "cp.async.bulk": true, "cp.async.bulk.tensor": true,
	"cp.async.bulk.prefetch": true, "cp.async.bulk.prefetch.tensor": true,
	"cp.async.bulk.commit_group": true, "cp.async.bulk.wait_group": true,
	"cp.async.commit_group": true, "cp.async.wait_group": true, "cp.async.wait_all": true,
	"cp.async.mbarrier.arrive": true, "cp.reduce.async.bulk": true,
	"cp.reduce.async.bulk.tensor": true,
	"prefetch":                    true, "prefetchu": true, "applypriority": true, "discard": true,
	"mbarrier.init": true, "mbarrier.inval": true, "mbarrier.expect_tx": true,
	"mbarrier.complete_tx": true,
	"bar":                  true, "barrier": true, "barrier.cluster": true, "bar.warp.sync": true,
	"membar": true, "fence": true, "griddepcontrol": true,
	"wgmma.fence": true, "wgmma.commit_group": true, "wgmma.wait_group": true,
	"tcgen05.alloc": true, "tcgen05.dealloc": true, "tcgen05.relinquish_alloc_permit": true,
	"tcgen05.st": true, "tcgen05.cp": true, "tcgen05.shift": true, "tcgen05.mma": true,
	"tcgen05.commit": true, "tcgen05.wait": true, "tcgen05.fence": true,
	"clusterlaunchcontrol.try_cancel": true,
	"bra":                             true, "brx.idx": true, "ret": true, "exit": true, "trap": true, "brkpt": true,
	"nanosleep": true, "pmevent": true, "setmaxnreg": true, "stackrestore": true,
}

func duRuleOf(in *Instruction) duRule {
	if in.Op == nil {
		return duFirstDest
	}
	name, _, ok := fxLookupOp(in.Op)
	if !ok {
		name = in.Op.Name
	}
	switch name {
	case "call":
		return duCall
	case "wgmma.mma_async", "wgmma.mma_async.sp":
		return duAccum
	case "bar", "barrier":
		if in.Op.Has(".red") {
			return duFirstDest
		}
	}
	if duNoDestNames[name] {
		return duNoDest
	}
	return duFirstDest
}

// Defs returns the registers in defines, taking every name that starts
// with '%' as a register (see AppendDefs for declared-register checking).
func Defs(in *Instruction) []string { return AppendDefs(nil, in, nil) }

// Uses returns the registers in reads, guard first, taking every name that
// starts with '%' as a register (see AppendUses).
func Uses(in *Instruction) []string { return AppendUses(nil, in, nil) }

// AppendDefs appends to dst the registers that in defines, in operand
// order, and returns the extended slice. rs decides which names are
// registers (nil: names starting with '%'). It allocates only when dst
// must grow.
func AppendDefs(dst []string, in *Instruction, rs *RegSet) []string {
	if len(in.Args) == 0 {
		return dst
	}
	switch duRuleOf(in) {
	case duNoDest:
		return dst
	case duCall:
		if in.Args[0].Kind == OpTuple {
			dst = duDefOperand(dst, &in.Args[0], rs)
		}
		return dst
	}
	if duIsDest(&in.Args[0]) {
		dst = duDefOperand(dst, &in.Args[0], rs)
	}
	return dst
}

// AppendUses appends to dst the registers that in reads: the guard
// predicate first, then the registers of the source operands in order. A
// register read twice appears twice. rs decides which names are registers
// (nil: names starting with '%'). It allocates only when dst must grow.
func AppendUses(dst []string, in *Instruction, rs *RegSet) []string {
	if in.Guard != "" {
		if r, ok := rs.Reg(in.Guard); ok {
			dst = append(dst, r)
		}
	}
	args := in.Args
	if len(args) == 0 {
		return dst
	}
	switch duRuleOf(in) {
	case duNoDest:
	case duCall:
		if args[0].Kind == OpTuple {
			args = args[1:]
		}
	case duAccum:
		// The accumulator vector is read as well as written.
	default:
		if duIsDest(&args[0]) {
			args = args[1:]
		}
	}
	for i := range args {
		dst = duUseOperand(dst, &args[i], rs)
	}
	return dst
}

// duIsDest reports whether operand 0 of a first-destination instruction is
// a destination: anything but an address, an immediate or a sink-free
// expression starting with '['.
func duIsDest(op *Operand) bool {
	switch op.Kind {
	case OpReg, OpVec, OpPair, OpSink, OpTuple:
		return true
	case OpExpr:
		return len(op.Expr) == 0 || op.Expr[0].Kind != LBRACK
	}
	return false
}

func duDefOperand(dst []string, op *Operand, rs *RegSet) []string {
	switch op.Kind {
	case OpReg:
		if r, ok := rs.Reg(op.Name); ok {
			dst = append(dst, r)
		}
	case OpPair:
		if r, ok := rs.Reg(op.Name); ok {
			dst = append(dst, r)
		}
		if r, ok := rs.Reg(op.Name2); ok {
			dst = append(dst, r)
		}
	case OpVec, OpTuple:
		for i := range op.Elems {
			dst = duDefOperand(dst, &op.Elems[i], rs)
		}
	case OpExpr:
		// "{a, b}|p" and other destination expressions: every register
		// token is defined.
		dst = duExprRegs(dst, op.Expr, rs)
	}
	return dst
}

func duUseOperand(dst []string, op *Operand, rs *RegSet) []string {
	switch op.Kind {
	case OpReg, OpPredNeg:
		if r, ok := rs.Reg(op.Name); ok {
			dst = append(dst, r)
		}
	case OpPair:
		if r, ok := rs.Reg(op.Name); ok {
			dst = append(dst, r)
		}
		if r, ok := rs.Reg(op.Name2); ok {
			dst = append(dst, r)
		}
	case OpAddr:
		if op.Name != "" {
			if r, ok := rs.Reg(op.Name); ok {
				dst = append(dst, r)
			}
		}
		for i := range op.Elems {
			dst = duUseOperand(dst, &op.Elems[i], rs)
		}
	case OpVec, OpTuple:
		for i := range op.Elems {
			dst = duUseOperand(dst, &op.Elems[i], rs)
		}
	case OpExpr:
		dst = duExprRegs(dst, op.Expr, rs)
	}
	return dst
}

func duExprRegs(dst []string, toks []Token, rs *RegSet) []string {
	for _, t := range toks {
		if t.Kind == IDENT {
			if r, ok := rs.Reg(t.Text); ok {
				dst = append(dst, r)
			}
		}
	}
	return dst
}
