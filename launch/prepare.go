package launch

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
	"gopkg.in/yaml.v3"
)

// Buffer is a device buffer of a prepared launch.
type Buffer struct {
	Name    string
	Param   int
	Type    string
	Alloc   *replay.Alloc
	Initial []byte // contents before the launch
	Output  bool
}

// Prepared is a launch spec bound to a device: inputs generated, buffers,
// textures and constants set up, and (single-launch form) the kernel ready
// to run. Run executes it (all steps of the multi-launch form).
type Prepared struct {
	Spec     *Spec
	Kernel   *replay.Kernel // single-launch form; nil for steps
	Dev      *replay.Device
	Buffers  []*Buffer
	Trace    *replay.Alloc // the trace buffer of the single launch of an instrumented kernel, or nil
	scalars  map[string]float64
	byName   map[string]*Buffer
	vars     map[string]value
	inputs   map[string]GenOutput
	prog     *replay.Program
	opts     PrepareOptions
	consts   []byte
	globals  []uint64
	texs     []*replay.TexBinding
	codes    map[string]*replay.Code
	man      *manifest.Manifest
	extra    map[string][]byte // texture and constant data by name (RefInput)
	bufBytes int               // bytes of the buffers allocated so far (MaxBufferBytes)
}

// MaxBufferBytes is the default bound on the total size of a spec's
// buffers and textures (PrepareOptions.MaxBufferBytes): 4 GiB, more than the replay can
// touch in an hour, and below what would exhaust the host's memory before
// the run starts.
const MaxBufferBytes = 4 << 30

// PrepareOptions configure Prepare.
type PrepareOptions struct {
	BaseDir  string             // relative file names in the spec are resolved here
	Manifest *manifest.Manifest // instrumented kernel: allocate and pass the trace buffer
	Registry Registry           // generators named by the spec's inputs
	// MaxBufferBytes bounds the total bytes of the spec's buffers, checked
	// before each is allocated (0: the MaxBufferBytes default).
	MaxBufferBytes int
	// GPU is the model the launch runs on: it sizes the shared staging of
	// instrumented kernels (instrument.PlanStaging) and gives the SM
	// count (%nsmid). nil: no GPU (functional replay), global staging.
	GPU *model.Spec
	// NumSMs is the SM count when GPU is nil (0: replay's default); with
	// a GPU it must be 0 or GPU.NumSMs.
	NumSMs int
}

