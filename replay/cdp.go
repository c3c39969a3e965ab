package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// CUDA dynamic parallelism: the device runtime (cudadevrt) functions that
// nvcc -rdc emits for a device-side kernel launch, executed as built-ins.
//
// Schedule. A grid launched from device code (a child grid) is queued; the
// queue runs when the host-launched grid has finished, in launch order, each
// child grid to completion before the next (breadth first: a child's own
// children are queued behind the grids already launched). This is one of
// the schedules the CUDA programming guide allows: a child starts after its
// launch, the parent grid is complete only when all its descendants are (the
// host's launch returns when the queue is empty), the parent's global writes
// before the launch are visible to the child (all of them are, the parent
// has finished), and the child's writes are visible to the host afterwards.
// Children launched into the NULL stream by one thread block run in launch
// order, as the stream requires. Kernels that call the device runtime run
// their CTAs one after another (like global atomics), so launch order, the
// parameter buffers' addresses and every result are deterministic.
//
// Refused (a fault, never a silently different result): device-side
// cudaDeviceSynchronize (CDP1, removed in CUDA 12: a parent thread would
// have to wait for its children in the middle of its grid), streams other
// than the NULL stream, a launch deeper than MaxLaunchDepth, and more than
// MaxPendingLaunches grids outstanding (launched, not complete) under this
// schedule.

// Device-runtime limits (CUDA programming guide, "Dynamic Parallelism",
// Implementation Restrictions and Limitations).
const (
	// MaxLaunchDepth is the deepest nesting of device-side launches: the
	// host-launched grid is depth 0, its children depth 1.
	MaxLaunchDepth = 24
	// MaxPendingLaunches is cudaLimitDevRuntimePendingLaunchCount's default:
	// grids launched from the device and not yet complete.
	MaxPendingLaunches = 2048
	// MaxParamBuffer is the largest kernel parameter buffer (4 KiB).
	MaxParamBuffer = 4096
	// maxChildShared bounds a child's shared memory (static + dynamic): the
	// largest any GPU offers per block (227 KiB, sm_90).
	maxChildShared = 227 << 10
)

// CUDA error codes the device runtime returns (driver_types.h, cudaError).
const (
	cudaSuccess             = 0
	cudaErrorInvalidConfig  = 9
	cudaErrorFileScopedTex  = 66
	cudaErrorFileScopedSurf = 67
)

// devrtBuiltin maps a device-runtime function to its built-in.
func devrtBuiltin(name string) (builtinKind, bool) {
	switch name {
	case "cudaGetParameterBuffer":
		return builtinGetParamBuf, true
	case "cudaGetParameterBufferV2":
		return builtinGetParamBufV2, true
	case "cudaLaunchDevice", "cudaLaunchDevice_ptsz":
		return builtinLaunchDevice, true
	case "cudaLaunchDeviceV2", "cudaLaunchDeviceV2_ptsz":
		return builtinLaunchDeviceV2, true
	case "cudaGetLastError":
		return builtinGetLastError, true
	case "cudaPeekAtLastError":
		return builtinPeekAtLastError, true
	}
	return builtinNone, false
}

// devrtRefusal gives why a device-runtime function is refused ("" when name
// is not one).
func devrtRefusal(name string) string {
	switch name {
	case "cudaDeviceSynchronize":
		return "device-side cudaDeviceSynchronize (CUDA dynamic parallelism version 1, removed in CUDA 12) is not implemented: replay runs child grids after their parent grid, so a parent thread cannot wait for them"
	case "cudaStreamCreateWithFlags", "cudaStreamDestroy", "cudaEventCreateWithFlags", "cudaEventRecord",
		"cudaEventRecord_ptsz", "cudaEventDestroy", "cudaStreamWaitEvent", "cudaStreamWaitEvent_ptsz":
		return "device-side streams and events are not implemented (dynamic parallelism: replay launches into the NULL stream only)"
	case "cudaGetDevice", "cudaDeviceGetAttribute", "cudaDeviceGetLimit", "cudaFuncGetAttributes",
		"cudaMalloc", "cudaFree", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaGetErrorString", "cudaGetErrorName",
		"cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
		"cudaMemcpy2DAsync", "cudaMemcpy3DAsync", "cudaCGGetIntrinsicHandle", "cudaCGSynchronize",
		"cudaCGSynchronizeGrid", "cudaCGGetSize", "cudaCGGetRank", "cudaGetParameterBuffer_ptsz":
		return "this CUDA device-runtime function is not implemented (replay implements cudaGetParameterBuffer[V2], cudaLaunchDevice[V2], cudaGetLastError and cudaPeekAtLastError)"
	}
	return ""
}

