package replay

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/ptxtrace/ptxtrace/internal/bigbuf"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Launch describes one kernel launch: the lowered code, the geometry and
// the memory it runs against.
type Launch struct {
	Code      *Code
	Grid      [3]int
	Block     [3]int
	DynShared int
	Params    []byte // kernel parameter buffer (Code.ParamSize bytes)
	Const     []byte // constant bank (nil: the module's initializers)
	Dev       *Device
	Globals   []uint64      // addresses of the module's .global variables (see Device.LoadModule)
	Textures  []*TexBinding // texture references by index, then texture objects
	NumSMs    int           // %nsmid (default 1)
	// RegsPerThread is what the timing model allocates per thread (ptxas's
	// count, e.g. from ptxas -v); 0: an estimate, see Kernel.RegsPerThread.
	RegsPerThread int
	// MaxWarpInsts bounds the instructions one warp may execute before the
	// launch faults as runaway (0: DefaultMaxWarpInsts).
	MaxWarpInsts uint64
}

// DefaultMaxWarpInsts is the default per-warp instruction budget.
const DefaultMaxWarpInsts = 200_000_000

// LoadModule allocates and initialises the module's .global variables on d
// and returns their addresses (Launch.Globals).
func (d *Device) LoadModule(p *Program) []uint64 {
	out := make([]uint64, len(p.globals))
	for i, g := range p.globals {
		a := d.Alloc(g.Name, g.Size)
		copy(a.Data, g.Init)
		out[i] = a.Base
	}
	return out
}

// Kernel is a launch ready to run: it implements model.Kernel, so the
// timing model can create CTAs and step warps; Run executes it functionally
// without a model.
type Kernel struct {
	l         Launch
	code      *Code
	nthreads  int
	nwarps    int
	nctas     int
	shared    int
	budget    uint64
	spinEvery uint64     // instructions between spin probes, 0: none (spin.go)
	stop      watchdog   // Interrupt (watchdog.go)
	spinK     kernelSpin // memory spin detection in timing mode (spinmem.go)
	printf    printfSink
	regPool   sync.Pool
	// slabs: the warp storage of released CTAs, for later CTAs of the
	// launch (a plain list, not a sync.Pool: a garbage collection would
	// empty a pool, and the next CTAs would allocate and clear it again),
	// one list per SM: a CTA reuses the storage of an earlier CTA of its
	// own SM, which the same model worker, and so mostly the same core,
	// last wrote (docs/performance.md, "Parallel scaling, fifth round")
	slabMu sync.Mutex
	slabs  [][]*warpSlab
	regs0  regArena // the entry-frame registers of new warps
	// entryRegs: the entry frame's registers as every warp starts them
	// before its special registers are filled (entryTemplate), or nil
	entryRegs []uint64
	// entryRuns: when entryPart, the only runs of entryRegs a warp copies
	// (the other registers are written before they are read: entrylive.go)
	entryRuns [][2]int32
	entryPart bool
	// entryFill: when entryPart, the special registers a warp's entry
	// frame fills (those some instruction reads)
	entryFill []regInit
	estRegs   int
	// model mode with printf: the CTAs created, to collect their output
	keep   bool
	kept   []*CTA
	keepMu sync.Mutex
	// conc: the launch may issue on several SMs at once (ConcurrentIssue);
	// why names the first instruction that rules it out.
	conc bool
	why  string
	// model mode with conc: every CTA writes global memory into its own
	// overlay; pending are the CTAs whose overlays are not merged yet, in
	// creation order (only touched in the model's serial phases).
	ovMode  bool
	pending []*CTA
	ovFree  []*overlay // merged overlays for reuse (serial phases only)
	// dynamic parallelism (cdp.go): the device runtime shared by the host
	// launch and its child grids, this grid's index among the child grids
	// (-1: launched by the host) and its nesting depth
	dr    *devRuntime
	grid  int
	depth int
	// onMbar receives the TMA/bulk copies and mbarrier waits executed
	// (ObserveMbarrier, exec_tma.go); nil: none
	onMbar func(MbarEvent)
}

// getRegs returns a zeroed register array of n values.
func (k *Kernel) getRegs(n int) []uint64 {
	if p, ok := k.regPool.Get().(*[]uint64); ok && cap(*p) >= n {
		r := (*p)[:n]
		clear(r)
		return r
	}
	return make([]uint64, n)
}

