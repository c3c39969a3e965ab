package ptx

// Opcode facts: what an instruction does to memory and control flow, and
// which execution unit (Class) the timing model charges it to.
//
// The facts are table-driven over opcode names. An opcode name is the base
// instruction ("ld", "bra") or, for instruction families whose second and
// third components select a different instruction, the compound name
// ("cp.async.bulk.tensor", "wmma.load", "mbarrier.try_wait",
// "bar.warp.sync"). The lookup walks the dot-separated components of
// Opcode.Text (or, for opcodes built by a pass, Name and Mods) and takes the
// longest compound name in the table, so it works whether the parser puts
// "wmma.load" in Name or "wmma" in Name and ".load" in Mods. It allocates
// nothing.
//
// Facts that depend on modifiers are resolved by OpcodeFacts:
//
//	| fact        | rule                                                                       |
//	|-------------|----------------------------------------------------------------------------|
//	| Space       | the state-space modifier; ld/st/atom/red/prefetch/wmma.load/... without     |
//	|             | one use SpaceGeneric; ldu without one is SpaceGlobal; ldmatrix, stmatrix    |
//	|             | and mbarrier default to SpaceShared; tex/tld4/txq are SpaceTex; surface     |
//	|             | instructions are SpaceGlobal (surfaces live in global memory); copies       |
//	|             | report their destination here and their source in SrcSpace                  |
//	| ReadOnly    | a read whose location cannot change during the kernel: ld.const, ld.param,  |
//	|             | tex, tld4, txq, ldu (uniform load of read-only data), ld.global.nc and      |
//	|             | ld.nc in general (non-coherent texture path). A fence does not order the    |
//	|             | completion of such a read, so a probe must consume the value instead        |
//	| Class       | FP32/FP64/FP16/Int chosen from the operation type for the arithmetic        |
//	|             | classes; rcp and sqrt are SFU only with .approx, otherwise by type          |
//
// Every other fact is fixed per opcode name.

import "strings"

// MemKind is the kind of memory access an instruction performs.
type MemKind uint8

// Memory access kinds.
const (
	MemNone             MemKind = iota // no memory access
	MemLoad                            // ld, ldu, ldmatrix, wmma.load, multimem.ld_reduce, tcgen05.ld
	MemStore                           // st, st.async, st.bulk, stmatrix, wmma.store, multimem.st, tcgen05.st, tensormap.replace
	MemAtomic                          // atom: read-modify-write that returns the old value
	MemReduction                       // red, red.async, multimem.red: read-modify-write without a result
	MemTexture                         // tex, tld4: texture fetch through the texture path
	MemSurfaceLoad                     // suld
	MemSurfaceStore                    // sust
	MemSurfaceReduction                // sured
	MemQuery                           // txq, suq: reads a texture/surface descriptor, not its data
	MemPrefetch                        // prefetch, prefetchu, cp.async.bulk.prefetch(.tensor), applypriority, discard
	MemAsyncCopy                       // cp.async, cp.async.bulk(.tensor), cp.reduce.async.bulk(.tensor), tcgen05.cp
	MemBarrierObject                   // mbarrier.*, cp.async.mbarrier.arrive: atomic update of an mbarrier object in shared memory
	memKindCount
)

var fxMemKindNames = [...]string{"", "load", "store", "atomic", "reduction", "texture",
	"surface-load", "surface-store", "surface-reduction", "query", "prefetch", "async-copy", "mbarrier"}

// String returns a short lower-case name ("load", "async-copy"), or "" for
// MemNone.
func (k MemKind) String() string {
	if int(k) < len(fxMemKindNames) {
		return fxMemKindNames[k]
	}
	return "MemKind(?)"
}

// Class is the execution unit class the timing model charges an instruction
// to.
type Class uint8

