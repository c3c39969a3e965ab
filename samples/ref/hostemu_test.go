package ref

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tests in this file cross-check the Go references against the CUDA
// sources themselves: ../testdata/refcheck/refcheck.cc compiles every sample's
// .cu as host C++ over ../testdata/hostemu/emu.h (one std::thread per CUDA
// thread), reads inputs written here, runs the host loop, and writes the
// outputs back, which are compared with the references' tolerances.

// buildRefcheck compiles the driver once into dir, or skips the test when no
// C++20 compiler is installed.
func buildRefcheck(t *testing.T, dir string) string {
	t.Helper()
	var cxx string
	for _, c := range []string{os.Getenv("CXX"), "clang++-14", "clang++", "g++"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			cxx = p
			break
		}
	}
	if cxx == "" {
		t.Skip("no C++ compiler (clang++-14, clang++ or g++) found: skipping the hostemu cross-check")
	}
	src, err := filepath.Abs("../testdata/refcheck/refcheck.cc")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "refcheck")
	cmd := exec.Command(cxx, "-std=c++20", "-O1", "-pthread", "-Wno-everything", src, "-o", bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot build refcheck with %s (needs C++20 <barrier>): %v\n%s", cxx, err, out)
	}
	return bin
}

type emuRun struct {
	t   *testing.T
	bin string
	dir string
}

func (r emuRun) write(name string, data any) {
	r.t.Helper()
	f, err := os.Create(filepath.Join(r.dir, name+".bin"))
	if err != nil {
		r.t.Fatal(err)
	}
	if err := binary.Write(f, binary.LittleEndian, data); err != nil {
		r.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		r.t.Fatal(err)
	}
}

func (r emuRun) run(kernel string, args ...any) {
	r.t.Helper()
	s := []string{kernel, r.dir}
	for _, a := range args {
		s = append(s, fmt.Sprint(a))
	}
	out, err := exec.Command(r.bin, s...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("refcheck %s: %v\n%s", strings.Join(s, " "), err, out)
	}
}

func read[T any](r emuRun, name string) []T {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "out_"+name+".bin"))
	if err != nil {
		r.t.Fatal(err)
	}
	var zero T
	out := make([]T, len(b)/binary.Size(zero))
	if err := binary.Read(strings.NewReader(string(b)), binary.LittleEndian, out); err != nil {
		r.t.Fatal(err)
	}
	return out
}

// f32 formats a float32 scalar so that atof reads back the same value.
func f32(v float32) string { return fmt.Sprintf("%.9g", v) }

func TestHostEmuCrossCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the C++ host emulation (about 15 s)")
	}
	bin := buildRefcheck(t, t.TempDir())
	newRun := func(t *testing.T) emuRun { return emuRun{t: t, bin: bin, dir: t.TempDir()} }

	t.Run("vecadd", func(t *testing.T) {
		r := newRun(t)
		in := VecAddInputs(1000, 1)
		r.write("a", in.A)
		r.write("b", in.B)
		r.run("vecadd", in.N)
		if err := Compare(read[float32](r, "c"), VecAdd(in)); err != nil {
			t.Error(err)
		}
	})
	t.Run("matmul", func(t *testing.T) {
		r := newRun(t)
		in := MatMulInputs(37, 29, 45, 2)
		r.write("A", in.A)
		r.write("B", in.B)
		r.run("matmul", in.M, in.N, in.K)
		if err := Compare(read[float32](r, "C"), MatMul(in)); err != nil {
			t.Error(err)
		}
	})
	t.Run("reduce", func(t *testing.T) {
		in := ReduceInputs(5000, 3)
		for _, l := range [][3]int{{1, 256, 32}, {7, 96, 32}, {3, 32, 64}, {40, 64, 32}} {
			r := newRun(t)
			r.write("in", in.In)
			r.run("reduce", len(in.In), l[0], l[1], l[2])
			want := Reduce(in)
			want.Tol = ReduceLaunchTolerance(len(in.In), l[0], l[1], l[2])
			got := read[float32](r, "out")
			if err := Compare(got, want); err != nil {
				t.Errorf("grid %d block %d final block %d: %v", l[0], l[1], l[2], err)
			}
			// the summation order is fixed: the same bits as the Go emulation of that order
			wantP, wantOut := ReduceFixedOrder(in.In, l[0], l[1], l[2])
			gotP := read[float32](r, "partials")
			if len(got) != 1 || math.Float32bits(got[0]) != math.Float32bits(wantOut) || !slices.Equal(gotP, wantP) {
				t.Errorf("grid %d block %d final block %d: out %v partials %v, fixed order gives %v %v",
					l[0], l[1], l[2], got, gotP, wantOut, wantP)
			}
		}
	})
	t.Run("nn", func(t *testing.T) {
		r := newRun(t)
		in := NNInputs(300, 4)
		r.write("locations", in.Locations)
		r.run("nn", in.N, f32(in.Lat), f32(in.Lng))
		if err := Compare(read[float32](r, "distances"), NN(in)); err != nil {
			t.Error(err)
		}
	})
	t.Run("pathfinder", func(t *testing.T) {
		for _, cols := range []int{1, 256, 257, 700} {
			r := newRun(t)
			in := PathfinderInputs(6, cols, 7)
			r.write("wall", in.Wall)
			r.run("pathfinder", in.Rows, in.Cols)
			if err := CompareInts(read[int32](r, "result"), Pathfinder(in)); err != nil {
				t.Errorf("cols %d: %v", cols, err)
			}
		}
	})
	t.Run("bfs", func(t *testing.T) {
		r := newRun(t)
		in := BFSInputs(500, 2, 5)
		r.write("row_offsets", in.RowOffsets)
		r.write("col_indices", in.ColIndices)
		r.run("bfs", in.NumNodes, in.Src)
		want := BFSFinalState(in)
		for _, c := range []struct {
			name string
			want []int32
		}{{"cost", want.Cost}, {"visited", want.Visited}, {"frontier", want.Frontier}, {"next", want.Next}} {
			if err := CompareInts(read[int32](r, c.name), c.want); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
		if it := read[int32](r, "iters")[0]; int(it) != BFSLevels(in) {
			t.Errorf("host loop ran %d iterations, want %d", it, BFSLevels(in))
		}
	})
	t.Run("hotspot", func(t *testing.T) {
		r := newRun(t)
		in := HotspotInputs(37, 21, 6)
		const steps = 5
		r.write("power", in.Power)
		r.write("temp", in.Temp)
		r.run("hotspot", in.Rows, in.Cols, steps, f32(in.Cx), f32(in.Cy), f32(in.Cz), f32(in.StepDivCap), f32(in.AmbTemp))
		if err := Compare(read[float32](r, "temp"), Hotspot(in, steps)); err != nil {
			t.Error(err)
		}
	})
	t.Run("lud", func(t *testing.T) {
		for _, n := range []int{16, 48} {
			r := newRun(t)
			in := DenseInputs(n, 9)
			r.write("a", in.A)
			r.run("lud", n)
			if err := Compare(read[float32](r, "a"), LUD(in)); err != nil {
				t.Errorf("n %d: %v", n, err)
			}
		}
	})
	t.Run("gaussian", func(t *testing.T) {
		r := newRun(t)
		in := DenseInputs(20, 8)
		r.write("a", in.A)
		r.write("b", in.B)
		r.run("gaussian", in.Size)
		want := Gaussian(in)
		for _, c := range []struct {
			name string
			want Floats
		}{{"a", want.A}, {"b", want.B}, {"m", want.M}} {
			if err := Compare(read[float32](r, c.name), c.want); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
	})
	t.Run("volrender", func(t *testing.T) {
		const n, w, h = 32, 40, 32
		tf := TransferFunction()
		var flat []float32
		for _, e := range tf {
			flat = append(flat, e[:]...)
		}
		for _, kind := range VolumeKinds() {
			vol, err := Volume(kind, n, 11)
			if err != nil {
				t.Fatal(err)
			}
			for _, view := range [][3]float64{{0, 0, 0}, {90, 0, 90}, {30, 45, 10}} {
				p := DefaultRenderParams(w, h, view[0], view[1], view[2])
				want, err := Render(vol, n, tf, p)
				if err != nil {
					t.Fatal(err)
				}
				for quant, qname := range []string{"exact", "round-1/256", "trunc-1/256"} {
					r := newRun(t)
					r.write("volume", vol)
					r.write("transfer", flat)
					r.write("view", p.View[:])
					r.run("volrender", w, h, f32(p.Density), f32(p.Brightness), f32(p.TransferOffset),
						f32(p.TransferScale), quant, n, 16, 8)
					got := read[uint32](r, "image")
					dev := maxDeviation(got, want.Want)
					t.Logf("%s view %v %s filtering: max |got−want| per channel %v, max tolerance %v",
						kind, view, qname, dev, want.MaxTol())
					if err := CompareRGBA8(got, want); err != nil {
						t.Errorf("%s view %v %s: %v", kind, view, qname, err)
					}
				}
			}
		}
	})
}

// maxDeviation returns the largest per-channel difference between two RGBA8 images.
func maxDeviation(a, b []uint32) [4]int {
	var m [4]int
	for i := range a {
		for c := range 4 {
			d := int(a[i]>>(8*c)&255) - int(b[i]>>(8*c)&255)
			m[c] = max(m[c], int(math.Abs(float64(d))))
		}
	}
	return m
}
