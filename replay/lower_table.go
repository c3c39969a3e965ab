package replay

import (
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// The opcode table: every instruction replay executes, keyed by its
// compound opcode name (ptx.Facts.Name), with its lowering function and the
// modifiers (types included) it accepts. Lowering refuses an opcode that
// is not in the table and a modifier that is not listed for it, so the
// table is exactly the set of accepted spellings; the conformance suite
// must cover every (opcode, modifier) pair of it (TestSpellingCoverage).

// lowerFn lowers one instruction; f is its facts (f.Name the table key).
type lowerFn func(l *lowerer, p *ptx.Instruction, in *inst, f ptx.Facts) error

// opSpec is one table entry.
type opSpec struct {
	lower lowerFn
	// mods are the accepted modifiers after the compound name, types
	// included (".u32", ".rn", ".global"); anyMods accepts every modifier
	// (instructions executed as no-ops, whose modifiers cannot change
	// the result, and the texture family, which lowerTex validates).
	mods    []string
	anyMods bool
}

// Modifier groups.
const (
	mInt16  = ".u16 .s16"
	mInt32  = ".u32 .s32"
	mInt64  = ".u64 .s64"
	mbMods  = ".shared .shared::cta .b64"
	mInts   = mInt16 + " " + mInt32 + " " + mInt64
	mBits   = ".b16 .b32 .b64"
	mHalf   = ".f16 .f16x2 .bf16 .bf16x2"
	mFloat  = ".f32 .f64"
	mRound  = ".rn .rz .rm .rp"
	mIRound = ".rni .rzi .rmi .rpi"
	mCmp    = ".eq .ne .lt .le .gt .ge .lo .ls .hi .hs .equ .neu .ltu .leu .gtu .geu .num .nan"
	mBool   = ".and .or .xor"
	mLdSt   = ".global .shared .shared::cta .local .const .param .volatile .relaxed .weak .cta .gpu .sys .cluster " +
		".L1::evict_normal .L1::evict_first .L1::evict_last .L1::evict_unchanged .L1::no_allocate .L2::64B .L2::128B .L2::256B " +
		".ca .cg .cs .lu .cv .v2 .v4 .b8 .u8 .s8 " + mBits + " " + mInts + " " + mFloat
	mAtom = ".global .shared .shared::cta .relaxed .acquire .release .acq_rel .cta .gpu .sys .cluster " +
		".add .min .max .inc .dec .and .or .xor .exch .cas .noftz .b32 .b64 " + mInt32 + " " + mInt64 + " " + mFloat + " " + mHalf
)

func mods(groups ...string) []string {
	return strings.Fields(strings.Join(groups, " "))
}

// opTable returns the opcode table. (A function, not a package variable:
// the call lowering reaches Lower again, which would be an initialization
// cycle.)
func opTable() map[string]opSpec {
	m := func(fn lowerFn, groups ...string) opSpec { return opSpec{lower: fn, mods: mods(groups...)} }
	nop := opSpec{lower: (*lowerer).lowerNop, anyMods: true}
	mem := func(groups ...string) opSpec { return m(lowerMemOp, groups...) }
	tex := opSpec{lower: lowerMemOp, anyMods: true}
	return map[string]opSpec{
		"mov": m((*lowerer).lowerMov, ".pred", mBits, mInts, mFloat),

		"add":      m((*lowerer).lowerAddSub, mInts, mFloat, mHalf, ".sat .cc .ftz", mRound),
		"sub":      m((*lowerer).lowerAddSub, mInts, mFloat, mHalf, ".sat .cc .ftz", mRound),
		"addc":     m((*lowerer).lowerAddcSubc, mInt32, mInt64, ".cc"),
		"subc":     m((*lowerer).lowerAddcSubc, mInt32, mInt64, ".cc"),
		"mul":      m((*lowerer).lowerMul, mInts, mFloat, mHalf, ".lo .hi .wide .ftz .sat", mRound),
		"mad":      m((*lowerer).lowerMad, mInts, mFloat, ".f16", ".lo .hi .wide .sat .cc .ftz", mRound),
		"madc":     m((*lowerer).lowerMad, mInt32, mInt64, ".lo .hi .cc"),
		"fma":      m((*lowerer).lowerMad, mFloat, mHalf, ".ftz .sat .relu", mRound),
		"mul24":    m((*lowerer).lowerMul24, mInt32, ".lo .hi"),
		"mad24":    m((*lowerer).lowerMul24, mInt32, ".lo .hi .sat"),
		"sad":      m((*lowerer).lowerIntMisc, mInts),
		"div":      m((*lowerer).lowerIntMisc, mInts, mFloat, ".approx .full .ftz", mRound),
		"rem":      m((*lowerer).lowerIntMisc, mInts),
		"abs":      m((*lowerer).lowerIntMisc, ".s16 .s32 .s64", mFloat, mHalf, ".ftz"),
		"neg":      m((*lowerer).lowerIntMisc, ".s16 .s32 .s64", mFloat, mHalf, ".ftz"),
		"min":      m((*lowerer).lowerIntMisc, mInts, mFloat, mHalf, ".ftz .NaN .xorsign .abs .relu"),
		"max":      m((*lowerer).lowerIntMisc, mInts, mFloat, mHalf, ".ftz .NaN .xorsign .abs .relu"),
		"popc":     m((*lowerer).lowerIntMisc, ".b32 .b64"),
		"clz":      m((*lowerer).lowerIntMisc, ".b32 .b64"),
		"bfind":    m((*lowerer).lowerIntMisc, mInt32, mInt64, ".shiftamt"),
		"brev":     m((*lowerer).lowerIntMisc, ".b32 .b64"),
		"bfe":      m((*lowerer).lowerIntMisc, mInt32, mInt64),
		"bmsk":     m((*lowerer).lowerIntMisc, ".b32 .clamp .wrap"),
		"szext":    m((*lowerer).lowerIntMisc, mInt32, ".clamp .wrap"),
		"fns":      m((*lowerer).lowerIntMisc, ".b32"),
		"bfi":      m((*lowerer).lowerBfi, ".b32 .b64"),
		"dp4a":     m((*lowerer).lowerDp, mInt32),
		"dp2a":     m((*lowerer).lowerDp, mInt32, ".lo .hi"),
		"and":      m((*lowerer).lowerLogic, ".pred", mBits),
		"or":       m((*lowerer).lowerLogic, ".pred", mBits),
		"xor":      m((*lowerer).lowerLogic, ".pred", mBits),
		"not":      m((*lowerer).lowerLogic, ".pred", mBits),
		"cnot":     m((*lowerer).lowerLogic, mBits),
		"lop3":     m((*lowerer).lowerLop3, ".b32"),
		"shl":      m((*lowerer).lowerShift, mBits),
		"shr":      m((*lowerer).lowerShift, mBits, mInts),
		"shf":      m((*lowerer).lowerShf, ".b32 .l .r .wrap .clamp"),
		"prmt":     m((*lowerer).lowerPrmt, ".b32 .f4e .b4e .rc8 .ecl .ecr .rc16"),
		"setp":     m((*lowerer).lowerSetp, mBits, mInts, mFloat, mHalf, mCmp, mBool, ".ftz"),
		"set":      m((*lowerer).lowerSet, mBits, mInts, mFloat, mCmp, mBool, ".ftz"),
		"selp":     m((*lowerer).lowerSelp, mBits, mInts, mFloat),
		"slct":     m((*lowerer).lowerSlct, mBits, mInts, mFloat, ".ftz"),
		"cvt":      m((*lowerer).lowerCvt, ".u8 .s8", mInts, mFloat, mHalf, ".tf32", mRound, mIRound, ".rna .ftz .sat .satfinite .relu"),
		"cvta":     m((*lowerer).lowerCvta, ".u64 .to .global .shared .shared::cta .local .const .param"),
		"isspacep": m((*lowerer).lowerIsspacep, ".global .shared .shared::cta .local .const .param"),
		"testp":    m((*lowerer).lowerTestp, mFloat, ".finite .infinite .number .notanumber .normal .subnormal"),
		"copysign": m((*lowerer).lowerCopysign, mFloat),
		"rcp":      m((*lowerer).lowerSFU, mFloat, ".approx .ftz", mRound),
		"sqrt":     m((*lowerer).lowerSFU, mFloat, ".approx .ftz", mRound),
		"rsqrt":    m((*lowerer).lowerSFU, mFloat, ".approx .ftz"),
		"sin":      m((*lowerer).lowerSFU, ".f32 .approx .ftz"),
		"cos":      m((*lowerer).lowerSFU, ".f32 .approx .ftz"),
		"lg2":      m((*lowerer).lowerSFU, ".f32 .approx .ftz"),
		"ex2":      m((*lowerer).lowerSFU, ".f32", mHalf, ".approx .ftz"),
		"tanh":     m((*lowerer).lowerSFU, ".f32 .approx"),

		"bra":     m((*lowerer).lowerBra, ".uni"),
		"brx.idx": m((*lowerer).lowerBrx, ".uni"),
		"call":    {mods: mods(".uni")}, // lowerCall, see lowerInst
		"ret":     m((*lowerer).lowerRet, ".uni"),
		"exit":    m((*lowerer).lowerExit),
		"trap":    m((*lowerer).lowerTrap),
		"bar":     m(lowerBarOp, ".sync .arrive .red .popc .and .or .cta .u32 .pred"),
		"barrier": m(lowerBarOp, ".sync .arrive .red .popc .and .or .cta .aligned .u32 .pred"),

		// no-ops: ordering and scheduling hints that cannot change a
		// sequentially consistent, one-warp-at-a-time execution
		"membar": nop, "fence": nop, "nanosleep": nop, "brkpt": nop, "pmevent": nop,
		"griddepcontrol": nop, "setmaxnreg": nop,
		"bar.warp.sync":              m((*lowerer).lowerWarpSync),
		"cp.async":                   m((*lowerer).lowerCpAsync, ".ca .cg .shared .shared::cta .global"),
		"cp.async.commit_group":      m((*lowerer).lowerCpAsyncGroup),
		"cp.async.wait_group":        m((*lowerer).lowerCpAsyncGroup),
		"cp.async.wait_all":          m((*lowerer).lowerCpAsyncGroup),
		"cp.async.bulk.commit_group": nop, "cp.async.bulk.wait_group": nop,

		"shfl":       m((*lowerer).lowerShfl, ".sync .up .down .bfly .idx .b32"),
		"vote":       m((*lowerer).lowerVote, ".sync .all .any .uni .ballot .pred .b32"),
		"match":      m((*lowerer).lowerMatch, ".sync .any .all .b32 .b64"),
		"activemask": m((*lowerer).lowerActivemask, ".b32"),
		"redux":      m((*lowerer).lowerRedux, ".sync .add .min .max .and .or .xor .b32", mInt32),
		"elect":      m((*lowerer).lowerElect, ".sync"),

		"ld":                   mem(mLdSt, ".nc .acquire"),
		"ldu":                  mem(".global .v2 .v4 .b32 .u32 .s32 .f32 .b64 .u64 .s64 .f64"),
		"st":                   mem(stMods(), ".release .wb .wt"),
		"atom":                 mem(mAtom),
		"red":                  mem(redMods()),
		"mma":                  m((*lowerer).lowerMma, ".sync .aligned .m16n8k16 .m16n8k8 .m16n8k32 .m8n8k4 .row .col .f16 .f32 .bf16 .tf32 .s8 .u8 .s32 .f64 .satfinite .rn"),
		"wmma.load":            m((*lowerer).lowerWmma, ".a .b .c .sync .aligned .row .col .m16n16k16 .m8n8k4 .global .shared .shared::cta .f16 .f32 .f64"),
		"wmma.store":           m((*lowerer).lowerWmma, ".d .sync .aligned .row .col .m16n16k16 .m8n8k4 .global .shared .shared::cta .f16 .f32 .f64"),
		"wmma.mma":             m((*lowerer).lowerWmma, ".sync .aligned .row .col .m16n16k16 .m8n8k4 .f16 .f32 .f64 .rn"),
		"cp.async.bulk":        m((*lowerer).lowerBulk, ".shared::cluster .shared::cta .global .mbarrier::complete_tx::bytes"),
		"cp.async.bulk.tensor": m((*lowerer).lowerTma, ".1d .2d .3d .4d .5d .shared::cluster .shared::cta .global .tile .mbarrier::complete_tx::bytes"),
		"wgmma.mma_async":      m((*lowerer).lowerWgmma, wgmmaMods()),
		"wgmma.fence":          m((*lowerer).lowerNop, ".sync .aligned"),
		"wgmma.commit_group":   m((*lowerer).lowerNop, ".sync .aligned"),
		"wgmma.wait_group":     m((*lowerer).lowerNop, ".sync .aligned"),
		"mbarrier.init":        m((*lowerer).lowerMbarrier, mbMods),
		"mbarrier.inval":       m((*lowerer).lowerMbarrier, mbMods),
		"mbarrier.arrive":      m((*lowerer).lowerMbarrier, mbMods, ".expect_tx .release .cta"),
		"mbarrier.arrive_drop": m((*lowerer).lowerMbarrier, mbMods, ".release .cta"),
		"mbarrier.expect_tx":   m((*lowerer).lowerMbarrier, mbMods, ".relaxed .cta"),
		"mbarrier.complete_tx": m((*lowerer).lowerMbarrier, mbMods, ".relaxed .cta"),
		"mbarrier.test_wait":   m((*lowerer).lowerMbarrier, mbMods, ".parity .acquire .cta"),
		"mbarrier.try_wait":    m((*lowerer).lowerMbarrier, mbMods, ".parity .acquire .cta"),
		"ldmatrix":             mem(".sync .aligned .m8n8 .x1 .x2 .x4 .trans .shared .shared::cta .b16"),
		"stmatrix":             mem(".sync .aligned .m8n8 .x1 .x2 .x4 .trans .shared .shared::cta .b16"),
		"prefetch":             nop, "prefetchu": nop, "applypriority": nop, "discard": nop,
		"cp.async.bulk.prefetch": nop,
		"tex":                    tex, "tld4": tex, "txq": tex, "suld": tex, "sust": tex, "suq": tex,
	}
}

func lowerMemOp(l *lowerer, p *ptx.Instruction, in *inst, f ptx.Facts) error {
	return l.lowerMem(p, in, f)
}

func lowerBarOp(l *lowerer, p *ptx.Instruction, in *inst, f ptx.Facts) error {
	return l.lowerBar(p, in)
}

// opMods returns the modifiers of op after its compound name f.Name
// ("bar.warp.sync" consumes ".warp" and ".sync").
func opMods(op *ptx.Opcode, name string) []string {
	skip := strings.Count(name, ".")
	if strings.Contains(op.Name, ".") {
		skip -= strings.Count(op.Name, ".")
	}
	if skip > len(op.Mods) {
		skip = len(op.Mods)
	}
	return op.Mods[skip:]
}

// checkSpelling refuses a modifier the table does not list for name.
func (s opSpec) checkSpelling(name string, op *ptx.Opcode) error {
	if s.anyMods {
		return nil
	}
	for _, m := range opMods(op, name) {
		ok := false
		for _, a := range s.mods {
			if a == m {
				ok = true
				break
			}
		}
		if !ok {
			return refuse(name, "modifier %s is not implemented for %s", m, name)
		}
	}
	return nil
}

// stMods are the modifiers of st: those of ld without .const, the
// load-only cache operators (.ca .lu .cv) and the L2 prefetch sizes.
func stMods() string {
	var out []string
	for _, m := range strings.Fields(mLdSt) {
		switch m {
		case ".const", ".ca", ".lu", ".cv", ".L2::64B", ".L2::128B", ".L2::256B":
			continue
		}
		out = append(out, m)
	}
	return strings.Join(out, " ")
}

// redMods are the modifiers of red: those of atom without the exchange
// operations and the acquire semantics.
func redMods() string {
	var out []string
	for _, m := range strings.Fields(mAtom) {
		switch m {
		case ".exch", ".cas", ".acquire", ".acq_rel":
			continue
		}
		out = append(out, m)
	}
	return strings.Join(out, " ")
}

// wgmmaMods are the modifiers of wgmma.mma_async: .sync .aligned, the
// types, and the shapes .m64nNk16 and .m64nNk32 for N = 8, 16, ..., 256.
func wgmmaMods() string {
	out := []string{".sync", ".aligned", ".f32", ".f16", ".bf16", ".e4m3", ".e5m2"}
	for n := 8; n <= 256; n += 8 {
		out = append(out, ".m64n"+strconv.Itoa(n)+"k16", ".m64n"+strconv.Itoa(n)+"k32")
	}
	return strings.Join(out, " ")
}