// checkDevrtSig checks the declaration of a device-runtime built-in against
// the sizes of its C prototype (pointers and cudaStream_t 8 bytes, dim3 12,
// unsigned int and cudaError_t 4).
func checkDevrtSig(name string, f *fnCode) error {
	var params []int
	ret := 4
	switch f.builtin {
	case builtinGetParamBuf:
		params, ret = []int{8, 8}, 8
	case builtinGetParamBufV2:
		params, ret = []int{8, 12, 12, 4}, 8
	case builtinLaunchDevice:
		params = []int{8, 8, 12, 12, 4, 8}
	case builtinLaunchDeviceV2:
		params = []int{8, 8}
	case builtinGetLastError, builtinPeekAtLastError:
	default:
		return nil
	}
	ok := len(f.params) == len(params) && len(f.rets) == 1 && f.rets[0].size == ret
	for i := 0; ok && i < len(params); i++ {
		ok = f.params[i].size == params[i]
	}
	if !ok {
		return fmt.Errorf("%s is declared with a signature that is not the CUDA device runtime's (parameter sizes %v, return value %d bytes)", name, params, ret)
	}
	return nil
}

// ChildGrid is one grid launched from device code, in launch order.
type ChildGrid struct {
	// Index is the grid's number in launch order among the device-side
	// launches of one host launch (0, 1, ...).
	Index int
	// Parent is the Index of the launching grid, -1 for the host-launched
	// grid; Depth is 1 for a child of the host-launched grid.
	Parent, Depth int
	Kernel        string
	Grid, Block   [3]int
	DynShared     int
	// By is the launching thread: its CTA, thread index, warp, lane and
	// the PC and PTX line of the call.
	By LaunchSite
	// What the grid executed (functional summary).
	CTAs        int
	WarpInsts   uint64
	ThreadInsts uint64
	// Timing mode: the grid's own model result, and the cycles (counted
	// from the host launch) at which its first CTA was dispatched and its
	// last CTA completed.
	Timing     *model.Result
	Start, End model.Time
}

// LaunchSite is the thread that made a device-side launch.
type LaunchSite struct {
	CTA, Thread [3]int
	Warp, Lane  int
	PC, Line    int
}

// devRuntime is the device-runtime state shared by a host launch and every
// grid launched from it. Only touched by the warps of kernels that call the
// device runtime, whose CTAs run one after another, and by the drain loop.
type devRuntime struct {
	codes   map[string]*Code
	bufs    map[uint64]*paramBuf // parameter buffers not launched yet
	nbufs   int
	lastErr map[threadKey]uint32
	kids    []*childLaunch
	done    int // completed child grids
}

type paramBuf struct {
	a *Alloc
	// V2: the configuration given to cudaGetParameterBufferV2
	v2          bool
	fn          uint64
	grid, block [3]uint32
	shared      uint32
}

type threadKey struct{ grid, cta, thread int }

type childLaunch struct {
	rec      ChildGrid
	l        Launch
	pending  int // its children not complete
	ran      bool
	complete bool
}

func newDevRuntime() *devRuntime {
	return &devRuntime{codes: map[string]*Code{}, bufs: map[uint64]*paramBuf{}, lastErr: map[threadKey]uint32{}}
}

// outstanding is the number of child grids launched and not complete.
func (d *devRuntime) outstanding() int { return len(d.kids) - d.done }

// finished marks child grid i as having run; it and its ancestors complete
// when no descendant is pending.
func (d *devRuntime) finished(i int) {
	d.kids[i].ran = true
	for i >= 0 {
		c := d.kids[i]
		if !c.ran || c.pending > 0 || c.complete {
			return
		}
		c.complete = true
		d.done++
		i = c.rec.Parent
		if i < 0 {
			return
		}
		d.kids[i].pending--
	}
}