// regArena hands out the entry-frame registers of new warps (warp.regs0,
// which a recycled warp keeps) from shared zeroed chunks instead of one
// allocation per warp, so that a launch's warps' registers lie in a few
// large allocations, huge-page backed from bigbuf.MinBytes on
// (internal/bigbuf): a fresh process then first-touches them with a few
// faults instead of one per 4 KiB. The first chunk holds the registers of
// up to arenaCTAs CTAs' warps (fewer when the grid is smaller), each next
// one twice the last. Safe for concurrent use.
type regArena struct {
	mu   sync.Mutex
	free []uint64
	next int // registers of the next chunk; 0: not started
}

// arenaCTAs is how many CTAs' warps the first register chunk holds: about
// the CTAs a GPU preset keeps resident (gtx480: 15 SMs × 8).
const arenaCTAs = 128

// entryFrameRegs returns n zeroed registers for a new warp's entry frame.
func (k *Kernel) entryFrameRegs(n int) []uint64 {
	a := &k.regs0
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.free) < n {
		if a.next == 0 {
			a.next = min(k.nctas, arenaCTAs) * k.nwarps * n
		}
		const perHuge = bigbuf.HugePage / 8 // registers per huge page
		size := max(a.next, n)
		if 8*size >= bigbuf.MinBytes {
			size = (size + perHuge - 1) / perHuge * perHuge // whole huge pages
		}
		a.next = 2 * size
		a.free = bigbuf.Slice[uint64](size)
	}
	r := a.free[:n:n]
	a.free = a.free[n:]
	return r
}

func (k *Kernel) putRegs(r []uint64) {
	if r != nil {
		k.regPool.Put(&r)
	}
}

// NewKernel checks a launch and prepares it.
func NewKernel(l Launch) (*Kernel, error) {
	c := l.Code
	if c == nil {
		return nil, fmt.Errorf("launch without code")
	}
	for i := 0; i < 3; i++ {
		if l.Grid[i] == 0 {
			l.Grid[i] = 1
		}
		if l.Block[i] == 0 {
			l.Block[i] = 1
		}
		if l.Grid[i] < 0 || l.Block[i] < 0 {
			return nil, fmt.Errorf("negative launch dimension")
		}
	}
	nt := l.Block[0] * l.Block[1] * l.Block[2]
	if nt > 1024 {
		return nil, fmt.Errorf("%d threads per block exceed 1024", nt)
	}
	if c.entry != nil && c.entry.frameSize > maxLocalPerThread {
		return nil, fmt.Errorf("kernel %s: %d bytes of .local memory per thread exceed the %d-byte limit", c.Name, c.entry.frameSize, maxLocalPerThread)
	}
	if len(l.Params) < c.ParamSize {
		return nil, fmt.Errorf("parameter buffer has %d bytes, kernel %s needs %d", len(l.Params), c.Name, c.ParamSize)
	}
	if l.Const == nil {
		l.Const = c.Prog.constInit
	}
	if l.Dev == nil {
		l.Dev = NewDeviceFor(c.Prog)
	}
	if c.Prog.addr32 {
		for _, a := range l.Dev.allocs {
			if a.End() > GlobalLimit32 {
				return nil, fmt.Errorf("kernel %s is an .address_size 32 module, but allocation %s at %#x+%d does not fit its 32-bit address space (create the device with NewDeviceFor)", c.Name, a.Name, a.Base, len(a.Data))
			}
		}
	}
	if l.Globals == nil {
		l.Globals = l.Dev.LoadModule(c.Prog)
	}
	if l.NumSMs <= 0 {
		l.NumSMs = 1
	}
	k := &Kernel{l: l, code: c, nthreads: nt, nwarps: (nt + 31) / 32,
		nctas: l.Grid[0] * l.Grid[1] * l.Grid[2], grid: -1}
	k.shared = c.dynBase() + l.DynShared
	if l.DynShared == 0 {
		k.shared = c.SharedStatic
	}
	k.budget = l.MaxWarpInsts
	if k.budget == 0 {
		k.budget = DefaultMaxWarpInsts
	}
	k.spinEvery = DefaultSpinCheck
	k.entryRegs = entryTemplate(c.entry, l.Globals)
	if k.entryRegs != nil {
		k.entryRuns, k.entryFill, k.entryPart = entryCopy(c.entry)
	}
	k.conc, k.why = concurrentSafe(c)
	if c.UsesDevRT {
		k.conc, k.why = false, "device-side kernel launch (dynamic parallelism)"
	}
	return k, nil
}