// Instruction classes.
const (
	ClassUnknown Class = iota // opcode not in the table
	ClassInt                  // integer and logic ALU: add.s32, lop3, shf, popc, selp, setp.s32, ...
	ClassFP32                 // single-precision FMA pipe: fma.rn.f32, add.f32, setp.f32, div.rn.f32, ...
	ClassFP64                 // double-precision unit
	ClassFP16                 // half-precision (f16, bf16, packed x2, fp8)
	ClassSFU                  // special function unit: sin, cos, ex2, lg2, rsqrt, tanh, rcp.approx, sqrt.approx
	ClassTensor               // tensor cores: mma, wmma.mma, wgmma.mma_async, tcgen05.mma
	ClassConvert              // cvt, cvt.pack and friends
	ClassMove                 // mov, movmatrix, prmt-free register moves
	ClassVideo                // the SIMD video instructions (vadd, vset2, ...)
	ClassWarp                 // warp-level data exchange: shfl, vote, match, redux, activemask, elect
	ClassMemory               // load/store unit: ld, st, atom, red, cp.async, ldmatrix, prefetch, ...
	ClassTexture              // texture unit: tex, tld4, txq, suld, sust, sured, suq
	ClassSync                 // barriers, fences, mbarrier, async-group waits
	ClassControl              // bra, brx.idx, call, ret, exit, trap, brkpt
	ClassMisc                 // everything else (nanosleep, pmevent, setmaxnreg, stack ops, ...)
	classCount
)

var fxClassNames = [...]string{"unknown", "int", "fp32", "fp64", "fp16", "sfu", "tensor", "convert",
	"move", "video", "warp", "memory", "texture", "sync", "control", "misc"}

// String returns a short lower-case name of the class ("fp32").
func (c Class) String() string {
	if int(c) < len(fxClassNames) {
		return fxClassNames[c]
	}
	return "Class(?)"
}

// Facts describes one instruction. The zero value describes an unknown
// opcode (Known false). Invariants: Reads/Writes are false when Mem is
// MemNone; ReadOnly implies Reads and !Writes; ReadWrite implies Reads and
// Writes (copies read one location and write another, so they are not
// ReadWrite);
// EndsBlock implies Branch, Return or Exit; Space is SpaceNone exactly when
// Mem is MemNone.
type Facts struct {
	Known bool    // the opcode name is in the table
	Name  string  // the compound opcode name the table matched ("cp.async.bulk.tensor"), "" when unknown
	Class Class   // execution unit class
	Mem   MemKind // memory access kind, MemNone for non-memory instructions

	Space    Space // state space accessed (resolved, see the package table); copies: destination
	SrcSpace Space // copies (MemAsyncCopy): the source space; SpaceNone otherwise

	Reads     bool // reads memory
	Writes    bool // writes memory
	ReadOnly  bool // the read location is read-only for the kernel's lifetime
	ReadWrite bool // read-modify-write of one location (atom, red, sured, mbarrier updates)
	Async     bool // completes asynchronously; a later wait/fence/mbarrier observes completion

	SideEffects bool // must not be removed even if its results are unused
	Barrier     bool // CTA- or cluster-wide execution barrier (bar, barrier, bar.red) or the warp barrier bar.warp.sync
	Fence       bool // memory ordering fence (membar, fence.*, wgmma.fence, tcgen05.fence)
	Wait        bool // waits for earlier asynchronous operations (cp.async.wait_*, wgmma.wait_group, mbarrier.try_wait, ...)
	Branch      bool // bra, brx.idx
	Call        bool // call
	Return      bool // ret
	Exit        bool // exit, trap: the thread stops
	EndsBlock   bool // the instruction ends a basic block (branches, ret, exit, trap)
	Sync        bool // warp-synchronous collective: the participating lanes must execute it together
}

// opFlag bits of an fxInfo entry.
const (
	fRoot      uint32 = 1 << iota // a family prefix only ("wmma"), not an instruction by itself
	fExt                          // longer compound names start with this one
	fReads                        // reads memory
	fWrites                       // writes memory
	fReadOnly                     // always read-only (tex, ldu, txq)
	fSide                         // side effects
	fBarrier                      // barrier
	fFence                        // fence
	fWait                         // waits for async operations
	fBranch                       // branch
	fCall                         // call
	fReturn                       // ret
	fExit                         // exit/trap
	fEnds                         // ends a basic block
	fSync                         // warp-synchronous collective
	fAsync                        // asynchronous completion
	fByType                       // Class chosen from the operation type (Int/FP16/FP32/FP64)
	fApproxSFU                    // Class is SFU with .approx, otherwise by type
	fCopy                         // two space modifiers: destination then source
)

