package launch

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/ptxtrace/ptxtrace/samples/ref"
)

// SampleRegistry returns a fresh Registry for the bundled samples (see
// samples/ref): every input generator of ref.Generators() and, as
// verifiers, each sample's independent Go reference with its documented
// tolerance. Verifier names are the sample names (bfs checks the cost
// buffer, gaussian has gaussian.a, gaussian.b and gaussian.m). The
// verifiers rebuild the reference's inputs from the buffers' initial
// contents and the scalar parameters, so they follow whatever inputs the
// launch spec gave.
func SampleRegistry() Registry {
	r := Registry{Refs: map[string]RefFunc{}, Verify: map[string]VerifyFunc{}, Generators: map[string]GenFunc{}}
	r.AddGenerators(ref.Generators())
	r.Verify["vecadd"] = verifyVecadd
	r.Verify["matmul"] = verifyMatmul
	r.Verify["reduce"] = verifyReduce
	r.Verify["nn"] = verifyNN
	r.Verify["pathfinder"] = verifyPathfinder
	r.Verify["hotspot"] = verifyHotspot
	r.Verify["bfs"] = verifyBFS(ref.BFS)
	r.Verify["bfs.visited"] = verifyBFS(func(x ref.BFSIn) []int32 { return ref.BFSFinalState(x).Visited })
	r.Verify["lud"] = verifyLUD
	for _, part := range []string{"a", "b", "m"} {
		r.Verify["gaussian."+part] = func(in RefInput, got []byte) error { return verifyGaussian(in, got, part) }
	}
	r.Verify["volrender"] = verifyVolrender
	return r
}

// floats compares got, all of it, with want within want's tolerance.
func floats(got []byte, want ref.Floats) error { return ref.Compare(bytesF32(got), want) }

// floatsPrefix compares the first len(want) float32 elements of got (the
// rest of the buffer is padding the reference does not cover).
func floatsPrefix(got []byte, want ref.Floats) error {
	n := len(want.Want)
	if n < 0 || 4*n > len(got) {
		return fmt.Errorf("buffer has %d float32 elements, the reference needs %d", len(got)/4, n)
	}
	return ref.Compare(viewF32(got[:4*n]), want)
}

