package replay

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"gopkg.in/yaml.v3"
)

// Spec is a launch spec (docs/launch.md): which kernel, the geometry, every
// parameter, textures, constant symbols and output checks.
type Spec struct {
	// Single-launch form: the kernel, its geometry and parameters.
	Kernel        string      `yaml:"kernel,omitempty"`
	Grid          []int       `yaml:"grid,omitempty"`
	Block         []int       `yaml:"block,omitempty"`
	DynamicShared int         `yaml:"dynamic_shared,omitempty"`
	MaxWarpInsts  uint64      `yaml:"max_warp_insts,omitempty"`
	Params        []ParamSpec `yaml:"params,omitempty"`
	// RegsPerThread is the register allocation the timing model uses for
	// every kernel of the spec (ptxas -v); 0: an estimate (DefaultMaxRegs).
	RegsPerThread int `yaml:"regs_per_thread,omitempty"`

	// Vars are integer variables for expressions (grid sizes, scalar
	// values, loop bounds).
	Vars map[string]int64 `yaml:"vars,omitempty"`
	// Inputs run input generators from the Registry once; their buffers
	// are used as init: {from: INPUT.BUFFER} and their scalars as
	// expression variables INPUT.NAME.
	Inputs []InputSpec `yaml:"inputs,omitempty"`
	// Multi-launch form: device buffers shared by every launch, and the
	// sequence of steps (launches, loops, host fills and swaps).
	Buffers []NamedBuffer `yaml:"buffers,omitempty"`
	Steps   []StepSpec    `yaml:"steps,omitempty"`

	Textures  []TexSpec   `yaml:"textures,omitempty"`
	Constants []ConstSpec `yaml:"constants,omitempty"`
	Checks    []CheckSpec `yaml:"checks,omitempty"`
}

// InputSpec runs one input generator.
type InputSpec struct {
	Name      string            `yaml:"name"`
	Generator string            `yaml:"generator"`
	Args      map[string]string `yaml:"args,omitempty"`
}

// NamedBuffer is a device buffer of the multi-launch form.
type NamedBuffer struct {
	Name       string `yaml:"name"`
	BufferSpec `yaml:",inline"`
}

// ParamSpec is one kernel parameter: exactly one of Value, Buffer,
// Texture, Ref.
type ParamSpec struct {
	Name    string      `yaml:"name,omitempty"`
	Value   yaml.Node   `yaml:"value,omitempty"` // a number, or an expression (string)
	Buffer  *BufferSpec `yaml:"buffer,omitempty"`
	Texture string      `yaml:"texture,omitempty"` // a texture object: the name of a textures entry
	Ref     string      `yaml:"ref,omitempty"`     // a named buffer (buffers:, or a buffer param of the single-launch form)
	Offset  Expr        `yaml:"offset,omitempty"`  // with ref: element offset added to the address
}

// BufferSpec is a device buffer passed as a pointer.
type BufferSpec struct {
	Type   string    `yaml:"type,omitempty"`  // element type: u8..u64, s8..s64, f16, f32, f64 (default u8)
	Count  int       `yaml:"count,omitempty"` // elements
	Size   int       `yaml:"size,omitempty"`  // bytes (alternative to count)
	Init   *InitSpec `yaml:"init,omitempty"`
	Output bool      `yaml:"output,omitempty"` // write the final contents to the run directory
}

// InitSpec initialises a buffer: at most one field set (none: zeros).
type InitSpec struct {
	Zeros  bool        `yaml:"zeros,omitempty"`
	Const  *float64    `yaml:"const,omitempty"`
	Ramp   *RampSpec   `yaml:"ramp,omitempty"`
	Random *RandomSpec `yaml:"random,omitempty"`
	File   string      `yaml:"file,omitempty"`
	Values []float64   `yaml:"values,omitempty"`
	From   string      `yaml:"from,omitempty"` // INPUT.BUFFER: bytes made by an input generator
}