// deviceRuntime runs a device-runtime built-in for the lanes in m, in lane
// order.
func (w *warp) deviceRuntime(in *inst, f *fnCode, m uint32, fr *frame) {
	k := w.k
	if k.dr == nil {
		k.dr = newDevRuntime()
	}
	if len(in.args) != len(f.params) || len(in.rets) != len(f.rets) {
		w.faultf(in, -1, FaultInvalid, "call of %s passes %d arguments and %d return values, it takes %d and %d", f.name, len(in.args), len(in.rets), len(f.params), len(f.rets))
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		key := threadKey{k.grid, w.c.linear, w.id*32 + l}
		switch f.builtin {
		case builtinGetParamBuf:
			p, ok := w.getParamBuf(in, l, w.slotVal(fr, in.args[0], l), w.slotVal(fr, in.args[1], l))
			if !ok {
				return
			}
			w.setRet(fr, in, l, p.a.Base)
		case builtinGetParamBufV2:
			fn := w.slotVal(fr, in.args[0], l)
			g, b := w.dim3Arg(fr, in.args[1], l), w.dim3Arg(fr, in.args[2], l)
			sh := uint32(w.slotVal(fr, in.args[3], l))
			size := uint64(MaxParamBuffer)
			if c, err := w.childCode(fn); err == nil {
				size = uint64(max(c.ParamSize, 1))
			}
			p, ok := w.getParamBuf(in, l, 64, size)
			if !ok {
				return
			}
			p.v2, p.fn, p.grid, p.block, p.shared = true, fn, g, b, sh
			w.setRet(fr, in, l, p.a.Base)
		case builtinLaunchDevice, builtinLaunchDeviceV2:
			var p *paramBuf
			var fn uint64
			var g, b [3]uint32
			var sh uint32
			var stream uint64
			var buf uint64
			if f.builtin == builtinLaunchDevice {
				fn, buf = w.slotVal(fr, in.args[0], l), w.slotVal(fr, in.args[1], l)
				g, b = w.dim3Arg(fr, in.args[2], l), w.dim3Arg(fr, in.args[3], l)
				sh, stream = uint32(w.slotVal(fr, in.args[4], l)), w.slotVal(fr, in.args[5], l)
			} else {
				buf, stream = w.slotVal(fr, in.args[0], l), w.slotVal(fr, in.args[1], l)
			}
			if buf != 0 {
				p = k.dr.bufs[buf]
				if p == nil {
					w.faultf(in, l, FaultInvalid, "%s: parameter buffer %#x was not returned by cudaGetParameterBuffer, or was launched already", f.name, buf)
					return
				}
				if p.v2 != (f.builtin == builtinLaunchDeviceV2) {
					w.faultf(in, l, FaultInvalid, "%s: parameter buffer %#x comes from the other cudaGetParameterBuffer variant", f.name, buf)
					return
				}
				if p.v2 {
					fn, g, b, sh = p.fn, p.grid, p.block, p.shared
				}
			} else if f.builtin == builtinLaunchDeviceV2 {
				w.faultf(in, l, FaultInvalid, "%s: NULL parameter buffer (the V2 launch takes its configuration from the buffer)", f.name)
				return
			}
			e, ok := w.launchDevice(in, l, f.name, fn, p, g, b, sh, stream)
			if !ok {
				return
			}
			if e != cudaSuccess {
				k.dr.lastErr[key] = e
			}
			w.setRet(fr, in, l, uint64(e))
		case builtinGetLastError:
			w.setRet(fr, in, l, uint64(k.dr.lastErr[key]))
			delete(k.dr.lastErr, key)
		case builtinPeekAtLastError:
			w.setRet(fr, in, l, uint64(k.dr.lastErr[key]))
		}
		if w.fault != nil {
			return
		}
	}
}

// getParamBuf allocates a parameter buffer of size bytes aligned to align
// (device allocations are 256-byte aligned).
func (w *warp) getParamBuf(in *inst, l int, align, size uint64) (*paramBuf, bool) {
	if align == 0 || align&(align-1) != 0 || align > 256 {
		w.faultf(in, l, FaultInvalid, "cudaGetParameterBuffer: alignment %d is not a power of two up to 256", align)
		return nil, false
	}
	if size > MaxParamBuffer {
		w.faultf(in, l, FaultInvalid, "cudaGetParameterBuffer: %d bytes exceed the %d-byte kernel parameter limit", size, MaxParamBuffer)
		return nil, false
	}
	d := w.k.dr
	a := w.k.l.Dev.Alloc(fmt.Sprintf("cudadevrt.param%d", d.nbufs), int(max(size, 1)))
	d.nbufs++
	p := &paramBuf{a: a}
	d.bufs[a.Base] = p
	return p, true
}

// childCode lowers (once) the entry whose address is fn.
func (w *warp) childCode(fn uint64) (*Code, error) {
	prog := w.k.code.Prog
	i := (fn - FuncAddrBase) / 16
	if fn < FuncAddrBase || fn%16 != 0 || i >= uint64(len(prog.fnames)) {
		return nil, fmt.Errorf("%#x is not a function address", fn)
	}
	name := prog.fnames[i]
	if c, ok := w.k.dr.codes[name]; ok {
		return c, nil
	}
	if fn := prog.funcs[name]; fn == nil || fn.Kind != ptx.Entry || fn.Body == nil {
		return nil, fmt.Errorf("%s is not a kernel (.entry)", name)
	}
	c, err := prog.Lower(name)
	if err != nil {
		return nil, err
	}
	w.k.dr.codes[name] = c
	return c, nil
}