// Prepare sets up the spec's device and, for the single-launch form,
// lowers its kernel from prog and packs the launch.
func (s *Spec) Prepare(prog *replay.Program, o PrepareOptions) (*Prepared, error) {
	if o.GPU != nil {
		if o.NumSMs != 0 && o.NumSMs != o.GPU.NumSMs {
			return nil, fmt.Errorf("launch: %d SMs asked for a GPU (%s) with %d", o.NumSMs, o.GPU.Name, o.GPU.NumSMs)
		}
		o.NumSMs = o.GPU.NumSMs
	}
	dev := replay.NewDeviceFor(prog)
	p := &Prepared{Spec: s, Dev: dev, scalars: map[string]float64{}, byName: map[string]*Buffer{},
		vars: map[string]value{}, inputs: map[string]GenOutput{}, prog: prog, opts: o,
		codes: map[string]*replay.Code{}, man: o.Manifest, extra: map[string][]byte{}}
	p.globals = dev.LoadModule(prog)
	for k, v := range s.Vars {
		p.vars[k] = intVal(v)
	}
	for _, in := range s.Inputs {
		g := o.Registry.Generators[in.Generator]
		if g == nil {
			return nil, fmt.Errorf("inputs %s: no generator %q registered", in.Name, in.Generator)
		}
		out, err := g(in.Args)
		if err != nil {
			return nil, fmt.Errorf("inputs %s (%s): %v", in.Name, in.Generator, err)
		}
		p.inputs[in.Name] = out
		for k, v := range out.Scalars {
			p.vars[in.Name+"."+k] = floatOrInt(v)
		}
	}
	// buffers
	if len(s.Steps) > 0 {
		for i, b := range s.Buffers {
			if _, err := p.allocBuffer(b.Name, -1, &s.Buffers[i].BufferSpec); err != nil {
				return nil, fmt.Errorf("buffers[%d] (%s): %v", i, b.Name, err)
			}
		}
	} else {
		for i, ps := range s.Params {
			if ps.Buffer == nil {
				continue
			}
			name := paramName(ps, i)
			if _, err := p.allocBuffer(name, i, ps.Buffer); err != nil {
				return nil, fmt.Errorf("params[%d] (%s): %v", i, name, err)
			}
		}
	}
	// constant bank
	cb := prog.ConstInit()
	consts := map[string]replay.ConstVar{}
	for _, cv := range prog.ConstVars() {
		consts[cv.Name] = cv
	}
	for _, c := range s.Constants {
		cv, ok := consts[c.Name]
		off := cv.Offset
		if !ok {
			return nil, fmt.Errorf("constants: no .const symbol %q in the module", c.Name)
		}
		t := c.Type
		if t == "" {
			t = "f32"
		}
		if _, ok := elemSize(t); !ok {
			return nil, fmt.Errorf("constants %s: unknown type %q", c.Name, t)
		}
		data, err := p.fill(&InitSpec{Values: c.Values, File: c.File, From: c.From}, t, 0, o.BaseDir)
		if err != nil {
			return nil, fmt.Errorf("constants %s: %v", c.Name, err)
		}
		if len(data) > cv.Size || off+len(data) > len(cb) {
			return nil, fmt.Errorf("constants %s: %d bytes do not fit the %d-byte symbol", c.Name, len(data), cv.Size)
		}
		copy(cb[off:], data)
		p.extra[c.Name] = data
	}
	p.consts = cb
	texs, err := s.buildTextures(prog, p, o.BaseDir)
	if err != nil {
		return nil, err
	}
	p.texs = texs
	if len(s.Steps) == 0 {
		ls := &LaunchStep{Kernel: s.Kernel, Params: s.Params}
		k, tr, err := p.newKernel(ls, dim3Must(s.Grid), dim3Must(s.Block), s.DynamicShared)
		if err != nil {
			return nil, err
		}
		p.Kernel, p.Trace = k, tr
	}
	return p, nil
}

func dim3Must(v []int) [3]int {
	d, _ := dim3(v, "")
	return d
}

func paramName(ps ParamSpec, i int) string {
	if ps.Name != "" {
		return ps.Name
	}
	return fmt.Sprintf("param%d", i)
}

// fits checks that need more bytes keep the buffers and textures within
// PrepareOptions.MaxBufferBytes, before they are allocated.
func (p *Prepared) fits(need int) error {
	limit := p.opts.MaxBufferBytes
	if limit <= 0 {
		limit = MaxBufferBytes
	}
	if need < 0 || need > limit-p.bufBytes {
		return fmt.Errorf("%d bytes, with the %d bytes of the buffers and textures before it, exceed the %d-byte limit on a spec's buffers and textures", need, p.bufBytes, limit)
	}
	return nil
}

