package ref

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Args are a generator's arguments as a launch spec writes them, e.g.
// {"n": "4096", "seed": "1"} or {"kind": "torus", "n": "128", "seed": "3"}.
type Args map[string]string

// Buffer is one generated input buffer in its device layout.
type Buffer struct {
	// Elem is the element type: "f32", "s32", "u8", "f32x2" (float2) or
	// "f32x4" (float4).
	Elem string
	// Dims are the extents, fastest-varying last for matrices (rows, cols)
	// and {n, n, n} = (z, y, x) for volumes.
	Dims []int
	// Data holds the elements, little-endian, tightly packed.
	Data []byte
}

// Inputs are a generator's results: buffers named after the kernel
// parameters (or the texture / __constant__ symbol) they feed, and scalar
// kernel arguments by parameter name.
type Inputs struct {
	Buffers map[string]Buffer
	Scalars map[string]float64
}

// Generator builds the inputs of one sample from Args.
type Generator struct {
	// Doc lists the arguments (with defaults) and the outputs.
	Doc  string
	Make func(Args) (Inputs, error)
}

// Generators returns the input generators by name, for launch specs. Each call
// returns a fresh map.
func Generators() map[string]Generator {
	return map[string]Generator{
		"vecadd": {"n, seed → a, b (f32[n]); n", func(a Args) (Inputs, error) {
			v, err := a.ints("n:1024", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			in := VecAddInputs(v[0], uint64(v[1]))
			return inputs(bufs("a", f32s(in.A, in.N), "b", f32s(in.B, in.N)), "n", in.N), nil
		}},
		"matmul": {"m, n, k, seed → A (f32[m][k]), B (f32[k][n]); M, N, K", func(a Args) (Inputs, error) {
			v, err := a.ints("m:64", "n:64", "k:64", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			if err := errors.Join(elems("m×k", v[0], v[2]), elems("k×n", v[2], v[1]), elems("m×n", v[0], v[1])); err != nil {
				return Inputs{}, err
			}
			in := MatMulInputs(v[0], v[1], v[2], uint64(v[3]))
			return inputs(bufs("A", f32s(in.A, in.M, in.K), "B", f32s(in.B, in.K, in.N)),
				"M", in.M, "N", in.N, "K", in.K), nil
		}},
		"reduce": {"n, seed → in (f32[n]); n (out: one zeroed f32)", func(a Args) (Inputs, error) {
			v, err := a.ints("n:4096", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			in := ReduceInputs(v[0], uint64(v[1]))
			return inputs(bufs("in", f32s(in.In, len(in.In)), "out", f32s([]float32{0}, 1)), "n", len(in.In)), nil
		}},
		"nn": {"n, seed → locations (f32x2[n]); n, lat, lng", func(a Args) (Inputs, error) {
			v, err := a.ints("n:4096", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			in := NNInputs(v[0], uint64(v[1]))
			b := f32s(in.Locations, in.N)
			b.Elem = "f32x2"
			return inputs(bufs("locations", b), "n", in.N, "lat", in.Lat, "lng", in.Lng), nil
		}},
		"pathfinder": {"rows, cols, seed → wall (s32[rows][cols]); rows, cols", func(a Args) (Inputs, error) {
			v, err := a.ints("rows:16", "cols:1024", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			in := PathfinderInputs(v[0], v[1], uint64(v[2]))
			return inputs(bufs("wall", s32s(in.Wall, in.Rows, in.Cols)), "rows", in.Rows, "cols", in.Cols), nil
		}},
		"bfs": {"n, degree, seed → row_offsets (s32[n+1]), col_indices (s32[e]), frontier, next, visited, cost (s32[n], initial state), changed (s32[1]); num_nodes, src", func(a Args) (Inputs, error) {
			v, err := a.ints("n:4096", "degree:3", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			in := BFSInputs(v[0], v[1], uint64(v[2]))
			s := in.InitialState()
			n := in.NumNodes
			return inputs(bufs("row_offsets", s32s(in.RowOffsets, n+1), "col_indices", s32s(in.ColIndices, len(in.ColIndices)),
				"frontier", s32s(s.Frontier, n), "next", s32s(s.Next, n), "visited", s32s(s.Visited, n),
				"cost", s32s(s.Cost, n), "changed", s32s([]int32{0}, 1)), "num_nodes", n, "src", in.Src), nil
		}},
		"hotspot": {"rows, cols, seed → power, temp_in (f32[rows][cols]); rows, cols, cx, cy, cz, step_div_cap, amb_temp", func(a Args) (Inputs, error) {
			v, err := a.ints("rows:64", "cols:64", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			if err := elems("rows×cols", v[0], v[1]); err != nil {
				return Inputs{}, err
			}
			in := HotspotInputs(v[0], v[1], uint64(v[2]))
			return inputs(bufs("power", f32s(in.Power, in.Rows, in.Cols), "temp_in", f32s(in.Temp, in.Rows, in.Cols)),
				"rows", in.Rows, "cols", in.Cols, "cx", in.Cx, "cy", in.Cy, "cz", in.Cz,
				"step_div_cap", in.StepDivCap, "amb_temp", in.AmbTemp), nil
		}},
		"lud": {"n (multiple of 16), seed → a (f32[n][n]); n", func(a Args) (Inputs, error) {
			v, err := a.ints("n:64", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			if err := elems("n×n", v[0], v[0]); err != nil {
				return Inputs{}, err
			}
			if v[0] <= 0 || v[0]%16 != 0 {
				return Inputs{}, fmt.Errorf("lud: n = %d is not a positive multiple of 16", v[0])
			}
			in := DenseInputs(v[0], uint64(v[1]))
			return inputs(bufs("a", f32s(in.A, in.Size, in.Size)), "n", in.Size), nil
		}},
		"gaussian": {"n, seed → a (f32[n][n]), b (f32[n]), m (f32[n][n], zeros); size", func(a Args) (Inputs, error) {
			v, err := a.ints("n:64", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			if err := elems("n×n", v[0], v[0]); err != nil {
				return Inputs{}, err
			}
			in := DenseInputs(v[0], uint64(v[1]))
			n := in.Size
			return inputs(bufs("a", f32s(in.A, n, n), "b", f32s(in.B, n), "m", f32s(make([]float32, n*n), n, n)),
				"size", n), nil
		}},
		"volume": {"kind (sphere|torus|noise), n, seed → volume (u8[n][n][n], 3D texture)", func(a Args) (Inputs, error) {
			kind := a["kind"]
			if kind == "" {
				kind = "sphere"
			}
			v, err := a.ints("kind:", "n:64", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			vol, err := Volume(kind, v[1], uint64(v[2]))
			if err != nil {
				return Inputs{}, err
			}
			return inputs(bufs("volume", Buffer{Elem: "u8", Dims: []int{v[1], v[1], v[1]}, Data: vol})), nil
		}},
		"transfer": {"→ transfer (f32x4[8], 1D texture, the default transfer function)", func(a Args) (Inputs, error) {
			if _, err := a.ints(); err != nil {
				return Inputs{}, err
			}
			tf := TransferFunction()
			var flat []float32
			for _, e := range tf {
				flat = append(flat, e[:]...)
			}
			b := f32s(flat, len(tf))
			b.Elem = "f32x4"
			return inputs(bufs("transfer", b)), nil
		}},
		"view": {"alpha, beta, gamma (degrees), distance (default 4) → c_invViewMatrix (f32[12]), see ViewMatrix", func(a Args) (Inputs, error) {
			v, err := a.floats("alpha:0", "beta:0", "gamma:0", "distance:4")
			if err != nil {
				return Inputs{}, err
			}
			m := ViewMatrix(v[0], v[1], v[2], v[3])
			return inputs(bufs("c_invViewMatrix", f32s(m[:], 12))), nil
		}},
	}
}

// ints parses the named integer arguments ("name:default"; an empty default
// means the argument is not numeric and is skipped) and rejects unknown names.
// MaxGenElems bounds the elements of any one generated buffer (2^28: 1 GiB
// of f32), checked before it is allocated.
const MaxGenElems = 1 << 28

// elems checks that a buffer of the product of dims elements stays within
// MaxGenElems; names describes the dimensions for the message.
func elems(names string, dims ...int) error {
	n := 1
	for _, d := range dims {
		if d > 0 && n > MaxGenElems/d {
			return fmt.Errorf("%s = %v gives more than %d elements", names, dims, MaxGenElems)
		}
		n *= d
	}
	if n > MaxGenElems {
		return fmt.Errorf("%s = %v gives more than %d elements", names, dims, MaxGenElems)
	}
	return nil
}

func (a Args) ints(spec ...string) ([]int, error) {
	f, err := a.floats(spec...)
	out := make([]int, len(f))
	for i, v := range f {
		name := strings.Split(spec[i], ":")[0]
		if v != math.Trunc(v) || v < 0 || v > 1<<31 {
			return nil, fmt.Errorf("argument %s = %s is not a non-negative integer", name, strconv.FormatFloat(v, 'f', -1, 64))
		}
		if name != "seed" && v > MaxGenElems {
			return nil, fmt.Errorf("argument %s = %s exceeds the limit of %d", name, strconv.FormatFloat(v, 'f', -1, 64), MaxGenElems)
		}
		out[i] = int(v)
	}
	return out, err
}

func (a Args) floats(spec ...string) ([]float64, error) {
	var names []string
	out := make([]float64, len(spec))
	for i, s := range spec {
		name, def, _ := strings.Cut(s, ":")
		names = append(names, name)
		if def == "" {
			continue
		}
		str, ok := a[name]
		if !ok {
			str = def
		}
		v, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %v", name, err)
		}
		out[i] = v
	}
	for k := range a {
		if !slices.Contains(names, k) {
			return nil, fmt.Errorf("unknown argument %q (have %v)", k, names)
		}
	}
	return out, nil
}

// f32s is v as a little-endian f32 buffer. The generators hand over v
// (they never touch it again): on a little-endian host its bytes are the
// buffer, with no copy and no fresh pages for a large input.
func f32s(v []float32, dims ...int) Buffer {
	if len(v) > 0 && binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
		return Buffer{Elem: "f32", Dims: dims, Data: unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))}
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return Buffer{Elem: "f32", Dims: dims, Data: b}
}

func s32s(v []int32, dims ...int) Buffer {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return Buffer{Elem: "s32", Dims: dims, Data: b}
}

// bufs builds a buffer map from name, Buffer pairs.
func bufs(kv ...any) map[string]Buffer {
	m := make(map[string]Buffer, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(Buffer)
	}
	return m
}

// inputs builds Inputs from buffers and name, number pairs.
func inputs(b map[string]Buffer, kv ...any) Inputs {
	s := make(map[string]float64, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case int:
			s[kv[i].(string)] = float64(v)
		case float32:
			s[kv[i].(string)] = float64(v)
		}
	}
	return Inputs{Buffers: b, Scalars: s}
}
