package main

// The volume-rendering pipeline shared by `ptxtrace demo` and `ptxtrace
// sweep vr`: instrument the embedded volrender sample (tex loads only, plus
// one user region around the whole kernel body so that a warp's active time
// is measured), replay it on a model preset, and decode the bundle.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"math"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/samples"
	"github.com/ptxtrace/ptxtrace/trace"
)

const (
	vrSample = "volrender"
	vrArch   = "sm_52"
	vrKernel = "d_render"
)

// vrShape is a thread-block shape a×b (x × y threads).
type vrShape struct{ X, Y int }

func (s vrShape) String() string { return fmt.Sprintf("%d×%d", s.X, s.Y) }

// seedShapes are seed 003's block shapes (128 threads each).
var seedShapes = []vrShape{{1, 128}, {2, 64}, {4, 32}, {8, 16}, {16, 8}, {32, 4}, {64, 2}, {128, 1}}

// vrView is a viewpoint (α, β, γ): rotations of the volume about x, y, z in
// degrees (seed 003 §6.1).
type vrView struct{ A, B, G float64 }

func (v vrView) String() string { return fmt.Sprintf("(%g,%g,%g)", v.A, v.B, v.G) }

// vrScene is what a run renders.
type vrScene struct {
	Image  int    // image width = height in pixels
	Volume int    // volume n (n³ voxels)
	Kind   string // volume kind (samples/ref VolumeKinds)
}

// vrKernelCode is the volrender PTX, instrumented in one mode or not at all.
type vrKernelCode struct {
	Mode     string // "" = not instrumented, else naive/fence/dummy/auto
	PTX      []byte
	Manifest *manifest.Manifest
}

// vrInstrument returns the volrender PTX instrumented in mode ("" = the
// original): probes on tex loads only (the seed's texture references) and
// a user region over the whole kernel body.
func vrInstrument(mode string, capacity int) (*vrKernelCode, error) {
	sm, ok := samples.Lookup(vrSample)
	if !ok {
		return nil, errors.New("embedded volrender sample missing")
	}
	p, ok := sm.PTXFor(vrArch)
	if !ok {
		return nil, fmt.Errorf("embedded volrender sample has no %s PTX", vrArch)
	}
	src, err := fs.ReadFile(samples.FS(), p)
	if err != nil {
		return nil, err
	}
	if mode == "" {
		return &vrKernelCode{PTX: src}, nil
	}
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, p, src, 0)
	if err != nil {
		return nil, err
	}
	first, last := bodyLines(fset, f, vrKernel)
	if first == 0 {
		return nil, fmt.Errorf("%s: kernel %s has no body", p, vrKernel)
	}
	res, err := instrument.Instrument(fset, f, instrument.Options{
		Mode: mode, Timer: "clock64", Spaces: []string{"tex"}, Kernel: vrKernel, Capacity: capacity,
		Regions: []instrument.Region{{Begin: first, End: last}}, Block: 128,
		Tool: "ptxtrace " + version, Output: vrSample + "." + mode + ".ptx",
	})
	if err != nil {
		return nil, err
	}
	return &vrKernelCode{Mode: mode, PTX: res.PTX, Manifest: res.Manifest}, nil
}

// bodyLines returns the first and last instruction lines of kernel's body.
func bodyLines(fset *token.FileSet, f *ptx.File, kernel string) (first, last int) {
	var walk func(b *ptx.Block)
	walk = func(b *ptx.Block) {
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ptx.Instruction:
				l := fset.Position(s.Pos()).Line
				if first == 0 || l < first {
					first = l
				}
				last = max(last, l)
			case *ptx.Block:
				walk(s)
			}
		}
	}
	for _, fn := range f.Functions() {
		if fn.Kind == ptx.Entry && fn.Name == kernel && fn.Body != nil {
			walk(fn.Body)
		}
	}
	return first, last
}

// vrCapacity is the records per warp a render needs: a ray crosses the
// box [-1,1]³ in at most 2√3/0.01 < 347 steps of two tex fetches (two
// records each), plus the user region's two records; rounded up.
func vrCapacity() int { return 2*2*347 + 2 + 14 }