// RampSpec fills element i with Start + i·Step (Mod > 0: modulo Mod).
type RampSpec struct {
	Start float64 `yaml:"start"`
	Step  float64 `yaml:"step"`
	Mod   float64 `yaml:"mod,omitempty"`
}

// RandomSpec fills with seeded uniform values in [Min, Max] (integers:
// inclusive).
type RandomSpec struct {
	Seed uint64  `yaml:"seed"`
	Min  float64 `yaml:"min"`
	Max  float64 `yaml:"max"`
}

// TexSpec describes a texture (object or reference).
type TexSpec struct {
	Name       string    `yaml:"name"`
	Ref        string    `yaml:"ref,omitempty"` // bind to this .texref instead of passing an object
	Dims       int       `yaml:"dims"`
	Layered    bool      `yaml:"layered,omitempty"`
	Width      int       `yaml:"width"`
	Height     int       `yaml:"height,omitempty"`
	Depth      int       `yaml:"depth,omitempty"`
	Layers     int       `yaml:"layers,omitempty"`
	Format     string    `yaml:"format"` // e.g. f32, u8x4, f32x4
	Address    []string  `yaml:"address,omitempty"`
	Filter     string    `yaml:"filter,omitempty"`
	ReadMode   string    `yaml:"read_mode,omitempty"` // element (default) or normalized
	Normalized bool      `yaml:"normalized_coords,omitempty"`
	Border     []float32 `yaml:"border,omitempty"`
	Init       *InitSpec `yaml:"init,omitempty"`    // texel data (like buffers; from: INPUT.BUFFER for generators)
	Surface    bool      `yaml:"surface,omitempty"` // a surface (suld/sust), backed by device memory
	Output     bool      `yaml:"output,omitempty"`  // surfaces: write the final contents as NAME.bin
}

// ConstSpec sets a __constant__ symbol.
type ConstSpec struct {
	Name   string    `yaml:"name"`
	Type   string    `yaml:"type"`
	Values []float64 `yaml:"values,omitempty"`
	File   string    `yaml:"file,omitempty"`
	From   string    `yaml:"from,omitempty"` // INPUT.BUFFER
}

// CheckSpec compares an output buffer with a file or a registered Go
// reference.
type CheckSpec struct {
	Buffer    string  `yaml:"buffer"` // parameter name (or "param<i>")
	File      string  `yaml:"file,omitempty"`
	Reference string  `yaml:"reference,omitempty"`
	Abs       float64 `yaml:"abs,omitempty"` // absolute tolerance (floats)
	Rel       float64 `yaml:"rel,omitempty"` // relative tolerance (floats)
}

// ParseSpec parses and validates a launch spec. Unknown fields are errors.
func ParseSpec(data []byte) (*Spec, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("launch spec: %w", err)
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("launch spec: %w", err)
	}
	return &s, nil
}

func dim3(v []int, what string) ([3]int, error) {
	out := [3]int{1, 1, 1}
	if len(v) == 0 || len(v) > 3 {
		return out, fmt.Errorf("%s needs 1 to 3 dimensions", what)
	}
	for i, x := range v {
		if x <= 0 || x > 1<<31-1 {
			return out, fmt.Errorf("%s[%d] = %d must be positive", what, i, x)
		}
		out[i] = x
	}
	return out, nil
}