// maxEntryTemplate bounds the registers × lanes of an entry-frame
// template (a larger frame initialises register by register).
const maxEntryTemplate = 1 << 16

// entryTemplate returns f's registers at the start of a warp's entry frame
// (local-memory base 0): zero, except the values of its immediate, symbol
// address and frame address initialisations; special registers are left
// zero for pushFrame to fill per warp. It is nil when f has no code, its
// frame is large, or two initialisations name one register (then order
// would matter and pushFrame keeps its register-by-register path).
func entryTemplate(f *fnCode, globals []uint64) []uint64 {
	if f == nil || f.builtin != builtinNone || f.nregs*32 > maxEntryTemplate {
		return nil
	}
	t := make([]uint64, f.nregs*32)
	seen := make(map[int32]bool, len(f.inits))
	for _, ri := range f.inits {
		if seen[ri.reg] || ri.reg < 0 || int(ri.reg)+32 > len(t) {
			return nil
		}
		seen[ri.reg] = true
		v := ri.v
		switch ri.kind {
		case initGlobal:
			if int(ri.idx) >= len(globals) {
				return nil
			}
			v += globals[ri.idx]
		case initFrame: // + the frame base, 0 for the entry frame
		case initSpecial:
			continue
		}
		r := t[ri.reg : ri.reg+32]
		for l := range r {
			r[l] = v
		}
	}
	return t
}

// Code returns the lowered code of the launch.
func (k *Kernel) Code() *Code { return k.code }

// NumCTAs implements model.Kernel.
func (k *Kernel) NumCTAs() int { return k.nctas }

// ThreadsPerCTA implements model.Kernel.
func (k *Kernel) ThreadsPerCTA() int { return k.nthreads }

// DefaultMaxRegs caps the register estimate of a kernel without a known
// allocation (ptxas allocates at most 63 registers per thread on Fermi).
const DefaultMaxRegs = 63

// RegsPerThread implements model.Kernel: Launch.RegsPerThread when given,
// else Code.EstimateRegs capped at DefaultMaxRegs and at the entry's
// .maxnreg (ptxas spills rather than exceed it). (PTX declares virtual
// registers freely, often hundreds, so the declared count would make the
// model's occupancy far too low; the liveness estimate is within a few
// registers of ptxas -v for the samples.)
func (k *Kernel) RegsPerThread() int {
	if k.l.RegsPerThread > 0 {
		return k.l.RegsPerThread
	}
	if k.estRegs == 0 {
		k.estRegs = min(k.code.EstimateRegs(), DefaultMaxRegs)
		if n := k.code.MaxNReg(); n > 0 {
			k.estRegs = min(k.estRegs, n)
		}
	}
	return k.estRegs
}

// SharedPerCTA implements model.Kernel.
func (k *Kernel) SharedPerCTA() int { return k.shared }

// WarpsPerCTA is ⌈threads per CTA / 32⌉.
func (k *Kernel) WarpsPerCTA() int { return k.nwarps }

// Printf returns the printf output of the CTAs run so far, in CTA order
// for Run (in creation order otherwise).
func (k *Kernel) Printf() []byte { return k.printf.bytes() }

// CTA is one running thread block; it implements model.CTA.
type CTA struct {
	k      *Kernel
	linear int
	id     [3]int
	sm     int
	shared []byte
	warps  []*warp
	mwarps []model.Warp
	ov     *overlay
	bars   []barrier // the 16 named barriers, allocated by the first arrival (bar)
	out    []byte    // printf output of this CTA
	tinsts uint64    // thread-instructions executed
	winsts uint64    // warp-instructions executed
	lastA  *Alloc
	async  []asyncCopy // pending cp.async destinations (exec_async.go)
	// pending cp.async destinations per 16-byte chunk of shared memory
	// (a filter in front of the scan of async)
	asyncCnt []int32
	tma      []pendingTma // TMA copies not yet completed (exec_tma.go)
	// wgmma operands of each warpgroup's n-th wgmma, for the check that
	// the four warps agree (exec_wgmma.go)
	wgOps  map[[2]int]wgOperands
	tmaSeq int
	fault  *Fault
	ndone  int // warps that have exited
	slab   *warpSlab
	// released: the model finished the CTA (Release); its warps are gone
	released bool
	spin     ctaSpin // memory spin detection (spinmem.go)
}

