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
	"strings"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
	"gopkg.in/yaml.v3"
)

// Spec is a launch spec (docs/launch.md): which kernel, the geometry, every
// parameter, textures, constant symbols and output checks.
type Spec struct {
	Kernel        string      `yaml:"kernel"`
	Grid          []int       `yaml:"grid"`
	Block         []int       `yaml:"block"`
	DynamicShared int         `yaml:"dynamic_shared,omitempty"`
	MaxWarpInsts  uint64      `yaml:"max_warp_insts,omitempty"`
	Params        []ParamSpec `yaml:"params"`
	Textures      []TexSpec   `yaml:"textures,omitempty"`
	Constants     []ConstSpec `yaml:"constants,omitempty"`
	Checks        []CheckSpec `yaml:"checks,omitempty"`
}

// ParamSpec is one kernel parameter: exactly one of Value, Buffer, Texture.
type ParamSpec struct {
	Name    string      `yaml:"name,omitempty"`
	Value   yaml.Node   `yaml:"value,omitempty"`
	Buffer  *BufferSpec `yaml:"buffer,omitempty"`
	Texture string      `yaml:"texture,omitempty"` // a texture object: the name of a textures entry
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
	Init       *InitSpec `yaml:"init,omitempty"`
	Generator  string    `yaml:"generator,omitempty"` // sphere, noise, gradient, ramp
	Seed       uint64    `yaml:"seed,omitempty"`
}

