package launch

import (
	"encoding/binary"
	"fmt"
	"math"

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
	for name, g := range ref.Generators() {
		g := g
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
	floats := func(got []byte, want ref.Floats) error { return ref.Compare(bytesF32(got), want) }
	need := func(in RefInput, names ...string) error {
		for _, n := range names {
			if _, ok := in.Buffers[n]; !ok {
				return fmt.Errorf("the launch has no buffer %q", n)
			}
		}
		return nil
	}
	r.Verify["vecadd"] = func(in RefInput, got []byte) error {
		if err := need(in, "a", "b"); err != nil {
			return err
		}
		a, b := bytesF32(in.Buffers["a"]), bytesF32(in.Buffers["b"])
		n := int(in.Scalars["n"])
		return floats(got[:4*n], ref.VecAdd(ref.VecAddIn{A: a[:n], B: b[:n], N: n}))
	}
	r.Verify["matmul"] = func(in RefInput, got []byte) error {
		if err := need(in, "A", "B"); err != nil {
			return err
		}
		m := ref.MatMulIn{A: bytesF32(in.Buffers["A"]), B: bytesF32(in.Buffers["B"]),
			M: int(in.Scalars["M"]), N: int(in.Scalars["N"]), K: int(in.Scalars["K"])}
		return floats(got[:4*m.M*m.N], ref.MatMul(m))
	}
	r.Verify["reduce"] = func(in RefInput, got []byte) error {
		if err := need(in, "in"); err != nil {
			return err
		}
		n := int(in.Scalars["n"])
		want := ref.Reduce(ref.ReduceIn{In: bytesF32(in.Buffers["in"])[:n]})
		// the launch shape, when the spec names it (vars grid, block, final_block)
		if g, b := int(in.Vars["grid"]), int(in.Vars["block"]); g > 0 && b > 0 {
			fb := int(in.Vars["final_block"])
			if fb <= 0 {
				fb = b
			}
			want.Tol = ref.ReduceLaunchTolerance(n, g, b, fb)
		}
		return floats(got[:4], want)
	}
	r.Verify["nn"] = func(in RefInput, got []byte) error {
		if err := need(in, "locations"); err != nil {
			return err
		}
		n := int(in.Scalars["n"])
		x := ref.NNIn{Locations: bytesF32(in.Buffers["locations"])[:2*n], N: n,
			Lat: float32(in.Scalars["lat"]), Lng: float32(in.Scalars["lng"])}
		return floats(got[:4*n], ref.NN(x))
	}
	r.Verify["pathfinder"] = func(in RefInput, got []byte) error {
		if err := need(in, "wall"); err != nil {
			return err
		}
		rows, cols := int(in.Vars["rows"]), int(in.Vars["cols"])
		x := ref.PathfinderIn{Wall: bytesI32(in.Buffers["wall"])[:rows*cols], Rows: rows, Cols: cols}
		return ref.CompareInts(bytesI32(got)[:cols], ref.Pathfinder(x))
	}
	r.Verify["hotspot"] = func(in RefInput, got []byte) error {
		if err := need(in, "power", "temp_in"); err != nil {
			return err
		}
		s := in.Scalars
		x := ref.HotspotIn{Power: bytesF32(in.Buffers["power"]), Temp: bytesF32(in.Buffers["temp_in"]),
			Rows: int(s["rows"]), Cols: int(s["cols"]), Cx: float32(s["cx"]), Cy: float32(s["cy"]), Cz: float32(s["cz"]),
			StepDivCap: float32(s["step_div_cap"]), AmbTemp: float32(s["amb_temp"])}
		steps := 1
		if v, ok := in.Vars["steps"]; ok {
			steps = int(v)
		}
		return floats(got, ref.Hotspot(x, steps))
	}
	bfsIn := func(in RefInput) (ref.BFSIn, error) {
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
		return ref.BFSIn{RowOffsets: bytesI32(in.Buffers["row_offsets"])[:n+1], ColIndices: bytesI32(in.Buffers["col_indices"]),
			NumNodes: n, Src: src}, nil
	}
	r.Verify["bfs"] = func(in RefInput, got []byte) error {
		x, err := bfsIn(in)
		if err != nil {
			return err
		}
		return ref.CompareInts(bytesI32(got)[:x.NumNodes], ref.BFS(x))
	}
	r.Verify["bfs.visited"] = func(in RefInput, got []byte) error {
		x, err := bfsIn(in)
		if err != nil {
			return err
		}
		return ref.CompareInts(bytesI32(got)[:x.NumNodes], ref.BFSFinalState(x).Visited)
	}
	dense := func(in RefInput, name string) ref.DenseIn {
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
	r.Verify["lud"] = func(in RefInput, got []byte) error {
		if err := need(in, "a"); err != nil {
			return err
		}
		return floats(got, ref.LUD(dense(in, "a")))
	}
	for _, part := range []string{"a", "b", "m"} {
		part := part
		r.Verify["gaussian."+part] = func(in RefInput, got []byte) error {
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
	}
	r.Verify["volrender"] = func(in RefInput, got []byte) error {
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
		px := make([]uint32, p.W*p.H)
		for i := range px {
			px[i] = binary.LittleEndian.Uint32(got[4*i:])
		}
		return ref.CompareRGBA8(px, want)
	}
	return r
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