// allocBuffer allocates and initialises a named buffer.
func (p *Prepared) allocBuffer(name string, param int, b *BufferSpec) (*Buffer, error) {
	if p.byName[name] != nil {
		return nil, fmt.Errorf("duplicate buffer name %q", name)
	}
	t := b.elemType()
	es, _ := elemSize(t)
	count := b.Count
	if count == 0 && b.Size > 0 {
		count = (b.Size + es - 1) / es
	}
	if err := p.fits(max(b.Size, count*es)); err != nil {
		return nil, err
	}
	// an init from an input generator gives the generator's own bytes (no
	// copy): they are only read, into the allocation below and as the
	// buffer's initial contents for the checks
	data, err := p.fillData(b.Init, t, count, p.opts.BaseDir, true)
	if err != nil {
		return nil, err
	}
	size := max(len(data), b.Size, count*es)
	if err := p.fits(size); err != nil {
		return nil, err
	}
	p.bufBytes += size
	al := p.Dev.Alloc(name, size)
	if in := b.Init; in != nil && (in.From != "" || in.File != "" || !in.Zeros) {
		copy(al.Data, data) // (zeros need no copy: the allocation is zeroed, its pages untouched)
	}
	// data (a fresh slice, or a generator's bytes, which nothing writes)
	// is the initial contents when it covers the whole allocation
	initial := data
	if len(data) != size {
		initial = append([]byte(nil), al.Data...)
	}
	buf := &Buffer{Name: name, Param: param, Type: t, Alloc: al, Initial: initial, Output: b.Output}
	p.Buffers = append(p.Buffers, buf)
	p.byName[name] = buf
	return buf, nil
}

// fill resolves init: from: INPUT.BUFFER, then the other init kinds.
func (p *Prepared) fill(in *InitSpec, t string, count int, baseDir string) ([]byte, error) {
	return p.fillData(in, t, count, baseDir, false)
}

// fillData is fill; with shared, an init from an input generator returns
// the generator's bytes themselves, not a copy: for read-only users
// (textures), so that a large input costs its size once.
func (p *Prepared) fillData(in *InitSpec, t string, count int, baseDir string, shared bool) ([]byte, error) {
	if in == nil || in.From == "" {
		return in.fill(t, count, baseDir)
	}
	iname, bname, ok := strings.Cut(in.From, ".")
	g, found := p.inputs[iname]
	if !ok || !found {
		return nil, fmt.Errorf("init from %q: no input %q (want INPUT.BUFFER)", in.From, iname)
	}
	b, found := g.Buffers[bname]
	if !found {
		var have []string
		for k := range g.Buffers {
			have = append(have, k)
		}
		sort.Strings(have)
		return nil, fmt.Errorf("init from %q: input %s has no buffer %q (has %s)", in.From, iname, bname, strings.Join(have, ", "))
	}
	es, _ := elemSize(t)
	if count > 0 && len(b) < count*es {
		return nil, fmt.Errorf("init from %q: %d bytes, the buffer needs %d", in.From, len(b), count*es)
	}
	if shared {
		return b[:len(b):len(b)], nil
	}
	return append([]byte(nil), b...), nil
}

// code lowers (once) the named kernel and marks its probes.
func (p *Prepared) code(name string) (*replay.Code, *manifest.Kernel, error) {
	var mk *manifest.Kernel
	if p.man != nil {
		mk = p.man.Kernel(name)
	}
	if c := p.codes[name]; c != nil {
		return c, mk, nil
	}
	c, err := p.prog.Lower(name)
	if err != nil {
		return nil, nil, err
	}
	if mk != nil {
		// Ground truth is recorded per load region under its begin probe
		// (trace.TruthAccess): mark the probed access with that id.
		for _, pr := range mk.Probes {
			if pr.Kind == "begin" && pr.RegionKind == "load" {
				c.SetProbe(pr.OutLine, int(pr.ID))
			}
		}
	}
	p.codes[name] = c
	return c, mk, nil
}

