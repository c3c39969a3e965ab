package replay

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ptxtrace/ptxtrace/internal/par"
	"github.com/ptxtrace/ptxtrace/model"
)

// RunOptions control functional execution.
type RunOptions struct {
	// Workers is the number of goroutines executing CTAs (0: GOMAXPROCS).
	// The results do not depend on it.
	Workers int
	// Progress, when set, is called with the number of CTAs finished so
	// far (from one goroutine at a time).
	Progress func(done, total int)
}

// WaveSize is the number of CTAs that run concurrently against one
// snapshot of global memory (see doc.go, "Parallel execution"). It is a
// constant so that results never depend on the machine.
const WaveSize = 512

// Result summarises a functional run.
type Result struct {
	CTAs        int
	WarpInsts   uint64
	ThreadInsts uint64
	Sequential  bool // CTAs ran one after another (global atomics)
	Printf      []byte
	// Children are the grids launched from device code (dynamic
	// parallelism), in launch order; the counts above are the
	// host-launched grid's own. Printf holds the children's output after
	// the host grid's, in launch order.
	Children []ChildGrid
	// EndCycle (timing mode, with children): the cycle at which the last
	// child grid completed, counted from the host launch; the host grid is
	// complete only then. 0 without children.
	EndCycle model.Time
}

// Run executes the launch functionally: every CTA with the round-robin
// warp scheduler. It returns the first fault in CTA order. Grids the
// launch starts from device code run after it (cdp.go).
func (k *Kernel) Run(ctx context.Context, o RunOptions) (*Result, error) {
	k.dr = nil
	res, err := k.runGrid(ctx, o)
	if err != nil || k.dr == nil {
		return res, err
	}
	if err := k.runChildrenFunctional(ctx, o, res); err != nil {
		return nil, err
	}
	return res, nil
}

