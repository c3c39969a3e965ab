package vr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/token"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/trace"
)

// RunOptions say what Run renders and what it keeps.
type RunOptions struct {
	Code  *Code       // from Instrument
	Model *model.Spec // validated timing model
	Scene Scene
	View  View
	Shape Shape
	// KeepBundle keeps the run bundle's bytes, KeepTrace the decoded
	// trace, in the Result (instrumented runs only).
	KeepBundle, KeepTrace bool
	// Check compares the rendered image with the CPU reference
	// (Result.Checks).
	Check bool
	// Progress, if set, receives the simulation's progress
	// (model.Options.Progress); it does not change the result.
	Progress model.ProgressFunc
	// Inputs, if set, shares the generated inputs (the volume) with the
	// other runs that use it; nil: this run generates its own.
	Inputs *Inputs
}

// Result is one render on the model.
type Result struct {
	Mode   string // "" for the uninstrumented kernel
	View   View
	Shape  Shape
	Cycles float64 // kernel cycles (model counter kernel.cycles)
	FPS    float64 // frames per second at the model's clock (one launch per frame)
	Model  analysis.Model
	Checks []launch.CheckResult
	// Instrumented runs only:
	Bundle   []byte           // the run bundle's bytes (RunOptions.KeepBundle)
	Trace    *trace.Trace     // the decoded trace (RunOptions.KeepTrace)
	Analysis *analysis.Result // the analysis of the trace
	// Series is the memory time per counted access, in time order, of the
	// warp with the most memory time (seed Fig. 11; the first such warp
	// on a tie), SeriesWarp its segment index.
	Series     []float64
	SeriesWarp uint32
}

// Run renders o.Scene from o.View with block shape o.Shape using o.Code on
// the model o.Model: replay, bundle, decode, analyse. A kernel fault, a
// failed launch or a warp that overflowed the trace capacity is an error.
func Run(ctx context.Context, o RunOptions) (*Result, error) {
	if o.Code == nil || o.Model == nil {
		return nil, errors.New("vr: Run needs Code and Model")
	}
	if err := o.Scene.Validate(); err != nil {
		return nil, err
	}
	prep, reg, err := prepare(o)
	if err != nil {
		return nil, err
	}
	ms := o.Model
	res, err := prep.Run(ctx, launch.ExecOptions{Model: ms, ModelOpt: model.Options{Workers: 1, Progress: o.Progress}})
	if err != nil {
		var fault *replay.Fault
		if errors.As(err, &fault) {
			return nil, fmt.Errorf("%s", fault.Report())
		}
		return nil, err
	}
	if len(res.Launches) != 1 || res.Launches[0].Timing == nil {
		return nil, errors.New("vr: expected one timed launch")
	}
	lr := res.Launches[0]
	k := o.Code
	out := &Result{Mode: k.Mode, View: o.View, Shape: o.Shape, Model: analysis.ModelOf(lr.Counters())}
	out.Cycles = out.Model.Cycles
	out.FPS = analysis.FrameRate(out.Cycles, float64(ms.CoreMHz)*1e6)
	if o.Check {
		out.Checks = prep.Check(reg, "")
	}
	if k.Manifest == nil {
		return out, nil
	}
	meta := trace.RunMeta{Labels: map[string]string{"sample": Sample, "mode": k.Mode, "block": o.Shape.String(),
		"view": o.View.String(), "image": fmt.Sprint(o.Scene.Image), "volume": fmt.Sprint(o.Scene.Volume), "model": ms.Name}}
	in, err := lr.Bundle(k.Manifest, ms, meta)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := trace.WriteBundle(&buf, in); err != nil {
		return nil, err
	}
	if err := out.analyse(ctx, buf.Bytes(), o.KeepTrace); err != nil {
		return nil, err
	}
	if o.KeepBundle {
		out.Bundle = buf.Bytes()
	}
	return out, nil
}

// prepare parses the launch spec and the code and prepares the launch.
func prepare(o RunOptions) (*launch.Prepared, launch.Registry, error) {
	spec, err := launch.ParseSpec([]byte(LaunchSpec(o.Scene, o.View, o.Shape)))
	if err != nil {
		return nil, launch.Registry{}, err
	}
	if !o.Check {
		spec.Checks = nil
	}
	f, err := ptx.ParseFile(token.NewFileSet(), Sample+".ptx", o.Code.PTX, 0)
	if err != nil {
		return nil, launch.Registry{}, err
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		return nil, launch.Registry{}, err
	}
	reg := launch.SampleRegistry()
	if o.Inputs != nil {
		reg = o.Inputs.registry(reg)
	}
	prep, err := spec.Prepare(prog, launch.PrepareOptions{Manifest: o.Code.Manifest, Registry: reg, GPU: o.Model})
	if err != nil {
		return nil, launch.Registry{}, err
	}
	return prep, reg, nil
}

// analyse decodes the bundle, analyses it and extracts the Fig. 11 series.
func (out *Result) analyse(ctx context.Context, bundle []byte, keepTrace bool) error {
	b, err := trace.OpenBundle(bytes.NewReader(bundle), int64(len(bundle)))
	if err != nil {
		return err
	}
	tr, err := b.Trace()
	if err != nil {
		return err
	}
	if out.Analysis, err = analysis.AnalyzeContext(ctx, tr.Source(), analysis.Options{Top: -1}); err != nil {
		return err
	}
	if n := out.Analysis.Issues["overflow"]; n > 0 {
		return fmt.Errorf("volrender %s %s: %d warps overflowed the trace capacity", out.Mode, out.Shape, n)
	}
	best, bestMem := -1, uint64(0)
	for i, w := range out.Analysis.Warps {
		if w.Memory > bestMem {
			best, bestMem = i, w.Memory
		}
	}
	if best >= 0 {
		seg := out.Analysis.Warps[best].Warp
		acc, err := analysis.WarpAccesses(tr.Source(), seg)
		if err != nil {
			return err
		}
		out.SeriesWarp = seg
		for _, c := range acc {
			out.Series = append(out.Series, float64(c))
		}
	}
	if keepTrace {
		out.Trace = tr
	}
	return nil
}
