package ref

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// Hand-computed cases: every expected value below was worked out by hand
// from the kernel's definition, not by running the reference.

func floatsEqual(t *testing.T, name string, got Floats, want []float64) {
	t.Helper()
	if len(got.Want) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got.Want), len(want))
	}
	for i := range want {
		if math.Abs(got.Want[i]-want[i]) > 1e-12 {
			t.Errorf("%s[%d] = %v, want %v", name, i, got.Want[i], want[i])
		}
	}
}

func TestHandVecAdd(t *testing.T) {
	got := VecAdd(VecAddIn{A: []float32{1, 2, -0.25}, B: []float32{0.5, -2, 0.25}, N: 3})
	floatsEqual(t, "c", got, []float64{1.5, 0, 0})
	if err := Compare([]float32{1.5, 0, 0}, got); err != nil {
		t.Error(err)
	}
	if err := Compare([]float32{1.5, 0, math.Nextafter32(0, 1)}, got); err == nil {
		t.Error("vecadd tolerance must be exact")
	}
}

func TestHandMatMul(t *testing.T) {
	// [1 2; 3 4]·[5 6; 7 8] = [19 22; 43 50]
	got := MatMul(MatMulIn{A: []float32{1, 2, 3, 4}, B: []float32{5, 6, 7, 8}, M: 2, N: 2, K: 2})
	floatsEqual(t, "C", got, []float64{19, 22, 43, 50})
	// (2×3)·(3×1): [1 0 -1; 2 2 2]·[3 4 5]ᵀ = [-2 24]
	got = MatMul(MatMulIn{A: []float32{1, 0, -1, 2, 2, 2}, B: []float32{3, 4, 5}, M: 2, N: 1, K: 3})
	floatsEqual(t, "C", got, []float64{-2, 24})
	if got.Scale[0] != 8 || got.Scale[1] != 24 {
		t.Errorf("scale = %v, want [8 24] (Σ|a||b|)", got.Scale)
	}
}

func TestHandReduce(t *testing.T) {
	got := Reduce(ReduceIn{In: []float32{1, 2, 3, -0.5}})
	floatsEqual(t, "sum", got, []float64{5.5})
	if got.Scale[0] != 6.5 {
		t.Errorf("Σ|in| = %v, want 6.5", got.Scale[0])
	}
}

func TestHandNN(t *testing.T) {
	// query (3, 0): (0,0) is 3 away, (3,4) is 4 away, (0,4) is 5 away.
	got := NN(NNIn{Locations: []float32{0, 0, 3, 4, 0, 4}, N: 3, Lat: 3, Lng: 0})
	floatsEqual(t, "distances", got, []float64{3, 4, 5})
}

func TestHandPathfinder(t *testing.T) {
	// wall  1 2 3      row 1: 4+min(1,2)=5  0+min(1,2,3)=1  6+min(2,3)=8
	//       4 0 6      row 2: 7+min(5,1)=8  8+min(5,1,8)=9  1+min(1,8)=2
	//       7 8 1
	in := PathfinderIn{Wall: []int32{1, 2, 3, 4, 0, 6, 7, 8, 1}, Rows: 3, Cols: 3}
	if err := CompareInts(Pathfinder(in), []int32{8, 9, 2}); err != nil {
		t.Error(err)
	}
	if err := CompareInts(PathfinderStep([]int32{5}, []int32{7}), []int32{12}); err != nil {
		t.Error(err)
	}
}

func TestHandBFS(t *testing.T) {
	// 0→1, 0→2, 1→3, 2→3, 3→0, 4→0: node 4 is unreachable from 0.
	in := BFSIn{
		RowOffsets: []int32{0, 2, 3, 4, 5, 6},
		ColIndices: []int32{1, 2, 3, 3, 0, 0},
		NumNodes:   5,
	}
	if err := CompareInts(BFS(in), []int32{0, 1, 1, 2, -1}); err != nil {
		t.Error(err)
	}
	if n := BFSLevels(in); n != 3 {
		t.Errorf("levels = %d, want 3", n)
	}
	s := BFSFinalState(in)
	if err := CompareInts(s.Visited, []int32{1, 1, 1, 1, 0}); err != nil {
		t.Error(err)
	}
	init := in.InitialState()
	if err := CompareInts(init.Cost, []int32{0, -1, -1, -1, -1}); err != nil {
		t.Error(err)
	}
	if err := CompareInts(init.Frontier, []int32{1, 0, 0, 0, 0}); err != nil {
		t.Error(err)
	}
}