// fxSpaceDefault selects the space of a memory instruction without a space
// modifier.
type fxSpaceDefault uint8

const (
	fxDefNone fxSpaceDefault = iota
	fxDefGeneric
	fxDefGlobal
	fxDefShared
	fxDefTex
)

// fxInfo is one entry of the opcode table.
type fxInfo struct {
	class Class
	mem   MemKind
	def   fxSpaceDefault
	flags uint32
}

// Shorthands used by the table.
const (
	fLd  = fReads
	fSt  = fWrites
	fRMW = fReads | fWrites | fSide
)

// fxTable maps opcode names (with the dots between compound components) to
// their facts. Entries marked fRoot are family prefixes that are not
// instructions by themselves; fExt marks a name that longer names extend.
var fxTable = map[string]fxInfo{
	// Integer arithmetic and logic (class from the type: add.f32 is FP32).
	"add": {class: ClassInt, flags: fByType}, "sub": {class: ClassInt, flags: fByType},
	"mul": {class: ClassInt, flags: fByType}, "mad": {class: ClassInt, flags: fByType},
	"mul24": {class: ClassInt}, "mad24": {class: ClassInt}, "sad": {class: ClassInt},
	"div": {class: ClassInt, flags: fByType}, "rem": {class: ClassInt},
	"abs": {class: ClassInt, flags: fByType}, "neg": {class: ClassInt, flags: fByType},
	"min": {class: ClassInt, flags: fByType}, "max": {class: ClassInt, flags: fByType},
	"popc": {class: ClassInt}, "clz": {class: ClassInt}, "bfind": {class: ClassInt},
	"fns": {class: ClassInt}, "brev": {class: ClassInt}, "bfe": {class: ClassInt},
	"bfi": {class: ClassInt}, "bmsk": {class: ClassInt}, "szext": {class: ClassInt},
	"dp4a": {class: ClassInt}, "dp2a": {class: ClassInt},
	"addc": {class: ClassInt}, "subc": {class: ClassInt}, "madc": {class: ClassInt},
	"and": {class: ClassInt}, "or": {class: ClassInt}, "xor": {class: ClassInt},
	"not": {class: ClassInt}, "cnot": {class: ClassInt}, "lop3": {class: ClassInt},
	"shf": {class: ClassInt}, "shl": {class: ClassInt}, "shr": {class: ClassInt},
	"prmt": {class: ClassInt},
	"setp": {class: ClassInt, flags: fByType}, "set": {class: ClassInt, flags: fByType},
	"selp": {class: ClassInt}, "slct": {class: ClassInt},
	"mapa": {class: ClassInt}, "getctarank": {class: ClassInt},
	"cvta": {class: ClassInt}, "isspacep": {class: ClassInt}, "istypep": {class: ClassInt},
	"createpolicy": {class: ClassInt},

	// Floating point (class from the type).
	"fma": {class: ClassFP32, flags: fByType}, "testp": {class: ClassFP32, flags: fByType},
	"copysign": {class: ClassFP32, flags: fByType},
	"rcp":      {class: ClassFP32, flags: fApproxSFU}, "sqrt": {class: ClassFP32, flags: fApproxSFU},
	"rsqrt": {class: ClassSFU}, "sin": {class: ClassSFU}, "cos": {class: ClassSFU},
	"lg2": {class: ClassSFU}, "ex2": {class: ClassSFU}, "tanh": {class: ClassSFU},

	// Conversion and movement.
	"cvt": {class: ClassConvert, flags: fExt}, "cvt.pack": {class: ClassConvert},
	"mov": {class: ClassMove}, "movmatrix": {class: ClassMove, flags: fSync},
	"stacksave": {class: ClassMisc}, "stackrestore": {class: ClassMisc, flags: fSide},
	"alloca": {class: ClassMisc, flags: fSide},

	// Video instructions.
	"vadd": {class: ClassVideo}, "vsub": {class: ClassVideo}, "vabsdiff": {class: ClassVideo},
	"vmin": {class: ClassVideo}, "vmax": {class: ClassVideo}, "vshl": {class: ClassVideo},
	"vshr": {class: ClassVideo}, "vmad": {class: ClassVideo}, "vset": {class: ClassVideo},
	"vadd2": {class: ClassVideo}, "vsub2": {class: ClassVideo}, "vavrg2": {class: ClassVideo},
	"vabsdiff2": {class: ClassVideo}, "vmin2": {class: ClassVideo}, "vmax2": {class: ClassVideo},
	"vset2": {class: ClassVideo}, "vadd4": {class: ClassVideo}, "vsub4": {class: ClassVideo},
	"vavrg4": {class: ClassVideo}, "vabsdiff4": {class: ClassVideo}, "vmin4": {class: ClassVideo},
	"vmax4": {class: ClassVideo}, "vset4": {class: ClassVideo},

	// Warp-level collectives.
	"shfl": {class: ClassWarp, flags: fSync}, "vote": {class: ClassWarp, flags: fSync},
	"match": {class: ClassWarp, flags: fSync}, "redux": {class: ClassWarp, flags: fSync},
	"elect": {class: ClassWarp, flags: fSync}, "activemask": {class: ClassWarp},

	// Loads and stores.
	"ld":  {class: ClassMemory, mem: MemLoad, def: fxDefGeneric, flags: fLd},
	"ldu": {class: ClassMemory, mem: MemLoad, def: fxDefGlobal, flags: fLd | fReadOnly},
	"st":  {class: ClassMemory, mem: MemStore, def: fxDefGeneric, flags: fSt | fSide | fExt},
	"st.async": {class: ClassMemory, mem: MemStore, def: fxDefShared,
		flags: fSt | fSide | fAsync},
	"st.bulk":            {class: ClassMemory, mem: MemStore, def: fxDefGeneric, flags: fSt | fSide},
	"atom":               {class: ClassMemory, mem: MemAtomic, def: fxDefGeneric, flags: fRMW},
	"red":                {class: ClassMemory, mem: MemReduction, def: fxDefGeneric, flags: fRMW | fExt},
	"red.async":          {class: ClassMemory, mem: MemReduction, def: fxDefShared, flags: fRMW | fAsync},
	"ldmatrix":           {class: ClassMemory, mem: MemLoad, def: fxDefShared, flags: fLd | fSync},
	"stmatrix":           {class: ClassMemory, mem: MemStore, def: fxDefShared, flags: fSt | fSide | fSync},
	"prefetch":           {class: ClassMemory, mem: MemPrefetch, def: fxDefGeneric},
	"prefetchu":          {class: ClassMemory, mem: MemPrefetch, def: fxDefGeneric},
	"applypriority":      {class: ClassMemory, mem: MemPrefetch, def: fxDefGlobal, flags: fSide},
	"discard":            {class: ClassMemory, mem: MemPrefetch, def: fxDefGlobal, flags: fSide},
	"multimem":           {flags: fRoot | fExt},
	"multimem.ld_reduce": {class: ClassMemory, mem: MemLoad, def: fxDefGlobal, flags: fLd},
	"multimem.st":        {class: ClassMemory, mem: MemStore, def: fxDefGlobal, flags: fSt | fSide},
	"multimem.red":       {class: ClassMemory, mem: MemReduction, def: fxDefGlobal, flags: fRMW},
	"tensormap":          {flags: fRoot | fExt},
	"tensormap.replace":  {class: ClassMemory, mem: MemStore, def: fxDefGeneric, flags: fSt | fSide},
	"tensormap.cp_fenceproxy": {class: ClassSync, mem: MemAsyncCopy, def: fxDefGlobal,
		flags: fReads | fWrites | fSide | fFence | fCopy},

	// Asynchronous copies.
	"cp":                   {flags: fRoot | fExt},
	"cp.async":             {class: ClassMemory, mem: MemAsyncCopy, def: fxDefShared, flags: fReads | fWrites | fSide | fAsync | fCopy | fExt},
	"cp.async.bulk":        {class: ClassMemory, mem: MemAsyncCopy, def: fxDefShared, flags: fReads | fWrites | fSide | fAsync | fCopy | fExt},
	"cp.async.bulk.tensor": {class: ClassMemory, mem: MemAsyncCopy, def: fxDefShared, flags: fReads | fWrites | fSide | fAsync | fCopy},
	"cp.async.bulk.prefetch": {class: ClassMemory, mem: MemPrefetch, def: fxDefGlobal,
		flags: fAsync | fExt},
	"cp.async.bulk.prefetch.tensor": {class: ClassMemory, mem: MemPrefetch, def: fxDefGlobal, flags: fAsync},
	"cp.async.bulk.commit_group":    {class: ClassSync, flags: fSide},
	"cp.async.bulk.wait_group":      {class: ClassSync, flags: fSide | fWait},
	"cp.async.commit_group":         {class: ClassSync, flags: fSide},
	"cp.async.wait_group":           {class: ClassSync, flags: fSide | fWait},
	"cp.async.wait_all":             {class: ClassSync, flags: fSide | fWait},
	"cp.async.mbarrier":             {flags: fRoot | fExt},
	"cp.async.mbarrier.arrive": {class: ClassSync, mem: MemBarrierObject, def: fxDefShared,
		flags: fRMW | fAsync},
	"cp.reduce":                   {flags: fRoot | fExt},
	"cp.reduce.async":             {flags: fRoot | fExt},
	"cp.reduce.async.bulk":        {class: ClassMemory, mem: MemAsyncCopy, def: fxDefGlobal, flags: fReads | fWrites | fSide | fAsync | fCopy | fExt},
	"cp.reduce.async.bulk.tensor": {class: ClassMemory, mem: MemAsyncCopy, def: fxDefGlobal, flags: fReads | fWrites | fSide | fAsync | fCopy},

	// mbarrier objects (in shared memory).
	"mbarrier":               {flags: fRoot | fExt},
	"mbarrier.init":          {class: ClassSync, mem: MemBarrierObject, def: fxDefShared, flags: fSt | fSide},
	"mbarrier.inval":         {class: ClassSync, mem: MemBarrierObject, def: fxDefShared, flags: fSt | fSide},
	"mbarrier.arrive":        {class: ClassSync, mem: MemBarrierObject, def: fxDefShared, flags: fRMW},
	"mbarrier.arrive_drop":   {class: ClassSync, mem: MemBarrierObject, def: fxDefShared, flags: fRMW},
	"mbarrier.expect_tx":     {class: ClassSync, mem: MemBarrierObject, def: fxDefShared, flags: fRMW},
	"mbarrier.complete_tx":   {class: ClassSync, mem: MemBarrierObject, def: fxDefShared, flags: fRMW},
	"mbarrier.test_wait":     {class: ClassSync, mem: MemBarrierObject, def: fxDefShared, flags: fLd},
	"mbarrier.try_wait":      {class: ClassSync, mem: MemBarrierObject, def: fxDefShared, flags: fLd | fWait | fSide},
	"mbarrier.pending_count": {class: ClassSync},

	// Textures and surfaces.
	"tex":   {class: ClassTexture, mem: MemTexture, def: fxDefTex, flags: fLd | fReadOnly},
	"tld4":  {class: ClassTexture, mem: MemTexture, def: fxDefTex, flags: fLd | fReadOnly},
	"txq":   {class: ClassTexture, mem: MemQuery, def: fxDefTex, flags: fLd | fReadOnly},
	"suld":  {class: ClassTexture, mem: MemSurfaceLoad, def: fxDefGlobal, flags: fLd},
	"sust":  {class: ClassTexture, mem: MemSurfaceStore, def: fxDefGlobal, flags: fSt | fSide},
	"sured": {class: ClassTexture, mem: MemSurfaceReduction, def: fxDefGlobal, flags: fRMW},
	"suq":   {class: ClassTexture, mem: MemQuery, def: fxDefGlobal, flags: fLd | fReadOnly},

	// Tensor cores.
	"mma":                             {class: ClassTensor, flags: fSync | fExt},
	"mma.sp":                          {class: ClassTensor, flags: fSync},
	"wmma":                            {flags: fRoot | fExt},
	"wmma.load":                       {class: ClassMemory, mem: MemLoad, def: fxDefGeneric, flags: fLd | fSync},
	"wmma.store":                      {class: ClassMemory, mem: MemStore, def: fxDefGeneric, flags: fSt | fSide | fSync},
	"wmma.mma":                        {class: ClassTensor, flags: fSync},
	"wgmma":                           {flags: fRoot | fExt},
	"wgmma.mma_async":                 {class: ClassTensor, flags: fSync | fAsync | fSide | fExt},
	"wgmma.mma_async.sp":              {class: ClassTensor, flags: fSync | fAsync | fSide},
	"wgmma.fence":                     {class: ClassSync, flags: fSync | fFence | fSide},
	"wgmma.commit_group":              {class: ClassSync, flags: fSync | fSide},
	"wgmma.wait_group":                {class: ClassSync, flags: fSync | fWait | fSide},
	"tcgen05":                         {flags: fRoot | fExt},
	"tcgen05.alloc":                   {class: ClassSync, flags: fSync | fSide},
	"tcgen05.dealloc":                 {class: ClassSync, flags: fSync | fSide},
	"tcgen05.relinquish_alloc_permit": {class: ClassSync, flags: fSync | fSide},
	"tcgen05.ld":                      {class: ClassMemory, mem: MemLoad, flags: fLd | fSync | fAsync},
	"tcgen05.st":                      {class: ClassMemory, mem: MemStore, flags: fSt | fSide | fSync | fAsync},
	"tcgen05.cp":                      {class: ClassMemory, mem: MemAsyncCopy, def: fxDefShared, flags: fReads | fWrites | fSide | fAsync},
	"tcgen05.shift":                   {class: ClassTensor, flags: fSide | fAsync},
	"tcgen05.mma":                     {class: ClassTensor, flags: fSide | fAsync},
	"tcgen05.commit":                  {class: ClassSync, flags: fSide},
	"tcgen05.wait":                    {class: ClassSync, flags: fSync | fWait | fSide},
	"tcgen05.fence":                   {class: ClassSync, flags: fFence | fSide},

	// Barriers and fences.
	"bar":                               {class: ClassSync, flags: fBarrier | fSide | fExt},
	"bar.warp":                          {flags: fRoot | fExt},
	"bar.warp.sync":                     {class: ClassSync, flags: fBarrier | fSide | fSync},
	"barrier":                           {class: ClassSync, flags: fBarrier | fSide | fExt},
	"barrier.cluster":                   {class: ClassSync, flags: fBarrier | fSide},
	"membar":                            {class: ClassSync, flags: fFence | fSide},
	"fence":                             {class: ClassSync, flags: fFence | fSide},
	"griddepcontrol":                    {class: ClassSync, flags: fSide},
	"clusterlaunchcontrol":              {flags: fRoot | fExt},
	"clusterlaunchcontrol.try_cancel":   {class: ClassSync, mem: MemStore, def: fxDefShared, flags: fSt | fSide | fAsync},
	"clusterlaunchcontrol.query_cancel": {class: ClassInt},

	// Control flow.
	"bra":     {class: ClassControl, flags: fBranch | fEnds},
	"brx":     {flags: fRoot | fExt},
	"brx.idx": {class: ClassControl, flags: fBranch | fEnds},
	"call":    {class: ClassControl, flags: fCall | fSide},
	"ret":     {class: ClassControl, flags: fReturn | fEnds},
	"exit":    {class: ClassControl, flags: fExit | fSide | fEnds},
	"trap":    {class: ClassControl, flags: fExit | fSide | fEnds},
	"brkpt":   {class: ClassControl, flags: fSide},

	// Miscellaneous.
	"nanosleep":  {class: ClassMisc, flags: fSide},
	"pmevent":    {class: ClassMisc, flags: fSide},
	"setmaxnreg": {class: ClassMisc, flags: fSide | fSync},
}