// ConstSpec sets a __constant__ symbol.
type ConstSpec struct {
	Name   string    `yaml:"name"`
	Type   string    `yaml:"type"`
	Values []float64 `yaml:"values,omitempty"`
	File   string    `yaml:"file,omitempty"`
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
	for i, p := range s.Params {
		n := 0
		if p.Value.Kind != 0 {
			n++
		}
		if p.Buffer != nil {
			n++
			if err := p.Buffer.validate(); err != nil {
				return fmt.Errorf("params[%d]: %v", i, err)
			}
		}
		if p.Texture != "" {
			n++
		}
		if n != 1 {
			return fmt.Errorf("params[%d]: exactly one of value, buffer, texture", i)
		}
	}
	for i, t := range s.Textures {
		if t.Name == "" {
			return fmt.Errorf("textures[%d]: name missing", i)
		}
		if t.Dims < 1 || t.Dims > 3 || t.Width <= 0 || t.Width > 1<<16 || t.Height > 1<<16 || t.Depth > 1<<12 || t.Height < 0 || t.Depth < 0 {
			return fmt.Errorf("textures[%d]: bad geometry", i)
		}
	}
	for i, c := range s.Checks {
		if c.Buffer == "" || (c.File == "") == (c.Reference == "") {
			return fmt.Errorf("checks[%d]: needs buffer and exactly one of file, reference", i)
		}
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
	if b.Count == 0 && b.Size == 0 && (b.Init == nil || b.Init.File == "" && b.Init.Values == nil) {
		return fmt.Errorf("buffer needs count or size")
	}
	_ = es
	if in := b.Init; in != nil {
		n := 0
		for _, set := range []bool{in.Zeros, in.Const != nil, in.Ramp != nil, in.Random != nil, in.File != "", in.Values != nil} {
			if set {
				n++
			}
		}
		if n > 1 {
			return fmt.Errorf("init: at most one of zeros, const, ramp, random, file, values")
		}
	}
	return nil
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
// initial contents of every buffer by name, and the scalar parameters by
// name.
type RefInput struct {
	Spec    *Spec
	Buffers map[string][]byte
	Scalars map[string]float64
}

// RefFunc computes the expected contents of a checked buffer.
type RefFunc func(in RefInput) ([]byte, error)

// Registry maps reference names to functions. Samples register their
// references in a Registry value they pass explicitly.
type Registry map[string]RefFunc

// Prepared is a launch spec bound to a device: buffers allocated and
// initialised, parameters packed, the kernel ready to run.
type Prepared struct {
	Spec    *Spec
	Kernel  *Kernel
	Dev     *Device
	Buffers []*Buffer
	Trace   *Alloc // the trace buffer of an instrumented kernel, or nil
	scalars map[string]float64
	byName  map[string]*Buffer
}

// PrepareOptions configure Prepare.
type PrepareOptions struct {
	BaseDir  string             // relative file names in the spec are resolved here
	Manifest *manifest.Manifest // instrumented kernel: allocate and pass the trace buffer
	NumSMs   int
}

// Prepare lowers the spec's kernel from prog and sets up a launch.
func (s *Spec) Prepare(prog *Program, o PrepareOptions) (*Prepared, error) {
	code, err := prog.Lower(s.Kernel)
	if err != nil {
		return nil, err
	}
	grid, _ := dim3(s.Grid, "grid")
	block, _ := dim3(s.Block, "block")
	dev := NewDevice()
	globals := dev.LoadModule(prog)
	p := &Prepared{Spec: s, Dev: dev, scalars: map[string]float64{}, byName: map[string]*Buffer{}}
	params := make([]byte, code.ParamSize)
	var mk *manifest.Kernel
	added := map[int]manifest.Param{}
	if o.Manifest != nil {
		mk = o.Manifest.Kernel(s.Kernel)
		if mk == nil {
			return nil, fmt.Errorf("manifest has no kernel %s", s.Kernel)
		}
		for _, pa := range mk.ParamsAdded {
			added[pa.Index] = pa
		}
	}
	want := len(code.Params) - len(added)
	if len(s.Params) != want {
		return nil, fmt.Errorf("kernel %s has %d parameters, the launch spec gives %d", s.Kernel, want, len(s.Params))
	}
	texByName := map[string]int{}
	for i, t := range s.Textures {
		texByName[t.Name] = i
	}
	si := 0
	for i, pi := range code.Params {
		dst := params[pi.Offset : pi.Offset+pi.Size]
		if pa, ok := added[i]; ok {
			switch pa.Host {
			case manifest.HostTraceBuffer:
				tb, err := p.traceBuffer(o.Manifest, code, grid, block)
				if err != nil {
					return nil, err
				}
				putLE(dst, min(pi.Size, 8), tb.Base)
			default:
				// dummy = 0
			}
			continue
		}
		ps := s.Params[si]
		si++
		name := ps.Name
		if name == "" {
			name = fmt.Sprintf("param%d", si-1)
		}
		switch {
		case ps.Buffer != nil:
			b := ps.Buffer
			t := b.elemType()
			es, _ := elemSize(t)
			count := b.Count
			if count == 0 && b.Size > 0 {
				count = (b.Size + es - 1) / es
			}
			data, err := b.Init.fill(t, count, o.BaseDir)
			if err != nil {
				return nil, fmt.Errorf("params[%d] (%s): %v", si-1, name, err)
			}
			size := max(len(data), b.Size, count*es)
			al := dev.Alloc(name, size)
			copy(al.Data, data)
			buf := &Buffer{Name: name, Param: si - 1, Type: t, Alloc: al, Initial: append([]byte(nil), al.Data...), Output: b.Output}
			p.Buffers = append(p.Buffers, buf)
			p.byName[name] = buf
			putLE(dst, min(pi.Size, 8), al.Base)
		case ps.Texture != "":
			ti, ok := texByName[ps.Texture]
			if !ok {
				return nil, fmt.Errorf("params[%d]: no texture %q", si-1, ps.Texture)
			}
			putLE(dst, min(pi.Size, 8), uint64(texHandleBase+ti))
		default:
			v, err := scalarBits(&ps.Value, pi.Type, pi.Size)
			if err != nil {
				return nil, fmt.Errorf("params[%d] (%s): %v", si-1, name, err)
			}
			putLE(dst, min(pi.Size, 8), v)
			var f float64
			_ = ps.Value.Decode(&f)
			p.scalars[name] = f
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
		data, err := (&InitSpec{Values: c.Values, File: c.File}).fill(t, 0, o.BaseDir)
		if err != nil {
			return nil, err
		}
		if off+len(data) > len(cb) {
			return nil, fmt.Errorf("constants %s: %d bytes do not fit the symbol", c.Name, len(data))
		}
		copy(cb[off:], data)
	}
	texs, err := s.buildTextures(prog, o.BaseDir)
	if err != nil {
		return nil, err
	}
	if mk != nil {
		for _, pr := range mk.Probes {
			code.SetProbe(pr.OutLine, int(pr.ID))
		}
	}
	k, err := NewKernel(Launch{Code: code, Grid: grid, Block: block, DynShared: s.DynamicShared,
		Params: params, Const: cb, Dev: dev, Globals: globals, Textures: texs, NumSMs: o.NumSMs,
		MaxWarpInsts: s.MaxWarpInsts})
	if err != nil {
		return nil, err
	}
	p.Kernel = k
	return p, nil
}

// texHandleBase is the value of the first texture object handle.
const texHandleBase = 1

// traceBuffer allocates the raw trace buffer of docs/buffer.md and writes
// its header.
func (p *Prepared) traceBuffer(m *manifest.Manifest, code *Code, grid, block [3]int) (*Alloc, error) {
	if p.Trace != nil {
		return p.Trace, nil
	}
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
	p.Trace = al
	return al, nil
}

// scalarBits encodes a scalar parameter value for a parameter of type t.
func scalarBits(n *yaml.Node, t ptx.Type, size int) (uint64, error) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("value must be a scalar")
	}
	if t == ptx.F32 || t == ptx.F64 {
		var f float64
		if err := n.Decode(&f); err != nil {
			return 0, err
		}
		if t == ptx.F32 {
			return uint64(math.Float32bits(float32(f))), nil
		}
		return math.Float64bits(f), nil
	}
	var i int64
	if err := n.Decode(&i); err == nil {
		return uint64(i), nil
	}
	var u uint64
	if err := n.Decode(&u); err == nil {
		return u, nil
	}
	var f float64
	if err := n.Decode(&f); err == nil && f == math.Trunc(f) {
		return uint64(int64(f)), nil
	}
	return 0, fmt.Errorf("value %q is not an integer for a %s parameter", n.Value, t)
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
			f := reg[c.Reference]
			if f == nil {
				err = fmt.Errorf("no reference %q registered", c.Reference)
			} else {
				in := RefInput{Spec: p.Spec, Buffers: map[string][]byte{}, Scalars: p.scalars}
				for _, bb := range p.Buffers {
					in.Buffers[bb.Name] = bb.Initial
				}
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
