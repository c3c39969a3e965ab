package replay

import (
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Generic address windows. A generic address in one of these windows
// refers to the state space of the window (offset = address − base); every
// other generic address is a global address. Global allocations are placed
// from GlobalBase upwards, far below the windows.
const (
	GlobalBase   uint64 = 0x0000_0001_0000_0000
	SharedWindow uint64 = 0x0000_1000_0000_0000
	LocalWindow  uint64 = 0x0000_2000_0000_0000
	ConstWindow  uint64 = 0x0000_3000_0000_0000
	ParamWindow  uint64 = 0x0000_3800_0000_0000
	windowSize   uint64 = 1 << 32
)

// The address map of an `.address_size 32` module: generic addresses are 32
// bits, so the device places its allocations from GlobalBase32 up to
// GlobalLimit32 and the windows of the other spaces lie above them, each
// Window32Size bytes.
const (
	GlobalBase32   uint64 = 0x0010_0000
	GlobalLimit32  uint64 = 0xC000_0000
	SharedWindow32 uint64 = 0xC000_0000
	LocalWindow32  uint64 = 0xD000_0000
	ConstWindow32  uint64 = 0xE000_0000
	ParamWindow32  uint64 = 0xF000_0000
	Window32Size   uint64 = 0x1000_0000
)

// addrMap is the generic address map of a module (64- or 32-bit).
type addrMap struct {
	shared, local, cnst, param, size uint64
}

var (
	addrMap64 = addrMap{SharedWindow, LocalWindow, ConstWindow, ParamWindow, windowSize}
	addrMap32 = addrMap{SharedWindow32, LocalWindow32, ConstWindow32, ParamWindow32, Window32Size}
)

// space is the internal state space of a lowered memory operation.
type space uint8

const (
	spNone    space = iota
	spGlobal        // flat device memory
	spShared        // the CTA's shared memory
	spLocal         // the thread's local memory (.local variables, call frames)
	spConst         // the constant bank
	spParam         // the kernel parameter buffer
	spFrame         // a .param variable of a function frame (lives in local memory)
	spGeneric       // resolved per lane through the windows above
)

func (s space) model() model.Space {
	switch s {
	case spGlobal, spGeneric:
		return model.SpaceGlobal
	case spShared:
		return model.SpaceShared
	case spLocal:
		return model.SpaceLocal
	case spConst:
		return model.SpaceConst
	case spParam, spFrame:
		return model.SpaceParam
	}
	return model.SpaceNone
}

var spaceNames = [...]string{"", "global", "shared", "local", "const", "param", "param", "generic"}

func (s space) String() string { return spaceNames[s] }

// Special registers. Values are per lane (tid, laneid, lanemask), per warp,
// per CTA or per launch; the dynamic ones (clocks, smid) are refreshed before
// every instruction that reads them.
type special uint8

const (
	srTidX special = iota
	srTidY
	srTidZ
	srNtidX
	srNtidY
	srNtidZ
	srCtaidX
	srCtaidY
	srCtaidZ
	srNctaidX
	srNctaidY
	srNctaidZ
	srLaneid
	srWarpid
	srNwarpid
	srNsmid
	srGridid
	srLanemaskEq
	srLanemaskLe
	srLanemaskLt
	srLanemaskGe
	srLanemaskGt
	srDynSmem
	srTotalSmem
	srZero // %envregN, %pmN and other registers that read as 0
	// dynamic
	srSmid
	srClock
	srClockHi
	srClock64
	srGlobaltimer
	srGlobaltimerLo
	srGlobaltimerHi
	srCount
)

var specialNames = map[string]special{
	"%tid.x": srTidX, "%tid.y": srTidY, "%tid.z": srTidZ,
	"%ntid.x": srNtidX, "%ntid.y": srNtidY, "%ntid.z": srNtidZ,
	"%ctaid.x": srCtaidX, "%ctaid.y": srCtaidY, "%ctaid.z": srCtaidZ,
	"%nctaid.x": srNctaidX, "%nctaid.y": srNctaidY, "%nctaid.z": srNctaidZ,
	"%laneid": srLaneid, "%warpid": srWarpid, "%nwarpid": srNwarpid,
	"%smid": srSmid, "%nsmid": srNsmid, "%gridid": srGridid,
	"%lanemask_eq": srLanemaskEq, "%lanemask_le": srLanemaskLe, "%lanemask_lt": srLanemaskLt,
	"%lanemask_ge": srLanemaskGe, "%lanemask_gt": srLanemaskGt,
	"%dynamic_smem_size": srDynSmem, "%total_smem_size": srTotalSmem, "%aggr_smem_size": srTotalSmem,
	"%clock": srClock, "%clock_hi": srClockHi, "%clock64": srClock64,
	"%globaltimer": srGlobaltimer, "%globaltimer_lo": srGlobaltimerLo, "%globaltimer_hi": srGlobaltimerHi,
	// clusters: a CTA is its own cluster of one
	"%clusterid.x": srCtaidX, "%clusterid.y": srCtaidY, "%clusterid.z": srCtaidZ,
	"%nclusterid.x": srNctaidX, "%nclusterid.y": srNctaidY, "%nclusterid.z": srNctaidZ,
	"%cluster_ctaid.x": srZero, "%cluster_ctaid.y": srZero, "%cluster_ctaid.z": srZero,
	"%cluster_ctarank": srZero, "%is_explicit_cluster": srZero,
}

func (s special) dynamic() bool { return s >= srSmid }

// initKind says how a frame-initialised register gets its value.
type initKind uint8

const (
	initImm     initKind = iota // v in every lane
	initGlobal                  // address of module global variable idx, plus v
	initFrame                   // the frame's local-memory base plus v (per frame, same in every lane)
	initSpecial                 // special register idx
)

// regInit initialises one register of a new frame: immediates, symbol
// addresses and non-dynamic special registers are registers too, so every
// source operand of a lowered instruction is a register.
type regInit struct {
	reg  int32 // register offset (index × 32)
	kind initKind
	idx  int32
	v    uint64
}

// slot is a parameter or return value of a function: a register, or bytes
// of the frame (a .param variable).
type slot struct {
	reg  int32 // register offset, or -1
	off  int   // frame offset when reg < 0
	size int
}

// fnCode is one lowered function (an .entry or a .func).
type fnCode struct {
	name      string
	entry     bool
	code      []inst
	nregs     int        // registers per lane, constants included
	ndecl     int        // declared registers (the first ndecl)
	dtypes    []ptx.Type // types of the declared registers (register estimate)
	regBase   int        // first dense model.Reg number of this function
	inits     []regInit
	dyn       []regInit // dynamic special registers (refreshed on demand)
	frameSize int       // bytes of local memory per lane for one activation
	params    []slot
	rets      []slot
	builtin   builtinKind // vprintf and friends: no code
	libdev    *libdevFn   // builtinLibdevice: the function (libdevice.go)
	regNames  []string    // names of the registers by number ("" for scratch)
}

type builtinKind uint8

const (
	builtinNone builtinKind = iota
	builtinVprintf
	builtinAssert
	builtinMalloc
	builtinFree
	builtinLibdevice
	// the CUDA device runtime (cdp.go)
	builtinGetParamBuf
	builtinGetParamBufV2
	builtinLaunchDevice
	builtinLaunchDeviceV2
	builtinGetLastError
	builtinPeekAtLastError
)

// inst is one lowered instruction. Registers are stored as offsets into a
// frame's register array (index × 32); lane l of register r is regs[r+l].
type inst struct {
	m    model.Inst
	exec execFn
	fn   *fnCode

	guard int32 // guard predicate register offset, or -1
	gneg  bool
	nd    uint8
	ns    uint8
	d     [4]int32
	s     [6]int32
	sneg  uint8 // bit i: source i is a negated predicate (!p)

	typ       ptx.Type // operation type (destination type of cvt)
	typ2      ptx.Type // source type of cvt, second type of other ops
	bits      uint8    // operation width in bits
	mask      uint64   // width mask
	signed    bool
	sub       uint8 // sub-operation (comparison, atomic op, shuffle mode, ...)
	sub2      uint8 // second sub-operation (bool op of setp, ...)
	rnd       uint8 // rounding mode (fpx.Round values), rndNone when absent
	flags     uint32
	vec       uint8 // vector width of a memory access
	esize     uint8 // bytes per element of a memory access
	space     space
	off       int64 // constant address offset
	target    int32 // branch target PC
	rpc       int32 // reconvergence PC of a branch (-1: none)
	tex       int32 // texture/surface reference index, or -1 for a handle register
	callee    *fnCode
	callees   []*fnCode // indirect call: the callee of each function address (nil: not callable)
	calleeErr []string  // indirect call: why callees[i] is nil
	args      []slot    // call arguments in the caller's frame
	rets      []slot    // call return values in the caller's frame
	targets   []int32   // brx.idx targets
	text      string
	why       string // refusal reason of an unsupported instruction
}

type execFn func(w *warp, in *inst, m uint32)

// instruction flags (inst.flags)
const (
	fFtz uint32 = 1 << iota
	fSat
	fApprox
	fHi
	fLo
	fWide
	fCC    // writes the carry flag
	fCarry // reads the carry flag (addc/subc/madc)
	fNaN   // min/max .NaN
	fDyn   // reads a dynamic special register
	fRelu
	fShiftAmt
	fClamp
	fLeft
	fUni
	fAbs
	fXorSign
	fVolatile
	fSync
	fAligned // .aligned barrier: every lane at the same instruction
	fNegA    // wgmma imm-scale-a = -1
	fNegB    // wgmma imm-scale-b = -1
	fTransA  // wgmma imm-trans-a = 1 (A MN-major)
	fTransB  // wgmma imm-trans-b = 1 (B MN-major)
	fUniAddr // a load's address register is the same in every lane (a symbol's address or an immediate)
	// fUniConst (with fUniAddr): the address register is one of the entry
	// function's constants (an immediate or a global's address), the same
	// in the kernel's register template; execLdUniform reads it there
	fUniConst
)

const rndNone = 0xff