// OpcodeFacts returns the facts of opcode o (the zero Facts for nil). It
// allocates nothing when o.Text is set (every parsed opcode) or the matched
// compound name is o.Name.
func OpcodeFacts(o *Opcode) Facts {
	if o == nil {
		return Facts{}
	}
	name, info, ok := fxLookupOp(o)
	if !ok {
		return Facts{}
	}
	fl := info.flags
	f := Facts{
		Known:       true,
		Name:        name,
		Class:       info.class,
		Mem:         info.mem,
		Reads:       fl&fReads != 0,
		Writes:      fl&fWrites != 0,
		Async:       fl&fAsync != 0,
		SideEffects: fl&fSide != 0,
		Barrier:     fl&fBarrier != 0,
		Fence:       fl&fFence != 0,
		Wait:        fl&fWait != 0,
		Branch:      fl&fBranch != 0,
		Call:        fl&fCall != 0,
		Return:      fl&fReturn != 0,
		Exit:        fl&fExit != 0,
		EndsBlock:   fl&fEnds != 0,
		Sync:        fl&fSync != 0,
	}
	switch {
	case fl&fByType != 0:
		f.Class = fxClassOfType(o.Type(), info.class)
	case fl&fApproxSFU != 0:
		if o.Flags&FlagApprox != 0 || o.Has(".approx") {
			f.Class = ClassSFU
		} else {
			f.Class = fxClassOfType(o.Type(), info.class)
		}
	}
	if f.Mem == MemNone {
		return f
	}
	// Resolve the state space.
	dst, src := fxSpaces(o)
	f.Space = dst
	if fl&fCopy != 0 {
		f.SrcSpace = src
		if f.SrcSpace == SpaceNone {
			f.SrcSpace = SpaceGlobal
		}
	}
	if info.def == fxDefTex {
		f.Space = SpaceTex
	}
	if f.Space == SpaceNone {
		switch info.def {
		case fxDefGlobal:
			f.Space = SpaceGlobal
		case fxDefShared:
			f.Space = SpaceShared
		default:
			// ld/st/atom/red/prefetch/wmma without a space address
			// generically. tcgen05.ld/st access tensor memory, which is no
			// PTX state space; it is reported as generic too.
			f.Space = SpaceGeneric
		}
	}
	// Read-only reads.
	if f.Reads && !f.Writes {
		switch {
		case fl&fReadOnly != 0:
			f.ReadOnly = true
		case f.Mem == MemLoad && (f.Space == SpaceConst || f.Space == SpaceParam):
			f.ReadOnly = true
		case f.Mem == MemLoad && (o.Flags&FlagNC != 0 || o.Has(".nc")):
			f.ReadOnly = true
		}
	}
	f.ReadWrite = f.Reads && f.Writes && fl&fCopy == 0
	return f
}