func TestHandHotspot(t *testing.T) {
	// 1×2 grid, T = [10 20], P = [1 0], cx 0.1, cy 0.2, cz 0.5, sdc 1, amb 0.
	// cell 0: N=S=T (edge), E=20, W=10 (edge): 1 + 0 + (30−20)·0.1 + (0−10)·0.5 = −3 → 7
	// cell 1: E=20 (edge), W=10: 0 + 0 + (30−40)·0.1 + (0−20)·0.5 = −11 → 9
	in := HotspotIn{Power: []float32{1, 0}, Temp: []float32{10, 20}, Rows: 1, Cols: 2,
		Cx: 0.1, Cy: 0.2, Cz: 0.5, StepDivCap: 1, AmbTemp: 0}
	got := Hotspot(in, 1)
	for i, w := range []float64{7, 9} {
		if math.Abs(got.Want[i]-w) > 1e-6 {
			t.Errorf("T'[%d] = %v, want %v", i, got.Want[i], w)
		}
	}
	// Two steps: cell 0: 1 + (9+7−14)·0.1 − 3.5 = −2.3 → 4.7; cell 1: (9+7−18)·0.1 − 4.5 = −4.7 → 4.3
	got = Hotspot(in, 2)
	for i, w := range []float64{4.7, 4.3} {
		if math.Abs(got.Want[i]-w) > 1e-6 {
			t.Errorf("2 steps: T[%d] = %v, want %v", i, got.Want[i], w)
		}
	}
}

// hand3 is the 3×3 LU example: A = L·U with
// L = [1 0 0; 2 1 0; 1 3 1], U = [4 3 2; 0 1 5; 0 0 −4].
var hand3 = DenseIn{A: []float32{4, 3, 2, 8, 7, 9, 4, 6, 13}, B: []float32{1, 2, 3}, Size: 3}

func TestHandLUD(t *testing.T) {
	got := LUD(hand3)
	floatsEqual(t, "lu", got, []float64{4, 3, 2, 2, 1, 5, 1, 3, -4})
	if err := Compare([]float32{4, 3, 2, 2, 1, 5, 1, 3, -4}, got); err != nil {
		t.Error(err)
	}
	if err := Compare([]float32{4, 3, 2, 2, 1, 5, 1, 3, -4.01}, got); err == nil {
		t.Error("an error of 0.01 in U must not pass")
	}
}

func TestHandGaussian(t *testing.T) {
	got := Gaussian(hand3)
	floatsEqual(t, "a", got.A, []float64{4, 3, 2, 0, 1, 5, 0, 0, -4})
	floatsEqual(t, "m", got.M, []float64{0, 0, 0, 2, 0, 0, 1, 3, 0})
	// y = L⁻¹b: y0 = 1, y1 = 2 − 2·1 = 0, y2 = 3 − 1·1 − 3·0 = 2
	floatsEqual(t, "b", got.B, []float64{1, 0, 2})
}

func TestHandViewMatrix(t *testing.T) {
	for _, c := range []struct {
		a, b, g, d float64
		want       [12]float32
	}{
		{0, 0, 0, 4, [12]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 4}},
		// Rx(90)ᵀ = [1 0 0; 0 0 1; 0 −1 0], translation Rᵀ(0,0,d) = (0, d, 0)
		{90, 0, 0, 3, [12]float32{1, 0, 0, 0, 0, 0, 1, 3, 0, -1, 0, 0}},
		// Rz(90)·Rx(90) = [0 0 1; 1 0 0; 0 1 0]; transposed, translation (0, 0, 4)ᵀ·R = (0, 4, 0)
		{90, 0, 90, 4, [12]float32{0, 1, 0, 0, 0, 0, 1, 4, 1, 0, 0, 0}},
		// Ry(90)ᵀ = [0 0 −1; 0 1 0; 1 0 0], translation (−d, 0, 0)
		{0, 90, 0, 2, [12]float32{0, 0, -1, -2, 0, 1, 0, 0, 1, 0, 0, 0}},
	} {
		if got := ViewMatrix(c.a, c.b, c.g, c.d); got != c.want {
			t.Errorf("ViewMatrix(%v, %v, %v, %v) = %v, want %v", c.a, c.b, c.g, c.d, got, c.want)
		}
	}
}

