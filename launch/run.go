package launch

import (
	"context"
	"fmt"
	"sort"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/trace"
)

// ExecOptions control Prepared.Run.
type ExecOptions struct {
	Workers  int                   // functional mode: goroutines executing CTAs
	Progress func(done, total int) // functional mode, single launch: CTAs finished
	Model    *model.Spec           // timing mode when set
	// Transfer (timing mode) times the spec's transfers; nil, or
	// functional mode: they are not timed and LaunchResult.Transfers
	// stays empty (the caller decides whether that is an error).
	Transfer *model.TransferSpec
	ModelOpt model.Options // options of model.Run
	// Serial (timing mode) runs every launch as a kernel whose
	// ConcurrentIssue is false would run: SMs one after another, global
	// writes straight to the device. Race-free kernels give the same bytes
	// and timing either way; it exists for comparison and debugging.
	Serial   bool
	OnLaunch func(i int, lr *LaunchResult) // called after each launch (steps)
	// OnKernel is called with each kernel before it runs (a watchdog
	// keeps it to call its Interrupt).
	OnKernel func(k *replay.Kernel)
}

// LaunchResult is one kernel launch of a prepared spec.
type LaunchResult struct {
	Index       int
	Kernel      string
	Grid, Block [3]int
	Func        *replay.Result // CTAs, instruction counts, printf
	Timing      *model.Result  // timing mode only
	Trace       *replay.Alloc  // the trace buffer of an instrumented kernel, or nil
	WarpsPerCTA int
	// Transfers around this launch (timing mode with transfers), times
	// relative to the kernel's start.
	Transfers []trace.Transfer
	// Device is set for a grid launched from device code (dynamic
	// parallelism): its record, and LaunchedBy the Index of the launch
	// whose grid launched it. Such launches follow their host launch in
	// Launches; the host launch's Timing is its own grid's, and its
	// contribution to SeqResult.Cycles runs to the end of its last child
	// (replay.Result.EndCycle).
	Device     *replay.ChildGrid
	LaunchedBy int
}

// SeqResult summarises Prepared.Run.
type SeqResult struct {
	Launches    []*LaunchResult
	CTAs        int
	WarpInsts   uint64
	ThreadInsts uint64
	Cycles      model.Time // timing mode: sum of the launches' cycles
	// TransferPs is the time of every launch's transfers; KernelPs the
	// launches' time at the core clock (timing mode).
	TransferPs, KernelPs int64
	Printf               []byte
	Sequential           bool // some launch ran its CTAs one after another (global atomics)
}

// Run executes the prepared spec: its single launch, or every step of the
// multi-launch form in order, on one device. With o.Model set every launch
// runs on the timing model.
func (p *Prepared) Run(ctx context.Context, o ExecOptions) (*SeqResult, error) {
	sr := &SeqResult{}
	if err := p.checkTransfers(); err != nil {
		return nil, err
	}
	if len(p.Spec.Steps) == 0 {
		lr, err := p.runKernel(ctx, p.Kernel, p.Trace, dim3Must(p.Spec.Grid), dim3Must(p.Spec.Block), o)
		if err != nil {
			return nil, err
		}
		p.addLaunch(sr, lr, o)
		return sr, nil
	}
	if err := p.runSteps(ctx, p.Spec.Steps, o, sr); err != nil {
		return nil, err
	}
	return sr, nil
}

func (p *Prepared) addLaunch(sr *SeqResult, lr *LaunchResult, o ExecOptions) {
	lr.Index = len(sr.Launches)
	sr.Launches = append(sr.Launches, lr)
	sr.CTAs += lr.Func.CTAs
	sr.WarpInsts += lr.Func.WarpInsts
	sr.ThreadInsts += lr.Func.ThreadInsts
	sr.Printf = append(sr.Printf, lr.Func.Printf...)
	sr.Sequential = sr.Sequential || lr.Func.Sequential
	if lr.Timing != nil {
		cyc := lr.Timing.Cycles
		if lr.Func.EndCycle > cyc {
			cyc = lr.Func.EndCycle // device-launched children included
		}
		sr.Cycles += cyc
		sr.KernelPs += KernelPs(cyc, o.Model.CoreMHz)
		sr.TransferPs += TransferPs(lr.Transfers)
	}
	if o.OnLaunch != nil {
		o.OnLaunch(lr.Index, lr)
	}
	addChildren(sr, lr)
}

// addChildren appends the grids lr launched from device code as launches
// of their own (their time is already in lr's share of sr.Cycles).
func addChildren(sr *SeqResult, lr *LaunchResult) {
	base := len(sr.Launches)
	for i := range lr.Func.Children {
		c := &lr.Func.Children[i]
		by := lr.Index
		if c.Parent >= 0 {
			by = base + c.Parent
		}
		cl := &LaunchResult{Index: base + i, Kernel: c.Kernel, Grid: c.Grid, Block: c.Block, Timing: c.Timing, Device: c, LaunchedBy: by}
		cl.WarpsPerCTA = (c.Block[0]*c.Block[1]*c.Block[2] + 31) / 32
		cl.Func = &replay.Result{CTAs: c.CTAs, WarpInsts: c.WarpInsts, ThreadInsts: c.ThreadInsts}
		sr.Launches = append(sr.Launches, cl)
		sr.CTAs += c.CTAs
		sr.WarpInsts += c.WarpInsts
		sr.ThreadInsts += c.ThreadInsts
	}
}