// FactsOf returns the facts of in's opcode (see OpcodeFacts). The guard does
// not change the facts.
func FactsOf(in *Instruction) Facts { return OpcodeFacts(in.Op) }

// IsKnownOpcode reports whether name is a PTX instruction this package
// knows. name may be a base or compound name ("ld", "cp.async.bulk.tensor")
// or a full spelling with modifiers ("ld.global.nc.v4.f32"); a family prefix
// alone ("wmma", "cp") is not an instruction.
func IsKnownOpcode(name string) bool {
	_, _, ok := fxLookupText(name)
	return ok
}

// fxClassOfType picks the arithmetic class of an operation type; integer
// and bit types give ClassInt, and no type keeps the default class def.
func fxClassOfType(t Type, def Class) Class {
	switch t {
	case F32, TF32:
		return ClassFP32
	case F64:
		return ClassFP64
	case F16, F16x2, BF16, BF16x2, E4M3, E5M2, E4M3x2, E5M2x2:
		return ClassFP16
	case TypeNone:
		return def
	}
	return ClassInt
}

// fxLookupOp finds the longest table name that o starts with.
func fxLookupOp(o *Opcode) (string, fxInfo, bool) {
	if o.Text != "" {
		return fxLookupText(o.Text)
	}
	// An opcode built by a pass: join Name and Mods in a stack buffer. The
	// map lookups index with string(b[:n]) directly, which the compiler
	// performs without allocating.
	var buf [96]byte
	b := append(buf[:0], o.Name...)
	for _, m := range o.Mods {
		if len(b)+len(m) > len(buf) {
			break
		}
		b = append(b, m...)
	}
	n, info, ok := fxLookupBytes(b)
	if !ok {
		return "", info, false
	}
	if n == len(o.Name) {
		return o.Name, info, true
	}
	return string(b[:n]), info, true
}