// launchDevice queues a child grid; it returns the cudaError_t of the
// launch, or false after a fault.
func (w *warp) launchDevice(in *inst, l int, api string, fn uint64, p *paramBuf, g, b [3]uint32, sh uint32, stream uint64) (uint32, bool) {
	k := w.k
	d := k.dr
	c, err := w.childCode(fn)
	if err != nil {
		w.faultf(in, l, FaultInvalid, "%s: %v", api, err)
		return 0, false
	}
	if stream != 0 {
		w.faultf(in, l, FaultUnsupported, "%s: stream %#x: device-side streams are not implemented (dynamic parallelism: replay launches into the NULL stream only)", api, stream)
		return 0, false
	}
	if p == nil && c.ParamSize > 0 {
		w.faultf(in, l, FaultInvalid, "%s: NULL parameter buffer for kernel %s, which takes %d bytes of parameters", api, c.Name, c.ParamSize)
		return 0, false
	}
	if p != nil && len(p.a.Data) < c.ParamSize {
		w.faultf(in, l, FaultInvalid, "%s: parameter buffer of %d bytes for kernel %s, which takes %d", api, len(p.a.Data), c.Name, c.ParamSize)
		return 0, false
	}
	if p != nil {
		delete(d.bufs, p.a.Base) // the launch owns it now
	}
	// an invalid configuration is the runtime's error, not a fault
	threads := uint64(b[0]) * uint64(b[1]) * uint64(b[2])
	if g[0] == 0 || g[1] == 0 || g[2] == 0 || g[0] > math.MaxInt32 || g[1] > 65535 || g[2] > 65535 ||
		b[0] == 0 || b[1] == 0 || b[2] == 0 || b[0] > 1024 || b[1] > 1024 || b[2] > 64 || threads > 1024 ||
		uint64(c.dynBase())+uint64(sh) > maxChildShared {
		return cudaErrorInvalidConfig, true
	}
	// the device runtime launches only kernels using texture and surface
	// objects, not file-scoped references
	if c.usesTexRef {
		return cudaErrorFileScopedTex, true
	}
	if c.usesSurfRef {
		return cudaErrorFileScopedSurf, true
	}
	if k.depth+1 > MaxLaunchDepth {
		w.faultf(in, l, FaultInvalid, "%s: cudaErrorLaunchMaxDepthExceeded: launching %s at nesting depth %d exceeds the maximum depth %d", api, c.Name, k.depth+1, MaxLaunchDepth)
		return 0, false
	}
	if d.outstanding() >= MaxPendingLaunches {
		w.faultf(in, l, FaultUnsupported, "%s: cudaErrorLaunchPendingCountExceeded: %d device-launched grids outstanding, the limit is %d (replay starts child grids only after their parent grid, so a GPU that starts them earlier may stay below the limit)", api, d.outstanding(), MaxPendingLaunches)
		return 0, false
	}
	params := make([]byte, c.ParamSize)
	for o := 0; o < c.ParamSize; o++ {
		v, ok := w.genericRead(l, p.a.Base+uint64(o), 1)
		if !ok {
			w.faultf(in, l, FaultInvalid, "%s: parameter buffer %#x unreadable", api, p.a.Base)
			return 0, false
		}
		params[o] = byte(v)
	}
	t := w.id*32 + l
	bl := k.l.Block
	rec := ChildGrid{Index: len(d.kids), Parent: k.grid, Depth: k.depth + 1, Kernel: c.Name,
		Grid: [3]int{int(g[0]), int(g[1]), int(g[2])}, Block: [3]int{int(b[0]), int(b[1]), int(b[2])}, DynShared: int(sh),
		By: LaunchSite{CTA: w.c.id, Thread: [3]int{t % bl[0], t / bl[0] % bl[1], t / (bl[0] * bl[1])}, Warp: w.id, Lane: l}}
	if in != nil {
		rec.By.PC, rec.By.Line = in.m.PC, in.m.Line
	}
	pl := k.l
	d.kids = append(d.kids, &childLaunch{rec: rec, l: Launch{Code: c, Grid: rec.Grid, Block: rec.Block, DynShared: int(sh),
		Params: params, Const: pl.Const, Dev: pl.Dev, Globals: pl.Globals, Textures: pl.Textures, NumSMs: pl.NumSMs,
		MaxWarpInsts: pl.MaxWarpInsts}})
	if k.grid >= 0 {
		d.kids[k.grid].pending++
	}
	return cudaSuccess, true
}

