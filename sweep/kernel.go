package sweep

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/trace"
)

// KernelSpec is one kernel of a spec's kernels section: a PTX file and a
// single-launch launch spec (docs/launch.md), both relative to the spec
// file, and the block shapes to try instead of the launch spec's ("X",
// "XxY" or "XxYxZ"; none: the launch spec's block only).
type KernelSpec struct {
	PTX    string   `yaml:"ptx"`
	Launch string   `yaml:"launch"`
	Blocks []string `yaml:"blocks"`
}

// ParseDims parses "X", "XxY" or "XxYxZ" (positive, product ≤ 1024).
func ParseDims(s string) ([]int, error) {
	parts := strings.Split(strings.ReplaceAll(strings.TrimSpace(s), "×", "x"), "x")
	if len(parts) > 3 {
		return nil, fmt.Errorf("%q: want X, XxY or XxYxZ", s)
	}
	var out []int
	n := 1
	for _, p := range parts {
		d, err := strconv.Atoi(p)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%q: want X, XxY or XxYxZ of positive integers", s)
		}
		n *= d
		out = append(out, d)
	}
	if n > 1024 {
		return nil, fmt.Errorf("%q: %d threads per block, at most 1024", s, n)
	}
	return out, nil
}

// launchFiles returns the files a single-launch spec reads (relative to
// its directory), sorted, without duplicates.
func launchFiles(s *launch.Spec) []string {
	set := map[string]bool{}
	add := func(in *launch.InitSpec) {
		if in != nil && in.File != "" {
			set[in.File] = true
		}
	}
	for _, p := range s.Params {
		if p.Buffer != nil {
			add(p.Buffer.Init)
		}
	}
	for _, b := range s.Buffers {
		add(b.Init)
	}
	for _, t := range s.Textures {
		add(t.Init)
	}
	for _, c := range s.Constants {
		if c.File != "" {
			set[c.File] = true
		}
	}
	for _, c := range s.Checks {
		if c.File != "" {
			set[c.File] = true
		}
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// readLaunch reads and parses a launch spec, refusing the multi-launch
// form (a sweep entry is one launch).
func readLaunch(path string) (*launch.Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := launch.ParseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(s.Steps) > 0 || s.Kernel == "" {
		return nil, fmt.Errorf("%s: a sweep entry is one launch: want the single-launch form (kernel:, grid:, block:)", path)
	}
	return s, nil
}

// kernelEntries expands one kernel of the spec over blocks × models ×
// modes.
func kernelEntries(k KernelSpec, models, modes []string, tool string) ([]Entry, error) {
	if k.PTX == "" || k.Launch == "" {
		return nil, errors.New("a kernel needs ptx: and launch:")
	}
	ls, err := readLaunch(k.Launch)
	if err != nil {
		return nil, err
	}
	inputs := map[string]Input{}
	for role, path := range map[string]string{"ptx": k.PTX, "launch": k.Launch} {
		if inputs[role], err = hashInput(path); err != nil {
			return nil, err
		}
	}
	for _, f := range launchFiles(ls) {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(k.Launch), f)
		}
		if inputs["file:"+f], err = hashInput(p); err != nil {
			return nil, fmt.Errorf("%s: %w", k.Launch, err)
		}
	}
	blocks := [][]int{nil}
	if len(k.Blocks) > 0 {
		blocks = nil
		for _, b := range k.Blocks {
			d, err := ParseDims(b)
			if err != nil {
				return nil, fmt.Errorf("blocks: %w", err)
			}
			blocks = append(blocks, d)
		}
	}
	var out []Entry
	for _, m := range models {
		in := inputs
		name := m
		if _, ok := model.Preset(m); !ok {
			mi, err := hashInput(m)
			if err != nil {
				return nil, fmt.Errorf("model: %w", err)
			}
			in = map[string]Input{"model": mi}
			for r, v := range inputs {
				in[r] = v
			}
			name = "file"
		}
		for _, b := range blocks {
			for _, mode := range modes {
				e := Entry{Config: Config{Kind: "kernel", Model: name, Mode: mode, Kernel: &KernelConfig{Name: ls.Kernel, Block: b}}, Inputs: in}
				e.ID = entryID(tool, e)
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// readVerified reads an input, refusing one whose bytes changed since
// the plan.
func readVerified(in Input) ([]byte, error) {
	data, err := os.ReadFile(in.Path)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != in.SHA256 {
		return nil, fmt.Errorf("%s changed since the plan was made (SHA-256 differs); make the plan again", in.Path)
	}
	return data, nil
}

// execKernel runs a kernel entry on the model: instrument (unless app),
// prepare, run, check the outputs, bundle and analyse.
func (ex *executor) execKernel(ctx context.Context, e *Entry, ms *model.Spec, progress model.ProgressFunc) (*Record, []byte, error) {
	kc := e.Config.Kernel
	roles := make([]string, 0, len(e.Inputs))
	for r := range e.Inputs {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	data := map[string][]byte{}
	for _, r := range roles {
		b, err := readVerified(e.Inputs[r])
		if err != nil {
			return nil, nil, err
		}
		data[r] = b
	}
	ptxIn, launchIn := e.Inputs["ptx"], e.Inputs["launch"]
	if data["ptx"] == nil || data["launch"] == nil {
		return nil, nil, errors.New("kernel entry without ptx and launch inputs")
	}
	spec, err := launch.ParseSpec(data["launch"])
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", launchIn.Path, err)
	}
	if spec.Kernel != kc.Name || len(spec.Steps) > 0 {
		return nil, nil, fmt.Errorf("%s: not the single launch of %s planned", launchIn.Path, kc.Name)
	}
	if kc.Block != nil {
		spec.Block = kc.Block
	}
	threads := 1
	for _, d := range spec.Block {
		threads *= d
	}
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, ptxIn.Path, data["ptx"], 0)
	if err != nil {
		return nil, nil, err
	}
	if err := ptx.Check(fset, f); err != nil {
		return nil, nil, err
	}
	var man *manifest.Manifest
	if e.Config.Mode != "app" {
		res, err := instrument.Instrument(fset, f, instrument.Options{Mode: e.Config.Mode, Kernel: kc.Name, Block: threads,
			Tool: ex.tool, Output: strings.TrimSuffix(filepath.Base(ptxIn.Path), ".ptx") + "." + e.Config.Mode + ".ptx"})
		if err != nil {
			return nil, nil, err
		}
		man = res.Manifest
		fset = token.NewFileSet()
		if f, err = ptx.ParseFile(fset, "instrumented.ptx", res.PTX, 0); err != nil {
			return nil, nil, err
		}
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		return nil, nil, err
	}
	reg := launch.SampleRegistry()
	base := filepath.Dir(launchIn.Path)
	prep, err := spec.Prepare(prog, launch.PrepareOptions{BaseDir: base, Manifest: man, Registry: reg, NumSMs: ms.NumSMs, GPU: ms})
	if err != nil {
		return nil, nil, err
	}
	res, err := prep.Run(ctx, launch.ExecOptions{Model: ms, ModelOpt: model.Options{Workers: 1, Progress: progress}})
	if err != nil {
		var fault *replay.Fault
		if errors.As(err, &fault) {
			return nil, nil, fmt.Errorf("%s", strings.TrimSpace(fault.Report()))
		}
		return nil, nil, err
	}
	for _, c := range prep.Check(reg, base) {
		if !c.OK {
			return nil, nil, fmt.Errorf("check %s against %s failed: %s", c.Buffer, c.Against, c.Msg)
		}
	}
	if len(res.Launches) != 1 || res.Launches[0].Timing == nil {
		return nil, nil, errors.New("expected one timed launch")
	}
	lr := res.Launches[0]
	mod := analysis.ModelOf(lr.Counters())
	rec := &Record{ID: e.ID, Mode: e.Config.Mode, Cycles: num(mod.Cycles), FPS: num(math.NaN()), TexHit: num(mod.TexHitRate),
		MeanAcc: num(math.NaN()), Freq: num(math.NaN()), Share: num(math.NaN())}
	if man == nil {
		return rec, nil, nil
	}
	in, err := lr.Bundle(man, ms, trace.RunMeta{RunID: e.ID, Labels: map[string]string{"mode": e.Config.Mode, "model": ms.Name}})
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if err := trace.WriteBundle(&buf, in); err != nil {
		return nil, nil, err
	}
	b, err := trace.OpenBundle(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, nil, err
	}
	tr, err := b.Trace()
	if err != nil {
		return nil, nil, err
	}
	a, err := analysis.AnalyzeContext(ctx, tr.Source(), analysis.Options{Top: -1})
	if err != nil {
		return nil, nil, err
	}
	if n := a.Issues["overflow"]; n > 0 {
		return nil, nil, fmt.Errorf("%d warps overflowed the trace capacity (%d records); the trace is incomplete", n, instrument.DefaultCapacity)
	}
	rec.Probed = true
	rec.MeanAcc, rec.Freq, rec.Share = num(a.MeanAccess), num(a.Frequency), num(a.Overall.MemoryShare)
	rec.Memory, rec.Other, rec.Total, rec.Access = a.Overall.Memory, a.Overall.Other, a.Overall.Total, a.Overall.Accesses
	return rec, buf.Bytes(), nil
}