func (p *Prepared) runKernel(ctx context.Context, k *replay.Kernel, tr *replay.Alloc, grid, block [3]int, o ExecOptions) (*LaunchResult, error) {
	lr := &LaunchResult{Kernel: k.Code().Name, Grid: grid, Block: block, Trace: tr, WarpsPerCTA: k.WarpsPerCTA()}
	if o.OnKernel != nil {
		o.OnKernel(k)
	}
	if o.Model != nil {
		if o.Serial {
			k.SetSerial()
		}
		mr, fr, err := k.RunModel(ctx, *o.Model, o.ModelOpt)
		if err != nil {
			return nil, err
		}
		lr.Timing, lr.Func = mr, fr
		if o.Transfer != nil && len(p.Spec.Transfers) > 0 {
			if lr.Transfers, err = p.launchTransfers(o.Transfer, KernelPs(mr.Cycles, o.Model.CoreMHz)); err != nil {
				return nil, err
			}
		}
		return lr, nil
	}
	progress := o.Progress
	if len(p.Spec.Steps) > 0 {
		progress = nil
	}
	fr, err := k.Run(ctx, replay.RunOptions{Workers: o.Workers, Progress: progress})
	if err != nil {
		return nil, err
	}
	lr.Func = fr
	return lr, nil
}

// Limits of the multi-launch form: a spec makes at most MaxLaunches
// launches (their results, trace buffers included, are kept until the run
// directory is written), and a repeat step runs at most MaxRepeat times
// (an until step at most its max, DefaultUntilMax).
const (
	MaxLaunches = 100_000
	MaxRepeat   = 10_000_000
)

func (p *Prepared) runSteps(ctx context.Context, steps []StepSpec, o ExecOptions, sr *SeqResult) error {
	for i := range steps {
		st := &steps[i]
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case st.Launch != nil:
			ls := st.Launch
			grid, err := p.dims(ls.Grid, "grid")
			if err != nil {
				return fmt.Errorf("launch %s: %v", ls.Kernel, err)
			}
			block, err := p.dims(ls.Block, "block")
			if err != nil {
				return fmt.Errorf("launch %s: %v", ls.Kernel, err)
			}
			dyn := 0
			if ls.DynamicShared != "" {
				v, err := p.eval(string(ls.DynamicShared))
				if err != nil {
					return fmt.Errorf("launch %s: dynamic_shared: %v", ls.Kernel, err)
				}
				dyn = int(v.int())
			}
			if len(sr.Launches) >= MaxLaunches {
				return fmt.Errorf("launch %s: the spec makes more than %d launches (each one's result is kept for the run directory)", ls.Kernel, MaxLaunches)
			}
			k, tr, err := p.newKernel(ls, grid, block, dyn)
			if err != nil {
				return fmt.Errorf("launch %d (%s): %w", len(sr.Launches), ls.Kernel, err)
			}
			lr, err := p.runKernel(ctx, k, tr, grid, block, o)
			if err != nil {
				return err
			}
			p.addLaunch(sr, lr, o)
		case st.Repeat != "":
			n, err := p.eval(string(st.Repeat))
			if err != nil {
				return fmt.Errorf("repeat: %v", err)
			}
			if n.int() > MaxRepeat {
				return fmt.Errorf("repeat %q: %d iterations exceed the limit of %d", st.Repeat, n.int(), MaxRepeat)
			}
			for it := int64(0); it < n.int(); it++ {
				if st.Var != "" {
					p.vars[st.Var] = intVal(it)
				}
				if err := p.runSteps(ctx, st.Do, o, sr); err != nil {
					return err
				}
			}
		case st.Until != "":
			limit := st.Max
			if limit <= 0 {
				limit = DefaultUntilMax
			}
			for it := 0; ; it++ {
				if it >= limit {
					return fmt.Errorf("until %q: still false after %d iterations", st.Until, limit)
				}
				if st.Var != "" {
					p.vars[st.Var] = intVal(int64(it))
				}
				if err := p.runSteps(ctx, st.Do, o, sr); err != nil {
					return err
				}
				v, err := p.eval(string(st.Until))
				if err != nil {
					return fmt.Errorf("until: %v", err)
				}
				if v.truth() {
					break
				}
			}
		case st.Fill != nil:
			b := p.byName[st.Fill.Buffer]
			if b == nil {
				return fmt.Errorf("fill: no buffer %q", st.Fill.Buffer)
			}
			v, err := p.eval(string(st.Fill.Value))
			if err != nil {
				return fmt.Errorf("fill: %v", err)
			}
			es, _ := elemSize(b.Type)
			n := len(b.Alloc.Data) / es
			if st.Fill.Count != "" {
				c, err := p.eval(string(st.Fill.Count))
				if err != nil {
					return fmt.Errorf("fill: %v", err)
				}
				n = min(n, int(c.int()))
			}
			for j := 0; j < n; j++ {
				encodeElem(b.Alloc.Data[j*es:], b.Type, v.float())
			}
		case st.Swap != nil:
			a, b := p.byName[st.Swap[0]], p.byName[st.Swap[1]]
			if a == nil || b == nil {
				return fmt.Errorf("swap: no buffer %q or %q", st.Swap[0], st.Swap[1])
			}
			if a.Type != b.Type || len(a.Alloc.Data) != len(b.Alloc.Data) {
				return fmt.Errorf("swap: %s and %s differ in type or size", a.Name, b.Name)
			}
			a.Alloc, b.Alloc = b.Alloc, a.Alloc
		case st.Set != nil:
			keys := make([]string, 0, len(st.Set))
			for k := range st.Set {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				v, err := p.eval(string(st.Set[k]))
				if err != nil {
					return fmt.Errorf("set %s: %v", k, err)
				}
				p.vars[k] = v
			}
		}
	}
	return nil
}

// Traced returns the launches of an instrumented kernel (with a trace
// buffer), in launch order.
func (sr *SeqResult) Traced() []*LaunchResult {
	var out []*LaunchResult
	for _, lr := range sr.Launches {
		if lr.Trace != nil {
			out = append(out, lr)
		}
	}
	return out
}