// dim3Arg reads a dim3 argument (12 bytes in the caller's frame).
func (w *warp) dim3Arg(fr *frame, s slot, l int) [3]uint32 {
	var out [3]uint32
	if s.reg >= 0 {
		return out
	}
	o := fr.fp + s.off
	loc := w.local[l]
	for i := range out {
		if o+4*i+4 <= len(loc) {
			out[i] = uint32(le(loc[o+4*i:], 4))
		}
	}
	return out
}

// setRet writes a built-in's return value.
func (w *warp) setRet(fr *frame, in *inst, l int, v uint64) {
	for _, r := range in.rets {
		if r.reg >= 0 {
			fr.regs[int(r.reg)+l] = v
		} else if n := min(r.size, 8); fr.fp+r.off+n <= len(w.local[l]) {
			putLE(w.local[l][fr.fp+r.off:], n, v)
		}
	}
}

// runChildren runs the child grids queued by the host-launched grid k and
// by its descendants, in launch order, each with run. A fault in a child
// grid names the grid (Fault.Grid).
func (k *Kernel) runChildren(run func(ck *Kernel) (*Result, error)) ([]ChildGrid, []byte, error) {
	d := k.dr
	if d == nil || len(d.kids) == 0 {
		return nil, nil, nil
	}
	var out []byte
	for i := 0; i < len(d.kids); i++ {
		cl := d.kids[i]
		ck, err := NewKernel(cl.l)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", d.describe(i), err)
		}
		ck.dr, ck.grid, ck.depth = d, i, cl.rec.Depth
		r, err := run(ck)
		if err != nil {
			var f *Fault
			if errors.As(err, &f) && f.Grid == "" {
				f.Grid = d.describe(i)
			}
			return nil, nil, err
		}
		cl.rec.CTAs, cl.rec.WarpInsts, cl.rec.ThreadInsts = r.CTAs, r.WarpInsts, r.ThreadInsts
		out = append(out, r.Printf...)
		d.finished(i)
	}
	recs := make([]ChildGrid, len(d.kids))
	for i, c := range d.kids {
		recs[i] = c.rec
	}
	return recs, out, nil
}

// describe names child grid i for a fault.
func (d *devRuntime) describe(i int) string {
	r := d.kids[i].rec
	by := "the host-launched grid"
	if r.Parent >= 0 {
		by = fmt.Sprintf("device-launched grid %d", r.Parent)
	}
	return fmt.Sprintf("device-launched grid %d (depth %d), launched by thread (%d,%d,%d) of block (%d,%d,%d) of %s at line %d",
		i, r.Depth, r.By.Thread[0], r.By.Thread[1], r.By.Thread[2], r.By.CTA[0], r.By.CTA[1], r.By.CTA[2], by, r.By.Line)
}

// runChildrenFunctional is Run's drain: the child grids run functionally.
func (k *Kernel) runChildrenFunctional(ctx context.Context, o RunOptions, res *Result) error {
	o.Progress = nil
	kids, out, err := k.runChildren(func(ck *Kernel) (*Result, error) { return ck.runGrid(ctx, o) })
	if err != nil {
		return err
	}
	res.Children = kids
	res.Printf = append(res.Printf, out...)
	return nil
}

// runChildrenModel is RunModel's drain: the child grids run on the model one
// after another, each after the launch latency spec.DeviceLaunchNs.
func (k *Kernel) runChildrenModel(ctx context.Context, spec model.Spec, o model.Options, mr *model.Result, res *Result) error {
	lat := model.Time(math.Round(float64(spec.DeviceLaunchNs) * spec.CoreMHz / 1000))
	t := mr.Cycles
	var timing []*model.Result
	kids, out, err := k.runChildren(func(ck *Kernel) (*Result, error) {
		cm, cr, err := ck.runModelGrid(ctx, spec, o)
		if err != nil {
			return nil, err
		}
		timing = append(timing, cm)
		return cr, nil
	})
	if err != nil {
		return err
	}
	for i := range kids {
		kids[i].Timing = timing[i]
		kids[i].Start = t + lat
		kids[i].End = kids[i].Start + timing[i].Cycles
		t = kids[i].End
	}
	res.Children = kids
	res.EndCycle = t
	res.Printf = append(res.Printf, out...)
	return nil
}