type barrier struct {
	arrived  int
	expected int // 0: all live warps
	waiting  []int
	popc     uint32
	and, or  bool
	redSeen  bool
	// bar.red results of the last completed generation, and the number
	// of completed generations
	rPopc     uint32
	rAnd, rOr bool
	gen       uint64
}

// NewCTA implements model.Kernel: it creates CTA number i (linear id) on SM
// sm. Outside RunModel's overlay mode global memory is written directly.
// In overlay mode (a ConcurrentIssue launch under RunModel) the CTA gets its
// own overlay, and the call first merges the overlays of the CTAs that have
// finished since the last call, in CTA order: the model calls NewCTA only
// in its serial phases (initial dispatch and epoch boundaries), when no
// warp is issuing, so device memory is never written while SMs run.
func (k *Kernel) NewCTA(i int, sm int) (model.CTA, error) {
	var ov *overlay
	if k.ovMode {
		k.mergeFinished(false)
		if n := len(k.ovFree); n > 0 {
			ov = k.ovFree[n-1]
			k.ovFree = k.ovFree[:n-1]
		} else {
			ov = newOverlay()
		}
	}
	// the warps are built by the SM that starts the CTA (Warps), just
	// before they first issue: their registers are then still in the host
	// caches when the warps run (built here, at dispatch, the other SMs'
	// work of the epoch in between would evict them)
	c, err := k.newCTA(i, sm, ov, false)
	if err != nil {
		return nil, err
	}
	k.spinNewCTA(c, i)
	if k.ovMode {
		k.pending = append(k.pending, c)
	}
	if k.keep {
		k.keepMu.Lock()
		k.kept = append(k.kept, c)
		k.keepMu.Unlock()
	}
	return c, nil
}

// newCTA creates CTA i; without warps set, its warps are built by the
// first Warps call (in overlay mode: by the SM that starts the CTA, so that
// this work runs in the model's parallel phase and each warp's memory is
// allocated by the goroutine that uses it).
func (k *Kernel) newCTA(i, sm int, ov *overlay, warps bool) (*CTA, error) {
	if i < 0 || i >= k.nctas {
		return nil, fmt.Errorf("CTA %d out of range (grid has %d)", i, k.nctas)
	}
	g := k.l.Grid
	c := &CTA{k: k, linear: i, sm: sm, ov: ov,
		id:     [3]int{i % g[0], i / g[0] % g[1], i / (g[0] * g[1])},
		shared: make([]byte, k.shared)}
	if warps {
		c.buildWarps()
	}
	return c, nil
}

func (c *CTA) buildWarps() {
	k := c.k
	var sl *warpSlab
	k.slabMu.Lock()
	if c.sm < len(k.slabs) {
		if l := k.slabs[c.sm]; len(l) > 0 {
			sl = l[len(l)-1]
			l[len(l)-1] = nil
			k.slabs[c.sm] = l[:len(l)-1]
		}
	}
	k.slabMu.Unlock()
	if sl == nil || len(sl.ws) != k.nwarps {
		sl = &warpSlab{ws: make([]warp, k.nwarps), ptr: make([]*warp, k.nwarps), mw: make([]model.Warp, k.nwarps)}
	}
	c.slab, c.warps, c.mwarps = sl, sl.ptr, sl.mw
	for wi := range sl.ws {
		w := &sl.ws[wi]
		initWarp(w, c, wi)
		c.warps[wi] = w
		c.mwarps[wi] = w
		if w.done {
			c.ndone++
		}
	}
}

// mergeFinished merges into the device the overlays of the pending CTAs
// whose warps have all exited (all pending CTAs when all is set), in CTA
// order, and drops them from the pending list. It runs only in a serial
// phase of the model (or after model.Run), so it never races with Issue.
func (k *Kernel) mergeFinished(all bool) {
	var done []*CTA
	keep := k.pending[:0]
	for _, c := range k.pending {
		if all || c.released || (c.warps != nil && c.ndone == len(c.warps)) {
			done = append(done, c)
		} else {
			keep = append(keep, c)
		}
	}
	clear(k.pending[len(keep):])
	k.pending = keep
	if len(done) == 0 {
		return
	}
	slices.SortFunc(done, func(a, b *CTA) int { return a.linear - b.linear })
	for _, c := range done {
		c.ov.merge(k.l.Dev)
		c.ov.reset()
		k.ovFree = append(k.ovFree, c.ov)
		c.ov = nil
	}
}

