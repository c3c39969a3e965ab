package replay

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// Go references for the samples, written from the kernels' documented
// semantics (samples/README.md), independently of replay. Tolerances are
// in each launch.yaml: exact for integers; for floats they allow the FMA
// contractions nvcc makes (matmul, hotspot, nn: a few ulps) and the
// summation order of reduce.

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func f32bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

func i32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func i32bytes(v []int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}

func sampleRefs() Registry {
	return Registry{
		"vecadd": func(in RefInput) ([]byte, error) {
			a, b := f32s(in.Buffers["a"]), f32s(in.Buffers["b"])
			c := make([]float32, len(a))
			for i := range c {
				c[i] = a[i] + b[i]
			}
			return f32bytes(c), nil
		},
		"matmul": func(in RefInput) ([]byte, error) {
			M, N, K := int(in.Scalars["M"]), int(in.Scalars["N"]), int(in.Scalars["K"])
			A, B := f32s(in.Buffers["A"]), f32s(in.Buffers["B"])
			C := make([]float32, M*N)
			for i := 0; i < M; i++ {
				for j := 0; j < N; j++ {
					var s float64
					for k := 0; k < K; k++ {
						s += float64(A[i*K+k]) * float64(B[k*N+j])
					}
					C[i*N+j] = float32(s)
				}
			}
			return f32bytes(C), nil
		},
		"reduce": func(in RefInput) ([]byte, error) {
			var s float64
			for _, x := range f32s(in.Buffers["in"]) {
				s += float64(x)
			}
			return f32bytes([]float32{float32(s)}), nil
		},
		"nn": func(in RefInput) ([]byte, error) {
			loc := f32s(in.Buffers["locations"])
			lat, lng := in.Scalars["lat"], in.Scalars["lng"]
			d := make([]float32, len(loc)/2)
			for i := range d {
				x, y := lat-float64(loc[2*i]), lng-float64(loc[2*i+1])
				d[i] = float32(math.Sqrt(x*x + y*y))
			}
			return f32bytes(d), nil
		},
		"pathfinder": func(in RefInput) ([]byte, error) {
			wall, prev := i32s(in.Buffers["wall_row"]), i32s(in.Buffers["prev"])
			n := len(prev)
			dst := make([]int32, n)
			for i := 0; i < n; i++ {
				best := prev[i]
				if i > 0 && prev[i-1] < best {
					best = prev[i-1]
				}
				if i+1 < n && prev[i+1] < best {
					best = prev[i+1]
				}
				dst[i] = wall[i] + best
			}
			return i32bytes(dst), nil
		},
		"hotspot": func(in RefInput) ([]byte, error) {
			P, T := f32s(in.Buffers["power"]), f32s(in.Buffers["temp_in"])
			rows, cols := int(in.Scalars["rows"]), int(in.Scalars["cols"])
			cx, cy, cz := in.Scalars["cx"], in.Scalars["cy"], in.Scalars["cz"]
			sdc, amb := in.Scalars["step_div_cap"], in.Scalars["amb_temp"]
			at := func(r, c int) float64 {
				r = max(0, min(rows-1, r))
				c = max(0, min(cols-1, c))
				return float64(T[r*cols+c])
			}
			out := make([]float32, rows*cols)
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					t := at(r, c)
					v := t + sdc*(float64(P[r*cols+c])+(at(r-1, c)+at(r+1, c)-2*t)*cy+(at(r, c+1)+at(r, c-1)-2*t)*cx+(amb-t)*cz)
					out[r*cols+c] = float32(v)
				}
			}
			return f32bytes(out), nil
		},
		"gaussian_fan1": func(in RefInput) ([]byte, error) {
			a := f32s(in.Buffers["a"])
			m := f32s(in.Buffers["m"])
			size, t := int(in.Scalars["size"]), int(in.Scalars["t"])
			for r := t + 1; r < size; r++ {
				m[r*size+t] = a[r*size+t] / a[t*size+t]
			}
			return f32bytes(m), nil
		},
	}
}

// runSampleSpec runs replay/testdata/samples/NAME/launch.yaml on the
// sample's sm_52 PTX.
func runSampleSpec(t testing.TB, name, ptxName string, workers int) *Prepared {
	t.Helper()
	dir := filepath.Join("testdata", "samples", name)
	b, err := os.ReadFile(filepath.Join(dir, "launch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ParseSpec(b)
	if err != nil {
		t.Fatal(err)
	}
	prog := loadPTX(t, filepath.Join("..", "samples", ptxName, ptxName+".sm_52.ptx"))
	prep, err := spec.Prepare(prog, PrepareOptions{BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prep.Kernel.Run(context.Background(), RunOptions{Workers: workers}); err != nil {
		t.Fatal(err)
	}
	return prep
}

func TestSamples(t *testing.T) {
	reg := sampleRefs()
	for _, name := range []string{"vecadd", "matmul", "reduce", "nn", "pathfinder", "hotspot", "gaussian"} {
		t.Run(name, func(t *testing.T) {
			prep := runSampleSpec(t, name, name, 0)
			for _, r := range prep.Check(reg, filepath.Join("testdata", "samples", name)) {
				if !r.OK {
					t.Errorf("check %s: %s (%d mismatches, max abs diff %g)", r.Buffer, r.Msg, r.Mismatches, r.MaxAbs)
				} else {
					t.Logf("check %s: %s", r.Buffer, fmt.Sprint(r.Msg))
				}
			}
		})
	}
}