// newKernel packs the parameters of one launch and prepares its kernel.
// For an instrumented kernel it allocates a fresh trace buffer.
func (p *Prepared) newKernel(ls *LaunchStep, grid, block [3]int, dynShared int) (*replay.Kernel, *replay.Alloc, error) {
	code, mk, err := p.code(ls.Kernel)
	if err != nil {
		return nil, nil, err
	}
	if p.man != nil && mk == nil && len(p.Spec.Steps) == 0 {
		return nil, nil, fmt.Errorf("manifest has no kernel %s", ls.Kernel)
	}
	params := make([]byte, code.ParamSize)
	added := map[int]manifest.Param{}
	if mk != nil {
		for _, pa := range mk.ParamsAdded {
			if pa.Index < 0 || pa.Index >= len(code.Params) {
				return nil, nil, fmt.Errorf("manifest: kernel %s: params_added index %d is out of range (the kernel has %d parameters)", ls.Kernel, pa.Index, len(code.Params))
			}
			if _, dup := added[pa.Index]; dup {
				return nil, nil, fmt.Errorf("manifest: kernel %s: params_added index %d listed twice", ls.Kernel, pa.Index)
			}
			if n := code.Params[pa.Index].Name; pa.Name != "" && n != "" && n != pa.Name {
				return nil, nil, fmt.Errorf("manifest: kernel %s: params_added index %d is %q in the manifest but %q in the PTX", ls.Kernel, pa.Index, pa.Name, n)
			}
			added[pa.Index] = pa
		}
	}
	want := len(code.Params) - len(added)
	if len(ls.Params) != want {
		return nil, nil, fmt.Errorf("kernel %s has %d parameters, the launch spec gives %d", ls.Kernel, want, len(ls.Params))
	}
	texByName := map[string]int{}
	for i, t := range p.Spec.Textures {
		texByName[t.Name] = i
	}
	var tr *replay.Alloc
	stageParam := -1 // index of __pt_stage_off (__pt_stage_recs follows)
	si := 0
	for i, pi := range code.Params {
		dst := params[pi.Offset : pi.Offset+pi.Size]
		if pa, ok := added[i]; ok {
			if pa.Host == manifest.HostTraceBuffer {
				if tr == nil {
					if tr, err = p.traceBuffer(p.man, grid, block); err != nil {
						return nil, nil, err
					}
				}
				putLE(dst, min(pi.Size, 8), tr.Base)
			}
			if pa.Host == manifest.HostStageOffset {
				stageParam = i // filled by stage below
			}
			// other added parameters (dummy) are 0
			continue
		}
		ps := ls.Params[si]
		name := paramName(ps, si)
		si++
		switch {
		case ps.Buffer != nil || ps.Ref != "":
			bname := ps.Ref
			if ps.Buffer != nil {
				bname = name
			}
			b := p.byName[bname]
			if b == nil {
				return nil, nil, fmt.Errorf("params[%d]: no buffer %q", si-1, bname)
			}
			addr := b.Alloc.Base
			if ps.Offset != "" {
				v, err := p.eval(string(ps.Offset))
				if err != nil {
					return nil, nil, fmt.Errorf("params[%d] offset: %v", si-1, err)
				}
				es, _ := elemSize(b.Type)
				addr += uint64(v.int() * int64(es))
			}
			putLE(dst, min(pi.Size, 8), addr)
		case ps.TensorMap != nil:
			enc, err := p.tensorMap(ps.TensorMap)
			if err != nil {
				return nil, nil, fmt.Errorf("params[%d] (%s): %v", si-1, name, err)
			}
			if pi.Size != len(enc) {
				return nil, nil, fmt.Errorf("params[%d] (%s): a tensor map is %d bytes, the parameter %d", si-1, name, len(enc), pi.Size)
			}
			copy(dst, enc[:])
		case ps.Texture != "":
			ti, ok := texByName[ps.Texture]
			if !ok {
				return nil, nil, fmt.Errorf("params[%d]: no texture %q", si-1, ps.Texture)
			}
			putLE(dst, min(pi.Size, 8), uint64(texHandleBase+ti))
		default:
			v, f, err := p.scalarBits(&ps.Value, pi.Type)
			if err != nil {
				return nil, nil, fmt.Errorf("params[%d] (%s): %v", si-1, name, err)
			}
			putLE(dst, min(pi.Size, 8), v)
			p.scalars[name] = f
		}
	}
	launch := replay.Launch{Code: code, Grid: grid, Block: block, DynShared: dynShared,
		Params: params, Const: p.consts, Dev: p.Dev, Globals: p.globals, Textures: p.texs, NumSMs: p.opts.NumSMs,
		MaxWarpInsts: p.Spec.MaxWarpInsts, RegsPerThread: p.Spec.RegsPerThread}
	if mk != nil && launch.RegsPerThread == 0 {
		launch.RegsPerThread = InstrumentedRegs(code)
	}
	k, err := replay.NewKernel(launch)
	if err != nil {
		return nil, nil, err
	}
	if stageParam >= 0 && p.opts.GPU != nil {
		if k, err = p.stage(k, launch, mk, stageParam); err != nil {
			return nil, nil, fmt.Errorf("kernel %s: staging: %v", ls.Kernel, err)
		}
	}
	return k, tr, nil
}