// runGrid runs the grid itself.
func (k *Kernel) runGrid(ctx context.Context, o RunOptions) (*Result, error) {
	res := &Result{CTAs: k.nctas, Sequential: k.code.GlobalAtomics || k.code.UsesDevRT}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if res.Sequential {
		workers = 1
	}
	done := 0
	for start := 0; start < k.nctas; start += WaveSize {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+WaveSize, k.nctas)
		n := end - start
		ctas := make([]*CTA, n)
		var mu sync.Mutex
		par.Do(ctx, n, workers, func(i int) {
			var ov *overlay
			if !res.Sequential {
				ov = newOverlay()
			}
			c, err := k.newCTA(start+i, 0, ov, true)
			if err != nil {
				c = &CTA{fault: &Fault{Kind: FaultInvalid, Msg: err.Error(), Kernel: k.code.Name}}
			} else {
				c.runFunctional()
				c.release()
			}
			ctas[i] = c
			if o.Progress != nil {
				mu.Lock()
				done++
				o.Progress(done, k.nctas)
				mu.Unlock()
			}
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, c := range ctas {
			if c.fault != nil {
				return nil, c.fault
			}
		}
		for _, c := range ctas {
			if c.ov != nil {
				c.ov.merge(k.l.Dev)
			}
			k.printf.add(c.out)
			res.WarpInsts += c.winsts
			res.ThreadInsts += c.tinsts
		}
	}
	res.Printf = k.printf.bytes()
	return res, nil
}

// quantum is the number of instructions a warp runs before the functional
// scheduler moves to the next warp (unless it blocks or exits first).
const quantum = 64

// runFunctional runs the CTA's warps round-robin until all exit, a fault
// occurs, or the warps deadlock at barriers.
func (c *CTA) runFunctional() {
	for {
		live := 0
		progressed := false
		for _, w := range c.warps {
			if w.done {
				continue
			}
			live++
			if w.waitBar >= 0 {
				continue
			}
			progressed = true
			for n := 0; n < quantum; n++ {
				w.clk = model.Clocks{Cycle: model.Time(w.icount), GlobalTimer: w.icount, SMID: c.sm}
				w.step()
				if w.fault != nil {
					return
				}
				if w.done {
					c.recheckBarriers()
					break
				}
				if w.waitBar >= 0 {
					break
				}
			}
		}
		if live == 0 {
			return
		}
		if !progressed {
			c.deadlock()
			return
		}
	}
}

// deadlock records a fault describing the warps stuck at barriers.
func (c *CTA) deadlock() {
	var parts []string
	var first *warp
	byBar := map[int][]int{}
	for _, w := range c.warps {
		if !w.done && w.waitBar >= 0 {
			byBar[w.waitBar] = append(byBar[w.waitBar], w.id)
			if first == nil {
				first = w
			}
		}
	}
	ids := make([]int, 0, len(byBar))
	for id := range byBar {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		b := c.bar(id)
		need := b.expected
		if need == 0 {
			need = c.liveWarps()
		}
		parts = append(parts, fmt.Sprintf("barrier %d: warps %v waiting, %d of %d arrived", id, byBar[id], b.arrived, need))
	}
	var in *inst
	if first != nil {
		fr := &first.frames[len(first.frames)-1]
		pc := fr.stack[len(fr.stack)-1].pc - 1
		if pc >= 0 && int(pc) < len(fr.f.code) {
			in = &fr.f.code[pc]
		}
		first.faultf(in, -1, FaultDeadlock, "barrier deadlock: %s", strings.Join(parts, "; "))
	}
}

// release drops the warps of a finished CTA; their storage goes back to
// the kernel for a later CTA.
func (c *CTA) release() {
	if c.slab != nil {
		k := c.k
		k.slabMu.Lock()
		for len(k.slabs) <= c.sm {
			k.slabs = append(k.slabs, nil)
		}
		k.slabs[c.sm] = append(k.slabs[c.sm], c.slab)
		k.slabMu.Unlock()
		c.slab = nil
	}
	c.warps, c.mwarps, c.shared = nil, nil, nil
}

// Release implements model.Releaser: the model has finished the CTA and
// calls nothing of it again. Its printf output and fault stay.
func (c *CTA) Release() {
	c.released = true
	c.release()
}

// RunModel executes the launch on the timing model with the given spec: the
// model dispatches CTAs and issues warp-instructions, replay executes them.
// It returns the model's result and the functional summary (printf output in
// CTA order).
//
// The kernel implements model.ConcurrentKernel (see doc.go, "Parallel
// timing mode"). When ConcurrentIssue is true, every CTA writes global
// memory into its own overlay and reads its own writes over device memory;
// the overlays of finished CTAs are merged into the device in CTA order at
// the start of each NewCTA call (the model makes those only in its serial
// phases) and after model.Run returns, so no goroutine writes device memory
// while SMs run in parallel, and what is merged when depends only on the
// (deterministic) timing. Everything else Issue touches is per CTA or per
// warp (printf output, faults, instruction counts and budget, the cached
// allocation) or read-only. ConcurrentIssue is true only when no
// instruction of the entry and its callees is a global or generic atomic
// or reduction, a .volatile, .mmio, .acquire, .release, .acq_rel, .sc or
// .relaxed (scope other than .cta/.cluster) global or generic access, or a
// membar/fence of scope .gl, .gpu or .sys, except that atomics and
// volatile accesses whose address register has the instrumentation's
// reserved prefix %__pt_ are CTA-private (they address the warp's own
// trace segment or shared slot; an atomic on the overlay reads and writes
// through it). Other kernels (reduce's cross-CTA atomicAdd, spin flags)
// run with their SMs one after another and write the device directly, as
// before. For race-free programs both give the same bytes.
//
// Grids the launch starts from device code run on the model after it, one
// after another, each after the device launch latency (cdp.go); the
// returned model.Result is the host grid's own, Result.Children and
// Result.EndCycle hold the rest.
func (k *Kernel) RunModel(ctx context.Context, spec model.Spec, o model.Options) (*model.Result, *Result, error) {
	k.dr = nil
	mr, res, err := k.runModelGrid(ctx, spec, o)
	if err != nil || k.dr == nil {
		return mr, res, err
	}
	if err := k.runChildrenModel(ctx, spec, o, mr, res); err != nil {
		return nil, nil, err
	}
	return mr, res, nil
}

// runModelGrid runs the grid itself on the model.
func (k *Kernel) runModelGrid(ctx context.Context, spec model.Spec, o model.Options) (*model.Result, *Result, error) {
	k.keep = k.code.UsesPrintf
	k.kept = nil
	k.ovMode = k.conc
	k.pending = nil
	defer func() { k.keep, k.kept, k.ovMode, k.pending, k.ovFree = false, nil, false, nil, nil }()
	mr, err := model.Run(ctx, spec, k, o)
	if err != nil {
		return nil, nil, err
	}
	k.mergeFinished(true)
	res := &Result{CTAs: mr.CTAs, WarpInsts: mr.WarpInsts, ThreadInsts: mr.ThreadInsts}
	if k.keep {
		sort.Slice(k.kept, func(i, j int) bool { return k.kept[i].linear < k.kept[j].linear })
		for _, c := range k.kept {
			k.printf.add(c.out)
		}
	}
	res.Printf = k.printf.bytes()
	return mr, res, nil
}