// viewF32 is b's float32 elements for a caller that only reads them: b
// itself when the host is little-endian and b is 4-byte aligned (a large
// buffer then costs no copy and no fresh pages), else a copy (bytesF32).
func viewF32(b []byte) []float32 {
	littleEndian := binary.NativeEndian.Uint16([]byte{1, 0}) == 1
	if len(b) < 4 || !littleEndian || uintptr(unsafe.Pointer(&b[0]))%4 != 0 {
		return bytesF32(b)
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// prefixF32 is the first n float32 elements of b, or an error when b is
// shorter (never a panic on a spec whose sizes disagree).
func prefixF32(b []byte, n int) ([]float32, error) {
	if n < 0 || 4*n > len(b) {
		return nil, fmt.Errorf("buffer has %d float32 elements, the reference needs %d", len(b)/4, n)
	}
	return bytesF32(b[:4*n]), nil
}

// prefixI32 is prefixF32 for int32 elements.
func prefixI32(b []byte, n int) ([]int32, error) {
	if n < 0 || 4*n > len(b) {
		return nil, fmt.Errorf("buffer has %d int32 elements, the reference needs %d", len(b)/4, n)
	}
	return bytesI32(b[:4*n]), nil
}

// need checks that the launch has the named buffers.
func need(in RefInput, names ...string) error {
	for _, n := range names {
		if _, ok := in.Buffers[n]; !ok {
			return fmt.Errorf("the launch has no buffer %q", n)
		}
	}
	return nil
}

func verifyVecadd(in RefInput, got []byte) error {
	if err := need(in, "a", "b"); err != nil {
		return err
	}
	n := int(in.Scalars["n"])
	for _, name := range []string{"a", "b"} {
		if n < 0 || 4*n > len(in.Buffers[name]) {
			return fmt.Errorf("buffer has %d float32 elements, the reference needs %d", len(in.Buffers[name])/4, n)
		}
	}
	// the comparison only reads its inputs: views of the initial contents
	a, b := viewF32(in.Buffers["a"][:4*n]), viewF32(in.Buffers["b"][:4*n])
	if 4*n > len(got) {
		return fmt.Errorf("buffer has %d float32 elements, the reference needs %d", len(got)/4, n)
	}
	return ref.CompareVecAdd(viewF32(got[:4*n]), ref.VecAddIn{A: a, B: b, N: n})
}

func verifyMatmul(in RefInput, got []byte) error {
	if err := need(in, "A", "B"); err != nil {
		return err
	}
	m := ref.MatMulIn{M: int(in.Scalars["M"]), N: int(in.Scalars["N"]), K: int(in.Scalars["K"])}
	var err error
	if m.A, err = prefixF32(in.Buffers["A"], m.M*m.K); err != nil {
		return err
	}
	if m.B, err = prefixF32(in.Buffers["B"], m.K*m.N); err != nil {
		return err
	}
	return floatsPrefix(got, ref.MatMul(m))
}

func verifyReduce(in RefInput, got []byte) error {
	if err := need(in, "in"); err != nil {
		return err
	}
	n := int(in.Scalars["n"])
	x, err := prefixF32(in.Buffers["in"], n)
	if err != nil {
		return err
	}
	want := ref.Reduce(ref.ReduceIn{In: x})
	// the launch shape, when the spec names it (vars grid, block, final_block)
	if g, b := int(in.Vars["grid"]), int(in.Vars["block"]); g > 0 && b > 0 {
		fb := int(in.Vars["final_block"])
		if fb <= 0 {
			fb = b
		}
		want.Tol = ref.ReduceLaunchTolerance(n, g, b, fb)
	}
	return floatsPrefix(got, want)
}

func verifyNN(in RefInput, got []byte) error {
	if err := need(in, "locations"); err != nil {
		return err
	}
	n := int(in.Scalars["n"])
	loc, err := prefixF32(in.Buffers["locations"], 2*n)
	if err != nil {
		return err
	}
	return floatsPrefix(got, ref.NN(ref.NNIn{Locations: loc, N: n, Lat: float32(in.Scalars["lat"]), Lng: float32(in.Scalars["lng"])}))
}

func verifyPathfinder(in RefInput, got []byte) error {
	if err := need(in, "wall"); err != nil {
		return err
	}
	rows, cols := int(in.Vars["rows"]), int(in.Vars["cols"])
	wall, err := prefixI32(in.Buffers["wall"], rows*cols)
	if err != nil {
		return err
	}
	g, err := prefixI32(got, cols)
	if err != nil {
		return err
	}
	return ref.CompareInts(g, ref.Pathfinder(ref.PathfinderIn{Wall: wall, Rows: rows, Cols: cols}))
}

func verifyHotspot(in RefInput, got []byte) error {
	if err := need(in, "power", "temp_in"); err != nil {
		return err
	}
	s := in.Scalars
	x := ref.HotspotIn{Power: bytesF32(in.Buffers["power"]), Temp: bytesF32(in.Buffers["temp_in"]),
		Rows: int(s["rows"]), Cols: int(s["cols"]), Cx: float32(s["cx"]), Cy: float32(s["cy"]), Cz: float32(s["cz"]),
		StepDivCap: float32(s["step_div_cap"]), AmbTemp: float32(s["amb_temp"])}
	if x.Rows < 0 || x.Cols < 0 || len(x.Power) < x.Rows*x.Cols || len(x.Temp) < x.Rows*x.Cols {
		return fmt.Errorf("hotspot: power/temp_in hold fewer than rows × cols = %d × %d elements", x.Rows, x.Cols)
	}
	steps := 1
	if v, ok := in.Vars["steps"]; ok {
		steps = int(v)
	}
	return floats(got, ref.Hotspot(x, steps))
}

// bfsIn rebuilds the BFS reference's input; the source is the node whose
// initial cost is 0.
func bfsIn(in RefInput) (ref.BFSIn, error) {
	if err := need(in, "row_offsets", "col_indices"); err != nil {
		return ref.BFSIn{}, err
	}
	n := int(in.Scalars["num_nodes"])
	src := -1
	for i, v := range bytesI32(in.Buffers["cost"]) {
		if v == 0 {
			src = i
		}
	}
	if src < 0 {
		return ref.BFSIn{}, fmt.Errorf("no source node (cost 0) in the initial cost buffer")
	}
	rows, err := prefixI32(in.Buffers["row_offsets"], n+1)
	if err != nil {
		return ref.BFSIn{}, err
	}
	return ref.BFSIn{RowOffsets: rows, ColIndices: bytesI32(in.Buffers["col_indices"]), NumNodes: n, Src: src}, nil
}

// verifyBFS checks an int32-per-node output of bfs against want, the
// reference's answer for the same input (costs, or the visited flags).
func verifyBFS(want func(ref.BFSIn) []int32) func(RefInput, []byte) error {
	return func(in RefInput, got []byte) error {
		x, err := bfsIn(in)
		if err != nil {
			return err
		}
		g, err := prefixI32(got, x.NumNodes)
		if err != nil {
			return err
		}
		return ref.CompareInts(g, want(x))
	}
}

// dense is the input of the dense-matrix references (lud, gaussian).
func dense(in RefInput, name string) ref.DenseIn {
	n := int(in.Vars["n"])
	if n == 0 {
		n = int(in.Scalars["size"])
	}
	d := ref.DenseIn{A: bytesF32(in.Buffers[name]), Size: n}
	if b, ok := in.Buffers["b"]; ok {
		d.B = bytesF32(b)
	}
	return d
}

func verifyLUD(in RefInput, got []byte) error {
	if err := need(in, "a"); err != nil {
		return err
	}
	return floats(got, ref.LUD(dense(in, "a")))
}

// verifyGaussian checks one of gaussian's outputs: part a, b or m.
func verifyGaussian(in RefInput, got []byte, part string) error {
	if err := need(in, "a", "b"); err != nil {
		return err
	}
	out := ref.Gaussian(dense(in, "a"))
	switch part {
	case "a":
		return floats(got, out.A)
	case "b":
		return floats(got, out.B)
	}
	return floats(got, out.M)
}

func verifyVolrender(in RefInput, got []byte) error {
	vol, tf := in.Buffers["volume"], in.Buffers["transfer"]
	if vol == nil || tf == nil {
		return fmt.Errorf("volrender: the launch needs textures named volume and transfer")
	}
	n := int(math.Round(math.Cbrt(float64(len(vol)))))
	tfv := bytesF32(tf)
	t4 := make([][4]float32, len(tfv)/4)
	for i := range t4 {
		copy(t4[i][:], tfv[4*i:])
	}
	s := in.Scalars
	p := ref.RenderParams{W: int(s["imageW"]), H: int(s["imageH"]), Density: float32(s["density"]),
		Brightness: float32(s["brightness"]), TransferOffset: float32(s["transferOffset"]), TransferScale: float32(s["transferScale"])}
	view, ok := in.Buffers["c_invViewMatrix"]
	if !ok {
		return fmt.Errorf("volrender: no c_invViewMatrix (give the view input's buffer to RefInput)")
	}
	copy(p.View[:], bytesF32(view))
	want, err := ref.Render(vol, n, t4, p)
	if err != nil {
		return err
	}
	if p.W < 0 || p.H < 0 || 4*p.W*p.H > len(got) {
		return fmt.Errorf("volrender: the image buffer has %d bytes, %d×%d pixels need %d", len(got), p.W, p.H, 4*p.W*p.H)
	}
	px := make([]uint32, p.W*p.H)
	for i := range px {
		px[i] = binary.LittleEndian.Uint32(got[4*i:])
	}
	return ref.CompareRGBA8(px, want)
}

func bytesF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func bytesI32(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// AddGenerators registers each generator of gs (package samples/ref) under
// its name: the launch spec's args go to its Make, its buffers' bytes and
// scalars come back as the GenOutput.
func (r Registry) AddGenerators(gs map[string]ref.Generator) {
	for name, g := range gs {
		r.Generators[name] = func(args map[string]string) (GenOutput, error) {
			in, err := g.Make(ref.Args(args))
			if err != nil {
				return GenOutput{}, err
			}
			out := GenOutput{Buffers: map[string][]byte{}, Scalars: in.Scalars}
			for k, b := range in.Buffers {
				out.Buffers[k] = b.Data
			}
			return out, nil
		}
	}
}