// InstrumentedRegs is the register allocation of an instrumented kernel
// without a known count: the estimate of its original registers (the
// probes' %__pt_ registers not counted), capped like replay's estimate.
// An instrumented kernel carries .maxnreg when the original's count is
// known, so that ptxas spills the probes' registers rather than lower the
// occupancy; the model allocates the original's count the same way (the
// spills' cost is not modelled).
func InstrumentedRegs(code *replay.Code) int {
	n := min(code.EstimateRegsExcept("%"+instrument.Prefix), replay.DefaultMaxRegs)
	if m := code.MaxNReg(); m > 0 {
		n = min(n, m)
	}
	return n
}

// stage sizes the shared staging of an instrumented kernel for this launch
// and GPU (instrument.PlanStaging), passes its offset and record count in
// the added parameters stageParam and stageParam+1, and adds its bytes to
// the launch's dynamic shared memory. Zero records (no room without
// lowering occupancy) leave k as it is: the kernel stages globally.
func (p *Prepared) stage(k *replay.Kernel, launch replay.Launch, mk *manifest.Kernel, stageParam int) (*replay.Kernel, error) {
	code := launch.Code
	// the split of shared memory and L1 the original launch runs with
	// (model.Spec.ForShared): staging sized within it keeps it
	unit := p.opts.GPU.SM.SharedAllocUnit
	gpu, _ := p.opts.GPU.ForShared((code.SharedStatic + launch.DynShared + unit - 1) / unit * unit)
	plan, err := instrument.PlanStaging(stagingArch(&gpu), k.ThreadsPerCTA(), k.RegsPerThread(),
		code.SharedStatic, launch.DynShared, p.man.Buffer.RecordsPerWarp, mk.Staging.Requested != "shared")
	if err != nil {
		return nil, err
	}
	if plan.Records == 0 {
		return k, nil
	}
	po, pr := code.Params[stageParam], code.Params[stageParam+1]
	putLE(launch.Params[po.Offset:po.Offset+po.Size], 4, uint64(plan.Offset))
	putLE(launch.Params[pr.Offset:pr.Offset+pr.Size], 4, uint64(plan.Records))
	launch.DynShared = plan.DynamicShared(launch.DynShared)
	return replay.NewKernel(launch)
}

// texHandleBase is the value of the first texture object handle.
const texHandleBase = 1

// traceBuffer allocates the raw trace buffer of docs/buffer.md (zeroed)
// and writes its header.
func (p *Prepared) traceBuffer(m *manifest.Manifest, grid, block [3]int) (*replay.Alloc, error) {
	h, err := m.Header(grid, block)
	if err != nil {
		return nil, err
	}
	al := p.Dev.Alloc("__trace", int(h.BufferBytes()))
	copy(al.Data, h.Bytes())
	return al, nil
}