func TestHandVolume(t *testing.T) {
	// 4³ sphere: the 8 inner voxels have centres at (±0.25, ±0.25, ±0.25):
	// r = 0.4330, 255·(1 − r/0.8) = 116.98 → 117; the outer layer is 0.
	v, err := Volume("sphere", 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	for z := range 4 {
		for y := range 4 {
			for x := range 4 {
				want := uint8(0)
				if x%3 != 0 && y%3 != 0 && z%3 != 0 {
					want = 117
				}
				if got := v[(z*4+y)*4+x]; got != want {
					t.Errorf("voxel (%d,%d,%d) = %d, want %d", x, y, z, got, want)
				}
			}
		}
	}
	for _, k := range VolumeKinds() {
		a, _ := Volume(k, 16, 7)
		b, _ := Volume(k, 16, 7)
		if !bytes.Equal(a, b) || slices.Max(a) == 0 {
			t.Errorf("%s: not deterministic or empty", k)
		}
	}
	if _, err := Volume("cube", 8, 0); err == nil {
		t.Error("unknown kind accepted")
	}
}

func TestHandRender(t *testing.T) {
	full := bytes.Repeat([]byte{255}, 8)
	// Uniform density 1, one-entry transfer (0.8, 0.4, 0.2, 1), density 0.5:
	// A after k samples is 1 − 0.5^k; the 5th sample makes A = 0.96875 > 0.95.
	// rgb = c·A: 0.775·255 = 197.6 → 197, 0.3875 → 98, 0.19375 → 49; a → 247.
	p := RenderParams{W: 4, H: 4, Density: 0.5, Brightness: 1, TransferScale: 1, View: ViewMatrix(0, 0, 0, 4)}
	im, err := Render(full, 2, [][4]float32{{0.8, 0.4, 0.2, 1}}, p)
	if err != nil {
		t.Fatal(err)
	}
	centre := 2*4 + 2
	if want := uint32(197 | 98<<8 | 49<<16 | 247<<24); im.Want[centre] != want {
		t.Errorf("centre = %08x, want %08x", im.Want[centre], want)
	}
	if im.Want[0] != 0 { // pixel (0,0): direction (−1,−1,−2) from (0,0,4) misses the box
		t.Errorf("corner = %08x, want 0", im.Want[0])
	}
	if tol := im.Tol[centre]; tol[3] > 1 {
		t.Errorf("centre tolerance %v: the hand case has no near-threshold decisions", tol)
	}
	// Density 1: the first sample is opaque; white transfer and brightness 2 saturate.
	p.Density, p.Brightness = 1, 2
	im, _ = Render(full, 2, [][4]float32{{1, 1, 1, 1}}, p)
	if im.Want[centre] != 0xffffffff {
		t.Errorf("saturated centre = %08x", im.Want[centre])
	}
	if err := CompareRGBA8(im.Want, im); err != nil {
		t.Error(err)
	}
	bad := slices.Clone(im.Want)
	bad[centre] = 0x00ffffff
	if err := CompareRGBA8(bad, im); err == nil || !strings.Contains(err.Error(), "channel a") {
		t.Errorf("alpha 0 instead of 255 not reported: %v", err)
	}
}

func TestCompareTolerance(t *testing.T) {
	want := Floats{Want: []float64{1, 100}, Scale: []float64{1, 1}, Tol: Tolerance{Abs: 0.01, Rel: 0.1}}
	if err := Compare([]float32{1.1, 100.1}, want); err != nil {
		t.Error(err)
	}
	if err := Compare([]float32{1.2, 100}, want); err == nil {
		t.Error("|diff| 0.2 > 0.11 accepted")
	}
	if err := Compare([]float32{1}, want); err == nil {
		t.Error("length mismatch accepted")
	}
	nan := Floats{Want: []float64{math.NaN()}}
	if err := Compare([]float32{float32(math.NaN())}, nan); err != nil {
		t.Error(err)
	}
}

func TestGenerators(t *testing.T) {
	gens := Generators()
	for _, name := range []string{"vecadd", "matmul", "reduce", "nn", "pathfinder", "bfs", "hotspot",
		"lud", "gaussian", "volume", "transfer", "view"} {
		g, ok := gens[name]
		if !ok {
			t.Errorf("generator %q missing", name)
			continue
		}
		args := Args{}
		if name == "volume" {
			args = Args{"kind": "torus", "n": "16"}
		}
		a, err := g.Make(args)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		b, _ := g.Make(args)
		for k, buf := range a.Buffers {
			n := 1
			for _, d := range buf.Dims {
				n *= d
			}
			size := map[string]int{"f32": 4, "s32": 4, "u8": 1, "f32x2": 8, "f32x4": 16}[buf.Elem]
			if size == 0 || n*size != len(buf.Data) {
				t.Errorf("%s.%s: %s dims %v but %d bytes", name, k, buf.Elem, buf.Dims, len(buf.Data))
			}
			if !bytes.Equal(buf.Data, b.Buffers[k].Data) {
				t.Errorf("%s.%s: not deterministic", name, k)
			}
		}
	}
	if _, err := gens["vecadd"].Make(Args{"size": "3"}); err == nil {
		t.Error("unknown argument accepted")
	}
	if _, err := gens["lud"].Make(Args{"n": "20"}); err == nil {
		t.Error("lud n = 20 accepted")
	}
	vm, _ := gens["view"].Make(Args{"alpha": "90", "gamma": "90"})
	if got := vm.Buffers["c_invViewMatrix"].Data; len(got) != 48 {
		t.Errorf("view matrix has %d bytes", len(got))
	}
}
