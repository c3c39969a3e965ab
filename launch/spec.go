package launch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptxtrace/ptxtrace/internal/bigbuf"
	"github.com/ptxtrace/ptxtrace/internal/fpx"
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
	// Transfers are copied in before and out after every launch, timed by
	// the transfer model (transfers.go).
	Transfers []CopySpec `yaml:"transfers,omitempty"`
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
	// TensorMap passes a by-value CUtensorMap (a 128-byte parameter) in
	// replay's encoding (replay.TensorMap), built over a named buffer.
	TensorMap *TensorMapSpec `yaml:"tensor_map,omitempty"`
}

// TensorMapSpec describes a tiled tensor over a buffer for TMA
// (cp.async.bulk.tensor): the element size is the buffer's element size.
type TensorMapSpec struct {
	Ref     string `yaml:"ref"`               // the buffer
	Dims    []int  `yaml:"dims"`              // elements per dimension, innermost first (1..5)
	Strides []int  `yaml:"strides,omitempty"` // byte strides of dimensions 1.. (default: packed rows, 16-byte aligned)
	Box     []int  `yaml:"box"`               // box elements per dimension
	Swizzle int    `yaml:"swizzle,omitempty"` // 0, 32, 64 or 128 bytes
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
		if x <= 0 {
			return out, fmt.Errorf("%s[%d] = %d must be positive", what, i, x)
		}
		if x > 1<<31-1 {
			return out, fmt.Errorf("%s[%d] = %d is over the CUDA limit of %d", what, i, x, 1<<31-1)
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
	if err := validateTransfers(s.Transfers); err != nil {
		return err
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
		if p.TensorMap != nil {
			n++
			if tm := p.TensorMap; tm.Ref == "" || len(tm.Dims) == 0 || len(tm.Dims) != len(tm.Box) || len(tm.Dims) > 5 ||
				(len(tm.Strides) != 0 && len(tm.Strides) != len(tm.Dims)-1) {
				return fmt.Errorf("%s[%d]: tensor_map needs ref, dims and box of the same rank (1..5), and rank-1 strides if any", where, i)
			}
		}
		if n != 1 {
			return fmt.Errorf("%s[%d]: exactly one of value, buffer, texture, ref, tensor_map", where, i)
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
		return fmt.Errorf("buffer count %d or size %d out of range (count 0 … 2^28 elements, size 0 … 2^30 bytes)", b.Count, b.Size)
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
		return readInitFile(resolvePath(baseDir, in.File), count, es)
	}
	if in != nil && in.Values != nil && count == 0 {
		count = len(in.Values)
	}
	out := bigbuf.Bytes(count * es)
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

// le reads an n-byte little-endian unsigned integer.
func le(b []byte, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// putLE writes the low n bytes of v little-endian.
func putLE(b []byte, n int, v uint64) {
	for i := 0; i < n; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

// sext sign-extends the low bits bits of v.
func sext(v uint64, bits uint8) uint64 {
	s := 64 - bits
	return uint64(int64(v<<s) >> s)
}

// maxInitFileBytes bounds an init file read without a count (the largest
// buffer a spec may declare, size: 1 GiB).
const maxInitFileBytes = 1 << 30

// readInitFile reads the initial bytes of a buffer from a regular file:
// exactly count elements of es bytes when count > 0 (a shorter file is an
// error, a longer one is read only that far), else the whole file, which
// must hold whole elements and at most maxInitFileBytes.
func readInitFile(path string, count, es int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("init file %s: not a regular file", path)
	}
	want := int64(count) * int64(es)
	if count <= 0 {
		want = fi.Size()
		if want > maxInitFileBytes {
			return nil, fmt.Errorf("init file %s: %d bytes, over the %d-byte buffer limit", path, want, maxInitFileBytes)
		}
		if want%int64(es) != 0 {
			return nil, fmt.Errorf("init file %s: %d bytes is not a whole number of %d-byte elements", path, want, es)
		}
	} else if fi.Size() < want {
		return nil, fmt.Errorf("init file %s: holds %d bytes, count %d needs %d", path, fi.Size(), count, want)
	}
	b := make([]byte, want)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("init file %s: %v", path, err)
	}
	return b, nil
}