// fxLookupText walks the dot-separated components of text and returns the
// longest matching non-root table entry. Every prefix of a compound table
// name is itself in the table (marked fExt), so the walk stops at the first
// component that extends no entry. A component with a "::" qualifier
// (".sp::ordered_metadata") is also tried without it.
func fxLookupText(text string) (string, fxInfo, bool) {
	var (
		best  string
		bestI fxInfo
		found bool
	)
	end := fxComponentEnd(text, 0)
	for {
		key := text[:end]
		info, ok := fxTable[key]
		if !ok {
			if q := strings.Index(key, "::"); q > 0 && strings.LastIndexByte(key, '.') < q {
				key = key[:q]
				info, ok = fxTable[key]
			}
			if !ok {
				break
			}
		}
		if info.flags&fRoot == 0 {
			best, bestI, found = key, info, true
		}
		if info.flags&fExt == 0 || end >= len(text) {
			break
		}
		end = fxComponentEnd(text, end+1)
	}
	return best, bestI, found
}

// fxLookupBytes is fxLookupText for a byte slice; it returns the length of
// the matched name.
func fxLookupBytes(b []byte) (int, fxInfo, bool) {
	var (
		best  int
		bestI fxInfo
		found bool
	)
	end := fxComponentEndBytes(b, 0)
	for {
		key := b[:end]
		info, ok := fxTable[string(key)]
		if !ok {
			if q := fxQualifier(key); q > 0 {
				key = key[:q]
				info, ok = fxTable[string(key)]
			}
			if !ok {
				break
			}
		}
		if info.flags&fRoot == 0 {
			best, bestI, found = len(key), info, true
		}
		if info.flags&fExt == 0 || end >= len(b) {
			break
		}
		end = fxComponentEndBytes(b, end+1)
	}
	return best, bestI, found
}

