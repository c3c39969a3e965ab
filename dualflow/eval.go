package dualflow

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"sort"
	"sync/atomic"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/samples"
)

// Table1 is seed 002's GPU (its Table 1): the rtx3080 preset, which has
// the same 68 SMs at 1440 MHz, 4 GTO schedulers, 2048 threads and 65,536
// registers per SM, 128 KB shared memory, 64 KB 8-way L1 with 128 B lines,
// 4 MB L2 in 64 16-way slices and DRAM at 1523 MHz with 100 cycles added
// latency. Collector units (8) are the D-FLOW window (Config.Window).
func Table1() model.Spec { return model.RTX3080() }

// SamplePTX is the PTX an evaluation of the bundled sample name runs: its
// sm_52 module.
func SamplePTX(name string) ([]byte, error) {
	s, ok := samples.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no bundled sample %q", name)
	}
	p, ok := s.PTXFor("sm_52")
	if !ok {
		return nil, fmt.Errorf("sample %q has no sm_52 PTX", name)
	}
	return fs.ReadFile(samples.FS(), p)
}

// Config is one evaluation setting.
type Config struct {
	Spec     model.Spec
	Window   int            // D-FLOW issue window (seed: 8 collector units)
	MemOrder model.MemOrder // D-FLOW memory ordering
	D        int            // maximum distance (0 = unlimited)
	Workers  int            // model workers (0: GOMAXPROCS)
	// BaseOnly skips the BASE-OoO and virtual-OoO runs (Result leaves
	// them nil).
	BaseOnly bool
	// RegLimit is BASE's register budget N per kernel (e.g. ptxas -v's
	// count; spilling where the PTX order needs more); nil or 0: the
	// minimum the PTX order allows, without spilling.
	RegLimit func(kernel string) int
	// Profile places the conversion's movs and nops by the thread-executions
	// of the original program's virtual run (ConvertProfiled) instead of
	// by loop depth.
	Profile bool
}

// Run is one timing run of a sample.
type Run struct {
	Cycles      uint64
	WarpInsts   uint64
	ThreadInsts uint64
	Stalls      model.Stalls
	Outputs     map[string][]byte
}

// RunSample runs the bundled sample name's launch spec on PTX src,
// functionally (ms nil) or on the model with opt.
func RunSample(ctx context.Context, name string, src []byte, ms *model.Spec, opt model.Options) (*Run, error) {
	f, err := Parse(name+".ptx", src)
	if err != nil {
		return nil, err
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		return nil, err
	}
	yb, ok := launch.SampleSpec(name)
	if !ok {
		return nil, fmt.Errorf("sample %q has no launch spec", name)
	}
	spec, err := launch.ParseSpec(yb)
	if err != nil {
		return nil, err
	}
	o := launch.PrepareOptions{Registry: launch.SampleRegistry()}
	if ms != nil {
		o.NumSMs = ms.NumSMs
	}
	prep, err := spec.Prepare(prog, o)
	if err != nil {
		return nil, err
	}
	res, err := prep.Run(ctx, launch.ExecOptions{Model: ms, ModelOpt: opt, Workers: opt.Workers})
	if err != nil {
		return nil, err
	}
	r := &Run{Cycles: uint64(res.Cycles), WarpInsts: res.WarpInsts, ThreadInsts: res.ThreadInsts, Outputs: map[string][]byte{}}
	for _, l := range res.Launches {
		if l.Timing != nil {
			r.Stalls.Pipeline += l.Timing.Stalls.Pipeline
			r.Stalls.Interconnect += l.Timing.Stalls.Interconnect
			r.Stalls.Scoreboard += l.Timing.Stalls.Scoreboard
			r.Stalls.FalseDep += l.Timing.Stalls.FalseDep
			r.Stalls.Memory += l.Timing.Stalls.Memory
			r.Stalls.Fence += l.Timing.Stalls.Fence
			r.Stalls.Barrier += l.Timing.Stalls.Barrier
			r.Stalls.NoWarp += l.Timing.Stalls.NoWarp
		}
	}
	for _, b := range prep.Buffers {
		if b.Output {
			r.Outputs[b.Name] = append([]byte(nil), b.Alloc.Data...)
		}
	}
	return r, nil
}

// Result is the evaluation of one sample.
type Result struct {
	Sample string
	// Virtual: the PTX as compiled (unlimited registers), in order.
	// Base: seed BASE, registers allocated (false dependencies), in order.
	// BaseOoO: the allocated program issued out of order in the window
	// (WAR/WAW between entries block reordering: Stalls.FalseDep).
	// VirtualOoO: the PTX as compiled, out of order (no added instructions,
	// no false dependencies: the bound D-FLOW approaches).
	// DFlow: the Dualflow program, out of order in the window.
	Virtual, Base, BaseOoO, VirtualOoO, DFlow *Run
	Regs                                      map[string][2]int // kernel -> {allocated words, max live words}
	// BASE's spill code (Config.RegLimit): static spill stores and
	// reloads over the sample's kernels, and the thread-instructions of
	// each the BASE run executed.
	SpillStatic [2]int
	SpillDyn    [2]uint64
	// Dynamic thread-instructions of the D-FLOW run by kind (KInst are
	// the original instructions).
	Dyn [numKinds]uint64
	// Static instructions added per kind over the sample's kernels.
	Static [numKinds]int
	Counts *Counts
}

// Speedup is BASE cycles over D-FLOW cycles.
func (r *Result) Speedup() float64 { return float64(r.Base.Cycles) / float64(r.DFlow.Cycles) }