// SetSerial makes ConcurrentIssue false for the next RunModel (SMs one
// after another, global writes straight to the device), for comparison
// and debugging; race-free kernels give the same bytes and timing.
func (k *Kernel) SetSerial() { k.conc, k.why = false, "serial run requested" }

// ConcurrentIssue implements model.ConcurrentKernel. It answers true when
// no instruction of the lowered entry or of a function it calls could let
// CTAs communicate through global memory within the launch (see doc.go,
// "Parallel timing mode"): then RunModel gives every CTA an overlay and
// the model may issue on several SMs at once.
func (k *Kernel) ConcurrentIssue() bool { return k.conc }

// privateRegPrefix is the prefix of the registers the instrumentation
// reserves (instrument/rewrite.go). Its atomics and volatile stores address
// only the warp's own trace segment or shared slot, never memory another CTA
// touches, so they are CTA-private.
const privateRegPrefix = "%__pt_"

// concurrentSafe applies the ConcurrentIssue rule to the code; when it
// fails, it returns the text of the first offending instruction.
func concurrentSafe(c *Code) (bool, string) {
	for _, f := range c.order {
		for i := range f.code {
			in := &f.code[i]
			if !instConcurrentSafe(in) {
				return false, in.text
			}
		}
	}
	return true, ""
}

func instConcurrentSafe(in *inst) bool {
	text := strings.TrimSpace(in.text)
	// skip the guard: "@%p1 op ..." / "@!%p1 op ..."
	for strings.HasPrefix(text, "@") {
		_, rest, ok := strings.Cut(text, " ")
		if !ok {
			return true
		}
		text = strings.TrimSpace(rest)
	}
	name, _, _ := strings.Cut(text, " ")
	name = strings.TrimSuffix(name, ";")
	if name == "" {
		return true
	}
	op := ptx.DecodeOpcode(name)
	switch op.Name {
	case "membar", "fence":
		for _, m := range op.Mods {
			switch m {
			case ".gl", ".gpu", ".sys":
				return false
			}
		}
		return true
	}
	f := ptx.OpcodeFacts(op)
	if f.Mem == ptx.MemNone {
		return true
	}
	switch in.space {
	case spShared, spLocal, spFrame, spConst, spParam:
		return true // CTA- or thread-private, or read-only
	}
	if f.Space == ptx.SpaceShared || f.Space == ptx.SpaceLocal || f.Space == ptx.SpaceConst || f.Space == ptx.SpaceParam {
		return true
	}
	if f.Mem == ptx.MemAtomic || f.Mem == ptx.MemReduction || f.ReadWrite {
		return privateAddr(text)
	}
	switch op.Sem {
	case ".volatile", ".mmio", ".acquire", ".release", ".acq_rel", ".sc":
		return privateAddr(text)
	case ".relaxed":
		if op.Scope != ".cta" && op.Scope != ".cluster" { // a CTA is its own cluster
			return privateAddr(text)
		}
	}
	return true
}

// privateAddr reports whether the address operand (the first [...] of the
// instruction text) is based on an instrumentation register.
func privateAddr(text string) bool {
	_, a, ok := strings.Cut(text, "[")
	return ok && strings.HasPrefix(strings.TrimSpace(a), privateRegPrefix)
}

// Warps implements model.CTA.
func (c *CTA) Warps() []model.Warp {
	if c.warps == nil {
		c.buildWarps()
	}
	return c.mwarps
}

// ID returns the CTA's index in the grid.
func (c *CTA) ID() [3]int { return c.id }

// ThreadInsts returns the thread-instructions the CTA has executed.
func (c *CTA) ThreadInsts() uint64 { return c.tinsts }

// Printf returns the printf output of the CTA so far.
func (c *CTA) Printf() []byte { return c.out }

func (c *CTA) liveWarps() int {
	n := 0
	for _, w := range c.warps {
		if !w.done {
			n++
		}
	}
	return n
}

// lanesOf returns the mask of the lanes of warp wi that exist.
func lanesOf(nthreads, wi int) uint32 {
	n := nthreads - wi*32
	if n >= 32 {
		return ^uint32(0)
	}
	if n <= 0 {
		return 0
	}
	return uint32(1)<<uint(n) - 1
}

var _ = bits.OnesCount32