// fxQualifier returns the index of a "::" qualifier in the last component of
// key, or -1.
func fxQualifier(key []byte) int {
	last := -1
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '.' {
			last = i
			break
		}
	}
	for i := last + 1; i+1 < len(key); i++ {
		if key[i] == ':' && key[i+1] == ':' {
			return i
		}
	}
	return -1
}

// fxComponentEnd returns the index of the '.' ending the component of s
// that starts at i, or len(s).
func fxComponentEnd(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	if j := strings.IndexByte(s[i:], '.'); j >= 0 {
		return i + j
	}
	return len(s)
}

func fxComponentEndBytes(b []byte, i int) int {
	for ; i < len(b); i++ {
		if b[i] == '.' {
			return i
		}
	}
	return len(b)
}

// fxSpaces returns the first and second state-space modifiers of o, in
// order (for copies: destination, source). It reads Mods, or the spelling
// in Text when Mods is empty, and falls back to o.Space when neither names
// a space (".shared::cta" is SpaceShared, ".shared::cluster"
// SpaceSharedCluster, ".param::entry" SpaceParam).
func fxSpaces(o *Opcode) (first, second Space) {
	n := 0
	add := func(s Space) {
		if s == SpaceNone {
			return
		}
		switch n {
		case 0:
			first = s
		case 1:
			second = s
		}
		n++
	}
	if len(o.Mods) > 0 {
		for _, m := range o.Mods {
			add(fxSpaceOfMod(m))
		}
	} else if t := o.Text; t != "" {
		i := fxComponentEnd(t, 0)
		for i < len(t) {
			end := fxComponentEnd(t, i+1)
			add(fxSpaceOfMod(t[i:end]))
			i = end
		}
	}
	if n == 0 {
		first = o.Space
	}
	return first, second
}

// fxSpaceOfMod maps a state-space modifier (with its dot) to a Space.
func fxSpaceOfMod(m string) Space {
	if len(m) < 4 || m[0] != '.' {
		return SpaceNone
	}
	base := m
	if i := strings.Index(m, "::"); i >= 0 {
		base = m[:i]
		if base == ".shared" && m[i+2:] == "cluster" {
			return SpaceSharedCluster
		}
	}
	switch base {
	case ".global":
		return SpaceGlobal
	case ".shared":
		return SpaceShared
	case ".local":
		return SpaceLocal
	case ".const":
		return SpaceConst
	case ".param":
		return SpaceParam
	case ".tex":
		return SpaceTex
	}
	if strings.HasPrefix(m, ".const[") { // PTX 1.x constant banks
		return SpaceConst
	}
	return SpaceNone
}