// scalarBits encodes a scalar parameter value (a number, or an expression
// over the variables) for a parameter of type t; it also returns the value
// as a float64 (RefInput.Scalars).
func (p *Prepared) scalarBits(n *yaml.Node, t ptx.Type) (uint64, float64, error) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, 0, fmt.Errorf("value must be a scalar")
	}
	var v value
	switch n.ShortTag() {
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			var u uint64
			if err2 := n.Decode(&u); err2 != nil {
				return 0, 0, err
			}
			i = int64(u)
		}
		v = intVal(i)
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return 0, 0, err
		}
		v = value{f: f}
	default:
		ev, err := p.eval(n.Value)
		if err != nil {
			return 0, 0, err
		}
		v = ev
	}
	switch t {
	case ptx.F32:
		return uint64(math.Float32bits(float32(v.float()))), float64(float32(v.float())), nil
	case ptx.F64:
		return math.Float64bits(v.float()), v.float(), nil
	}
	if !v.isInt {
		if v.f != math.Trunc(v.f) {
			return 0, 0, fmt.Errorf("value %q is not an integer for a %s parameter", n.Value, t)
		}
		v = intVal(int64(v.f))
	}
	return uint64(v.i), float64(v.i), nil
}

// RefInput returns what references and verifiers get.
func (p *Prepared) RefInput() RefInput {
	in := RefInput{Spec: p.Spec, Buffers: map[string][]byte{}, Scalars: p.scalars, Vars: map[string]float64{}, Inputs: p.inputs}
	for _, bb := range p.Buffers {
		in.Buffers[bb.Name] = bb.Initial
	}
	for k, v := range p.vars {
		in.Vars[k] = v.float()
	}
	for k, v := range p.extra {
		if _, ok := in.Buffers[k]; !ok {
			in.Buffers[k] = v
		}
	}
	return in
}

// Warnings lists the lowering warnings of every kernel lowered so far (in
// the order they were first launched), each once, followed per kernel by
// its notices (instructions run with a documented numerical model, within a
// tolerance of hardware: replay.Code.Notices).
func (p *Prepared) Warnings() []string {
	var out []string
	seen := map[string]bool{}
	names := make([]string, 0, len(p.codes))
	for n := range p.codes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, w := range append(append([]string(nil), p.codes[n].Warnings...), p.codes[n].Notices...) {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// Buffer returns a buffer by name.
func (p *Prepared) Buffer(name string) *Buffer { return p.byName[name] }

// tensorMap builds and encodes the tensor map of a tensor_map parameter.
func (p *Prepared) tensorMap(ts *TensorMapSpec) ([128]byte, error) {
	b := p.byName[ts.Ref]
	if b == nil {
		return [128]byte{}, fmt.Errorf("tensor_map: no buffer %q", ts.Ref)
	}
	es, _ := elemSize(b.Type)
	tm := replay.TensorMap{Base: b.Alloc.Base, Rank: len(ts.Dims), ElemSize: es, Swizzle: ts.Swizzle}
	st := uint64(es)
	for d := range ts.Dims {
		if ts.Dims[d] <= 0 || ts.Box[d] <= 0 {
			return [128]byte{}, fmt.Errorf("tensor_map: dimension %d: size %d, box %d", d, ts.Dims[d], ts.Box[d])
		}
		tm.Dims[d], tm.Box[d] = uint64(ts.Dims[d]), uint32(ts.Box[d])
		if d > 0 {
			tm.Strides[d] = st
			if len(ts.Strides) > 0 {
				tm.Strides[d] = uint64(ts.Strides[d-1])
			}
			st = tm.Strides[d]
		}
		st *= uint64(ts.Dims[d])
		if d == 0 {
			st = (st + 15) / 16 * 16
		}
	}
	if err := tm.Validate(); err != nil {
		return [128]byte{}, fmt.Errorf("tensor_map: %v", err)
	}
	// the whole tensor must lie inside the buffer
	last := uint64(es) * (tm.Dims[0] - 1)
	for d := 1; d < tm.Rank; d++ {
		last += tm.Strides[d] * (tm.Dims[d] - 1)
	}
	if last+uint64(es) > uint64(len(b.Alloc.Data)) {
		return [128]byte{}, fmt.Errorf("tensor_map: the tensor spans %d bytes, buffer %q has %d", last+uint64(es), ts.Ref, len(b.Alloc.Data))
	}
	return tm.Encode(), nil
}