// InstIncrease is the D-FLOW run's dynamic thread-instructions over the
// original's, minus one.
func (r *Result) InstIncrease() float64 {
	var n uint64
	for _, v := range r.Dyn {
		n += v
	}
	return float64(n)/float64(r.Dyn[KInst]) - 1
}

// Evaluate runs sample name (PTX src) as Virtual, BASE and D-FLOW on
// cfg and checks that all three give the functional run's output bytes.
func Evaluate(ctx context.Context, name string, src []byte, cfg Config) (*Result, error) {
	ms := cfg.Spec
	res := &Result{Sample: name, Regs: map[string][2]int{}}
	ref, err := RunSample(ctx, name, src, nil, model.Options{})
	if err != nil {
		return nil, err
	}
	check := func(what string, r *Run) error {
		for k, v := range ref.Outputs {
			if !bytes.Equal(v, r.Outputs[k]) {
				return fmt.Errorf("%s: %s: output %s differs from the functional run", name, what, k)
			}
		}
		return nil
	}
	opt := model.Options{Workers: cfg.Workers}
	vopt := opt
	pc := &pcCounter{counts: map[string][]atomic.Uint64{}}
	if cfg.Profile {
		vopt.Wrap = pc.wrap
	}
	if res.Virtual, err = RunSample(ctx, name, src, &ms, vopt); err != nil {
		return nil, err
	}
	if err := check("virtual", res.Virtual); err != nil {
		return nil, err
	}
	file, err := Parse(name+".ptx", src)
	if err != nil {
		return nil, err
	}
	alloc, allocs, err := AllocateFile(file, cfg.RegLimit)
	if err != nil {
		return nil, err
	}
	sc := &spillCounter{kinds: map[string][]int8{}}
	for _, a := range allocs {
		res.Regs[a.Func.Fn.Name] = [2]int{a.Words, a.MaxLive}
		res.SpillStatic[0] += a.Stores
		res.SpillStatic[1] += a.Reloads
		if len(a.Spilled) > 0 {
			sc.kinds[a.Func.Fn.Name] = a.spillKinds()
		}
	}
	bopt := opt
	if len(sc.kinds) > 0 {
		bopt.Wrap = sc.wrap
	}
	if res.Base, err = RunSample(ctx, name, []byte(alloc), &ms, bopt); err != nil {
		return nil, err
	}
	res.SpillDyn = [2]uint64{sc.n[0].Load(), sc.n[1].Load()}
	if err := check("BASE", res.Base); err != nil {
		return nil, err
	}
	window := max(cfg.Window, 1)
	if window > maxWindow {
		return nil, fmt.Errorf("window %d > %d", window, maxWindow)
	}
	ooo := func(what, text string) (*Run, error) {
		file, err := Parse(name+".ptx", []byte(text))
		if err != nil {
			return nil, err
		}
		funcs := map[string]*Func{}
		for _, fn := range file.Functions() {
			if fn.Body == nil {
				continue
			}
			f, err := Analyze(file, fn)
			if err != nil {
				return nil, err
			}
			funcs[fn.Name] = f
		}
		o := opt
		o.Window, o.MemOrder = window, cfg.MemOrder
		var werr error
		o.Wrap = plainWrapper(funcs, &werr)
		r, err := RunSample(ctx, name, []byte(text), &ms, o)
		if werr != nil {
			return nil, werr
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, what, err)
		}
		return r, check(what, r)
	}
	if !cfg.BaseOnly {
		if res.BaseOoO, err = ooo("BASE-OoO", alloc); err != nil {
			return nil, err
		}
		if res.VirtualOoO, err = ooo("virtual-OoO", string(src)); err != nil {
			return nil, err
		}
	}
	file, err = Parse(name+".ptx", src)
	if err != nil {
		return nil, err
	}
	var prof func(kernel string) []uint64
	if cfg.Profile {
		prof = pc.profile
	}
	light, progs, encs, err := ConvertFileProfiled(file, cfg.D, Light, prof)
	if err != nil {
		return nil, err
	}
	for _, p := range progs {
		for k, v := range p.Static {
			res.Static[k] += v
		}
	}
	counts := &Counts{}
	var werr error
	dopt := opt
	dopt.Window = window
	dopt.MemOrder = cfg.MemOrder
	dopt.Wrap = wrapper(progs, encs, counts, &werr)
	res.DFlow, err = RunSample(ctx, name, []byte(light), &ms, dopt)
	if werr != nil {
		return nil, werr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: D-FLOW: %w", name, err)
	}
	if err := check("D-FLOW", res.DFlow); err != nil {
		return nil, err
	}
	counts.finish()
	res.Dyn = counts.Threads
	res.Counts = counts
	return res, nil
}

// DistanceCDF returns, for one kernel of a D-FLOW run, the dynamic
// (warp-level) number of source operands at each distance: index d holds
// the operands read at distance d.
func (c *Counts) DistanceCDF(kernel string) []uint64 {
	per, flat := c.PerInst[kernel], c.Flat[kernel]
	var hist []uint64
	for i, n := range per {
		if n == 0 {
			continue
		}
		for _, s := range flat[i].Srcs {
			for len(hist) <= s.Dist {
				hist = append(hist, 0)
			}
			hist[s.Dist] += n
		}
	}
	return hist
}

// Kernels returns the kernel names of the counts, sorted.
func (c *Counts) Kernels() []string {
	var ks []string
	for k := range c.PerInst {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