// vrSpec is the launch spec of one render (docs/launch.md).
func vrSpec(sc vrScene, v vrView, s vrShape) string {
	w := sc.Image
	return fmt.Sprintf(`inputs:
  - {name: vol, generator: volume, args: {kind: %s, n: %d, seed: 1}}
  - {name: tf, generator: transfer}
  - {name: view, generator: view, args: {alpha: %g, beta: %g, gamma: %g}}
kernel: d_render
grid: [%d, %d]
block: [%d, %d]
params:
  - {name: d_output, buffer: {type: u32, count: %d, output: true}}
  - {name: imageW, value: %d}
  - {name: imageH, value: %d}
  - {name: density, value: 0.05}
  - {name: brightness, value: 1}
  - {name: transferOffset, value: 0}
  - {name: transferScale, value: 1}
  - {texture: volume}
  - {texture: transfer}
textures:
  - {name: volume, dims: 3, width: %[2]d, height: %[2]d, depth: %[2]d, format: u8, read_mode: normalized, normalized_coords: true, filter: linear, address: [clamp, clamp, clamp], init: {from: vol.volume}}
  - {name: transfer, dims: 1, width: 8, format: f32x4, normalized_coords: true, filter: linear, address: [clamp], init: {from: tf.transfer}}
constants:
  - {name: c_invViewMatrix, type: f32, from: view.c_invViewMatrix}
checks:
  - {buffer: d_output, reference: volrender}
`, sc.Kind, sc.Volume, v.A, v.B, v.G, (w+s.X-1)/s.X, (w+s.Y-1)/s.Y, s.X, s.Y, w*w, w, w)
}

// vrResult is one render on the model.
type vrResult struct {
	Mode   string // "" for the uninstrumented kernel
	View   vrView
	Shape  vrShape
	Cycles float64
	FPS    float64 // frames per second at the preset's clock (one launch per frame)
	Model  analysis.Model
	Checks []launch.CheckResult
	// Instrumented runs only:
	Bundle   []byte           // the run bundle's bytes (when keepBundle)
	Trace    *trace.Trace     // the decoded trace (when keepTrace)
	Analysis *analysis.Result // the analysis of the trace
	// Series is the memory time per access of the warp with the most
	// memory time (seed Fig. 11), SeriesWarp its segment index.
	Series     []float64
	SeriesWarp uint32
}

type vrRunOptions struct {
	KeepBundle, KeepTrace, Check bool
}

// vrRun renders scene from view with block shape s using k on the model ms.
func vrRun(ctx context.Context, k *vrKernelCode, ms *model.Spec, sc vrScene, v vrView, s vrShape, o vrRunOptions) (*vrResult, error) {
	spec, err := launch.ParseSpec([]byte(vrSpec(sc, v, s)))
	if err != nil {
		return nil, err
	}
	if !o.Check {
		spec.Checks = nil
	}
	f, err := ptx.ParseFile(token.NewFileSet(), vrSample+".ptx", k.PTX, 0)
	if err != nil {
		return nil, err
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		return nil, err
	}
	reg := launch.SampleRegistry()
	prep, err := spec.Prepare(prog, launch.PrepareOptions{Manifest: k.Manifest, Registry: reg, NumSMs: ms.NumSMs})
	if err != nil {
		return nil, err
	}
	res, err := prep.Run(ctx, launch.ExecOptions{Model: ms, ModelOpt: model.Options{Workers: 1}})
	if err != nil {
		var fault *replay.Fault
		if errors.As(err, &fault) {
			return nil, fmt.Errorf("%s", fault.Report())
		}
		return nil, err
	}
	if len(res.Launches) != 1 || res.Launches[0].Timing == nil {
		return nil, errors.New("volrender: expected one timed launch")
	}
	lr := res.Launches[0]
	clock := float64(ms.CoreMHz) * 1e6
	out := &vrResult{Mode: k.Mode, View: v, Shape: s, Model: analysis.ModelOf(lr.Counters())}
	out.Cycles = out.Model.Cycles
	out.FPS = analysis.FrameRate(out.Cycles, clock)
	if o.Check {
		out.Checks = prep.Check(reg, "")
	}
	if k.Manifest == nil {
		return out, nil
	}
	meta := trace.RunMeta{Labels: map[string]string{"sample": vrSample, "mode": k.Mode, "block": s.String(),
		"view": v.String(), "image": fmt.Sprint(sc.Image), "volume": fmt.Sprint(sc.Volume), "model": ms.Name}}
	in, err := lr.Bundle(k.Manifest, ms, meta)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := trace.WriteBundle(&buf, in); err != nil {
		return nil, err
	}
	b, err := trace.OpenBundle(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, err
	}
	tr, err := b.Trace()
	if err != nil {
		return nil, err
	}
	if out.Analysis, err = analysis.Analyze(tr.Source()); err != nil {
		return nil, err
	}
	if n := out.Analysis.Issues["overflow"]; n > 0 {
		return nil, fmt.Errorf("volrender %s %s: %d warps overflowed the trace capacity", k.Mode, s, n)
	}
	// Fig. 11: the warp with the most memory time.
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
			return nil, err
		}
		out.SeriesWarp = seg
		for _, c := range acc {
			out.Series = append(out.Series, float64(c))
		}
	}
	if o.KeepBundle {
		out.Bundle = buf.Bytes()
	}
	if o.KeepTrace {
		out.Trace = tr
	}
	return out, nil
}

// pct formats a share in percent.
func pct(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}