func (s *Spec) validate() error {
	multi := len(s.Steps) > 0
	if multi {
		if s.Kernel != "" || len(s.Grid) > 0 || len(s.Block) > 0 || len(s.Params) > 0 || s.DynamicShared != 0 {
			return fmt.Errorf("steps: the multi-launch form takes kernel, grid, block and params in its launch steps, not at the top level")
		}
		if err := validateSteps(s.Steps, "steps"); err != nil {
			return err
		}
	} else {
		if len(s.Buffers) > 0 {
			return fmt.Errorf("buffers: only with steps (in the single-launch form buffers are params)")
		}
		if s.Kernel == "" {
			return fmt.Errorf("kernel: missing")
		}
		g, err := dim3(s.Grid, "grid")
		if err != nil {
			return err
		}
		b, err := dim3(s.Block, "block")
		if err != nil {
			return err
		}
		if b[0]*b[1]*b[2] > 1024 {
			return fmt.Errorf("block has %d threads (at most 1024)", b[0]*b[1]*b[2])
		}
		if uint64(g[0])*uint64(g[1])*uint64(g[2]) > 1<<31 {
			return fmt.Errorf("grid too large")
		}
		if s.DynamicShared < 0 || s.DynamicShared > 1<<24 {
			return fmt.Errorf("dynamic_shared out of range")
		}
		if err := validateParams(s.Params, "params", true); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for i, in := range s.Inputs {
		if in.Name == "" || in.Generator == "" || strings.ContainsAny(in.Name, ".[]") {
			return fmt.Errorf("inputs[%d]: needs name (without '.') and generator", i)
		}
		if seen[in.Name] {
			return fmt.Errorf("inputs[%d]: duplicate name %q", i, in.Name)
		}
		seen[in.Name] = true
	}
	names := map[string]bool{}
	for i, b := range s.Buffers {
		if b.Name == "" {
			return fmt.Errorf("buffers[%d]: name missing", i)
		}
		if names[b.Name] {
			return fmt.Errorf("buffers[%d]: duplicate name %q", i, b.Name)
		}
		names[b.Name] = true
		if err := b.BufferSpec.validate(); err != nil {
			return fmt.Errorf("buffers[%d] (%s): %v", i, b.Name, err)
		}
	}
	for i, t := range s.Textures {
		if t.Name == "" {
			return fmt.Errorf("textures[%d]: name missing", i)
		}
		if t.Dims < 1 || t.Dims > 3 || t.Width <= 0 || t.Width > 1<<16 || t.Height > 1<<16 || t.Depth > 1<<12 || t.Height < 0 || t.Depth < 0 || t.Layers < 0 || t.Layers > 1<<12 {
			return fmt.Errorf("textures[%d]: bad geometry", i)
		}
		if err := t.Init.validate(); err != nil {
			return fmt.Errorf("textures[%d]: %v", i, err)
		}
	}
	for i, c := range s.Checks {
		if c.Buffer == "" || (c.File == "") == (c.Reference == "") {
			return fmt.Errorf("checks[%d]: needs buffer and exactly one of file, reference", i)
		}
	}
	return nil
}

func validateParams(ps []ParamSpec, where string, single bool) error {
	for i, p := range ps {
		n := 0
		if p.Value.Kind != 0 {
			n++
		}
		if p.Buffer != nil {
			n++
			if !single {
				return fmt.Errorf("%s[%d]: buffer: is for the single-launch form; declare buffers under buffers: and pass ref: NAME", where, i)
			}
			if err := p.Buffer.validate(); err != nil {
				return fmt.Errorf("%s[%d]: %v", where, i, err)
			}
		}
		if p.Texture != "" {
			n++
		}
		if p.Ref != "" {
			n++
		}
		if n != 1 {
			return fmt.Errorf("%s[%d]: exactly one of value, buffer, texture, ref", where, i)
		}
		if p.Offset != "" && p.Ref == "" {
			return fmt.Errorf("%s[%d]: offset needs ref", where, i)
		}
	}
	return nil
}

func (in *InitSpec) validate() error {
	if in == nil {
		return nil
	}
	n := 0
	for _, set := range []bool{in.Zeros, in.Const != nil, in.Ramp != nil, in.Random != nil, in.File != "", in.Values != nil, in.From != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("init: at most one of zeros, const, ramp, random, file, values, from")
	}
	return nil
}

func (b *BufferSpec) validate() error {
	es, ok := elemSize(b.elemType())
	if !ok {
		return fmt.Errorf("unknown element type %q", b.Type)
	}
	if b.Count < 0 || b.Size < 0 || b.Count > 1<<28 || b.Size > 1<<30 {
		return fmt.Errorf("buffer size out of range")
	}
	if b.Count == 0 && b.Size == 0 && (b.Init == nil || b.Init.File == "" && b.Init.Values == nil && b.Init.From == "") {
		return fmt.Errorf("buffer needs count or size")
	}
	_ = es
	return b.Init.validate()
}

func (b *BufferSpec) elemType() string {
	if b.Type == "" {
		return "u8"
	}
	return b.Type
}

func elemSize(t string) (int, bool) {
	switch t {
	case "u8", "s8", "b8":
		return 1, true
	case "u16", "s16", "b16", "f16", "bf16":
		return 2, true
	case "u32", "s32", "b32", "f32":
		return 4, true
	case "u64", "s64", "b64", "f64":
		return 8, true
	}
	return 0, false
}

// encodeElem writes value v as element type t.
func encodeElem(b []byte, t string, v float64) {
	switch t {
	case "f32":
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case "f64":
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	case "f16":
		binary.LittleEndian.PutUint16(b, fpx.F64ToF16(v, fpx.RN))
	case "bf16":
		binary.LittleEndian.PutUint16(b, fpx.F64ToBF16(v, fpx.RN))
	default:
		n, _ := elemSize(t)
		var u uint64
		if v < 0 {
			u = uint64(int64(v))
		} else {
			u = uint64(v)
		}
		putLE(b, n, u)
	}
}

// decodeElem reads element type t as float64 (integers exactly up to 2^53).
func decodeElem(b []byte, t string) float64 {
	switch t {
	case "f32":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case "f64":
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case "f16":
		return float64(fpx.F16ToF32(binary.LittleEndian.Uint16(b)))
	case "bf16":
		return float64(fpx.BF16ToF32(binary.LittleEndian.Uint16(b)))
	}
	n, _ := elemSize(t)
	u := le(b, n)
	if strings.HasPrefix(t, "s") {
		return float64(int64(sext(u, uint8(n*8))))
	}
	return float64(u)
}

func isFloatElem(t string) bool { return strings.HasPrefix(t, "f") || t == "bf16" }

// fill produces the initial bytes of a buffer.
func (in *InitSpec) fill(t string, count int, baseDir string) ([]byte, error) {
	es, _ := elemSize(t)
	if in != nil && in.File != "" {
		b, err := os.ReadFile(resolvePath(baseDir, in.File))
		if err != nil {
			return nil, err
		}
		if count > 0 && len(b) < count*es {
			b = append(b, make([]byte, count*es-len(b))...)
		}
		return b, nil
	}
	if in != nil && in.Values != nil && count == 0 {
		count = len(in.Values)
	}
	out := make([]byte, count*es)
	if in == nil || in.Zeros {
		return out, nil
	}
	var rng *rand.Rand
	if in.Random != nil {
		rng = rand.New(rand.NewPCG(in.Random.Seed, in.Random.Seed^0x9e3779b97f4a7c15))
	}
	for i := 0; i < count; i++ {
		var v float64
		switch {
		case in.Const != nil:
			v = *in.Const
		case in.Ramp != nil:
			v = in.Ramp.Start + float64(i)*in.Ramp.Step
			if in.Ramp.Mod > 0 {
				v = math.Mod(v, in.Ramp.Mod)
			}
		case in.Random != nil:
			lo, hi := in.Random.Min, in.Random.Max
			if isFloatElem(t) {
				v = lo + rng.Float64()*(hi-lo)
			} else {
				span := uint64(hi-lo) + 1
				v = lo + float64(rng.Uint64N(max(span, 1)))
			}
		case in.Values != nil:
			if i < len(in.Values) {
				v = in.Values[i]
			}
		}
		encodeElem(out[i*es:], t, v)
	}
	return out, nil
}

func resolvePath(baseDir, p string) string {
	if filepath.IsAbs(p) || baseDir == "" {
		return p
	}
	return filepath.Join(baseDir, p)
}

// Buffer is a device buffer of a prepared launch.
type Buffer struct {
	Name    string
	Param   int
	Type    string
	Alloc   *Alloc
	Initial []byte // contents before the launch
	Output  bool
}

// RefInput is what a Go reference function gets: the launch spec, the
// initial contents of every buffer by name, the scalar parameter values by
// name, the variables (Spec.Vars and the inputs' scalars as INPUT.NAME) and
// the generated inputs by input name.
type RefInput struct {
	Spec    *Spec
	Buffers map[string][]byte
	Scalars map[string]float64
	Vars    map[string]float64
	Inputs  map[string]GenOutput
}

// RefFunc computes the expected contents of a checked buffer; the check
// compares them with the spec's abs/rel tolerances.
type RefFunc func(in RefInput) ([]byte, error)

// VerifyFunc checks a buffer's final contents itself (with its own
// tolerances) and returns an error describing the mismatches.
type VerifyFunc func(in RefInput, got []byte) error

// GenOutput is what an input generator makes: named buffers (device bytes)
// and named scalars.
type GenOutput struct {
	Buffers map[string][]byte
	Scalars map[string]float64
}

// GenFunc is an input generator: it builds inputs from the arguments a
// launch spec gives (inputs: [{name, generator, args}]).
type GenFunc func(args map[string]string) (GenOutput, error)

// Registry holds the Go functions a launch spec may name: references and
// verifiers for checks, generators for inputs. It is an explicit value
// passed by the caller (there is no global registry); the zero value has
// none. SampleRegistry returns the one for the bundled samples.
type Registry struct {
	Refs       map[string]RefFunc
	Verify     map[string]VerifyFunc
	Generators map[string]GenFunc
}

// Prepared is a launch spec bound to a device: inputs generated, buffers,
// textures and constants set up, and (single-launch form) the kernel ready
// to run. Run executes it (all steps of the multi-launch form).
type Prepared struct {
	Spec    *Spec
	Kernel  *Kernel // single-launch form; nil for steps
	Dev     *Device
	Buffers []*Buffer
	Trace   *Alloc // the trace buffer of the single launch of an instrumented kernel, or nil
	scalars map[string]float64
	byName  map[string]*Buffer
	vars    map[string]value
	inputs  map[string]GenOutput
	prog    *Program
	opts    PrepareOptions
	consts  []byte
	globals []uint64
	texs    []*TexBinding
	codes   map[string]*Code
	man     *manifest.Manifest
	extra   map[string][]byte // texture and constant data by name (RefInput)
}

// PrepareOptions configure Prepare.
type PrepareOptions struct {
	BaseDir  string             // relative file names in the spec are resolved here
	Manifest *manifest.Manifest // instrumented kernel: allocate and pass the trace buffer
	NumSMs   int
	Registry Registry // generators named by the spec's inputs
	// GPU sizes the shared staging of instrumented kernels
	// (instrument.PlanStaging); nil: global staging.
	GPU *model.Spec
}

// Prepare sets up the spec's device and, for the single-launch form,
// lowers its kernel from prog and packs the launch.
func (s *Spec) Prepare(prog *Program, o PrepareOptions) (*Prepared, error) {
	dev := NewDevice()
	p := &Prepared{Spec: s, Dev: dev, scalars: map[string]float64{}, byName: map[string]*Buffer{},
		vars: map[string]value{}, inputs: map[string]GenOutput{}, prog: prog, opts: o,
		codes: map[string]*Code{}, man: o.Manifest, extra: map[string][]byte{}}
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
	cb := append([]byte(nil), prog.constInit...)
	for _, c := range s.Constants {
		off, ok := prog.constOff[c.Name]
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
		if off+len(data) > len(cb) {
			return nil, fmt.Errorf("constants %s: %d bytes do not fit the symbol", c.Name, len(data))
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
	data, err := p.fill(b.Init, t, count, p.opts.BaseDir)
	if err != nil {
		return nil, err
	}
	size := max(len(data), b.Size, count*es)
	al := p.Dev.Alloc(name, size)
	copy(al.Data, data)
	buf := &Buffer{Name: name, Param: param, Type: t, Alloc: al, Initial: append([]byte(nil), al.Data...), Output: b.Output}
	p.Buffers = append(p.Buffers, buf)
	p.byName[name] = buf
	return buf, nil
}

// fill resolves init: from: INPUT.BUFFER, then the other init kinds.
func (p *Prepared) fill(in *InitSpec, t string, count int, baseDir string) ([]byte, error) {
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
	return append([]byte(nil), b...), nil
}

// code lowers (once) the named kernel and marks its probes.
func (p *Prepared) code(name string) (*Code, *manifest.Kernel, error) {
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
func (p *Prepared) newKernel(ls *LaunchStep, grid, block [3]int, dynShared int) (*Kernel, *Alloc, error) {
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
	var tr *Alloc
	stageParam := -1 // ptxtrace staging: index of __pt_stage_off (__pt_stage_recs follows)
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
				stageParam = i // ptxtrace staging: filled below
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
	launch := Launch{Code: code, Grid: grid, Block: block, DynShared: dynShared,
		Params: params, Const: p.consts, Dev: p.Dev, Globals: p.globals, Textures: p.texs, NumSMs: p.opts.NumSMs,
		MaxWarpInsts: p.Spec.MaxWarpInsts, RegsPerThread: p.Spec.RegsPerThread}
	k, err := NewKernel(launch)
	if err != nil {
		return nil, nil, err
	}
	// ptxtrace staging (instrument.PlanStaging): BEGIN — size the shared
	// staging for this launch and GPU, pass offset and records, add the
	// bytes to the dynamic shared memory (records 0 = global staging).
	if stageParam >= 0 && p.opts.GPU != nil {
		plan, err := instrument.PlanStaging(stagingArch(p.opts.GPU), k.ThreadsPerCTA(), k.RegsPerThread(),
			code.SharedStatic, dynShared, p.man.Buffer.RecordsPerWarp, mk.Staging.Requested != "shared")
		if err != nil {
			return nil, nil, fmt.Errorf("kernel %s: staging: %v", ls.Kernel, err)
		}
		if plan.Records > 0 {
			po, pr := code.Params[stageParam], code.Params[stageParam+1]
			putLE(params[po.Offset:po.Offset+po.Size], 4, uint64(plan.Offset))
			putLE(params[pr.Offset:pr.Offset+pr.Size], 4, uint64(plan.Records))
			launch.DynShared = plan.DynamicShared(dynShared)
			if k, err = NewKernel(launch); err != nil {
				return nil, nil, err
			}
		}
	}
	// ptxtrace staging: END
	return k, tr, nil
}

// texHandleBase is the value of the first texture object handle.
const texHandleBase = 1

// traceBuffer allocates the raw trace buffer of docs/buffer.md and writes
// its header.
func (p *Prepared) traceBuffer(m *manifest.Manifest, grid, block [3]int) (*Alloc, error) {
	b := m.Buffer
	nt := block[0] * block[1] * block[2]
	wpc := (nt + 31) / 32
	segs := grid[0] * grid[1] * grid[2] * wpc
	segBytes := b.SegmentBytes
	if segBytes == 0 {
		segBytes = manifest.SegmentHeaderBytes + b.RecordsPerWarp*manifest.RecordBytes
	}
	size := manifest.HeaderBytes + segs*segBytes
	if size > 1<<31 {
		return nil, fmt.Errorf("trace buffer of %d bytes is too large", size)
	}
	al := p.Dev.Alloc("__trace", size)
	h := al.Data
	copy(h[0:8], "PTXTRACE")
	binary.LittleEndian.PutUint32(h[8:], manifest.LayoutVersion)
	binary.LittleEndian.PutUint32(h[12:], manifest.HeaderBytes)
	binary.LittleEndian.PutUint32(h[16:], uint32(segBytes))
	binary.LittleEndian.PutUint32(h[20:], uint32(b.RecordsPerWarp))
	binary.LittleEndian.PutUint32(h[24:], manifest.RecordBytes)
	binary.LittleEndian.PutUint32(h[28:], uint32(segs))
	binary.LittleEndian.PutUint32(h[32:], uint32(b.TimerCode))
	binary.LittleEndian.PutUint32(h[36:], uint32(wpc))
	if id, err := hex.DecodeString(m.InstrumentationID); err == nil && len(id) == 8 {
		copy(h[40:48], id)
	}
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
// the order they were first launched), each once.
func (p *Prepared) Warnings() []string {
	var out []string
	seen := map[string]bool{}
	names := make([]string, 0, len(p.codes))
	for n := range p.codes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, w := range p.codes[n].Warnings {
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

// CheckResult is the outcome of one check.
type CheckResult struct {
	Buffer     string
	Against    string
	OK         bool
	Mismatches int
	First      int     // first mismatching element, -1 when none
	MaxAbs     float64 // largest absolute difference
	Msg        string
}

// Check runs the spec's checks against the buffers' current contents.
// Reference names are looked up in reg.
func (p *Prepared) Check(reg Registry, baseDir string) []CheckResult {
	var out []CheckResult
	for _, c := range p.Spec.Checks {
		r := CheckResult{Buffer: c.Buffer, First: -1}
		b := p.byName[c.Buffer]
		if b == nil {
			r.Msg = "no buffer named " + c.Buffer
			out = append(out, r)
			continue
		}
		var want []byte
		var err error
		if c.File != "" {
			r.Against = c.File
			want, err = os.ReadFile(resolvePath(baseDir, c.File))
		} else {
			r.Against = "reference " + c.Reference
			in := p.RefInput()
			if v := reg.Verify[c.Reference]; v != nil {
				if err := v(in, b.Alloc.Data); err != nil {
					r.Msg = err.Error()
					r.Mismatches = 1
				} else {
					r.OK = true
					r.Msg = "matches the reference within its tolerance"
				}
				out = append(out, r)
				continue
			}
			f := reg.Refs[c.Reference]
			if f == nil {
				err = fmt.Errorf("no reference %q registered", c.Reference)
			} else {
				want, err = f(in)
			}
		}
		if err != nil {
			r.Msg = err.Error()
			out = append(out, r)
			continue
		}
		compareBuf(&r, b.Alloc.Data, want, b.Type, c.Abs, c.Rel)
		out = append(out, r)
	}
	return out
}

func compareBuf(r *CheckResult, got, want []byte, t string, abs, rel float64) {
	es, _ := elemSize(t)
	if len(want) != len(got) {
		r.Msg = fmt.Sprintf("size differs: buffer %d bytes, expected %d", len(got), len(want))
		return
	}
	n := len(got) / es
	for i := 0; i < n; i++ {
		g := decodeElem(got[i*es:], t)
		w := decodeElem(want[i*es:], t)
		d := math.Abs(g - w)
		if g != g && w != w {
			d = 0
		}
		ok := d == 0
		if !ok && isFloatElem(t) {
			ok = d <= abs || d <= rel*math.Abs(w)
		}
		if d > r.MaxAbs || d != d {
			r.MaxAbs = d
		}
		if !ok {
			if r.Mismatches == 0 {
				r.First = i
				r.Msg = fmt.Sprintf("element %d: got %v, want %v", i, g, w)
			}
			r.Mismatches++
		}
	}
	r.OK = r.Mismatches == 0
	if r.OK {
		r.Msg = fmt.Sprintf("%d elements match", n)
	}
}
