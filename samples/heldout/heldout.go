package heldout

import (
	"embed"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/samples/internal/kernelset"
	"github.com/ptxtrace/ptxtrace/samples/ref"
)

//go:embed */*.cu */*.ptx */launch.yaml
var files embed.FS

// FS returns the embedded files: "<name>/<name>.cu", "<name>/<name>.<variant>.ptx",
// "<name>/launch.yaml".
func FS() fs.FS { return files }

// Kernel is one held-out kernel (its directory's files in FS).
type Kernel = kernelset.Kernel

// List returns every held-out kernel, sorted by name.
func List() []Kernel { return kernelset.List(files) }

// Registry returns a fresh launch.Registry: launch.SampleRegistry() plus
// the held-out kernels' generators (ref.HeldoutGenerators) and verifiers.
// Verifiers are named after the kernel, with ".BUFFER" for kernels with
// several outputs (localsort.out, localsort.out2, scan.out, scan.totals,
// fencereduce.partials, fencereduce.count). They rebuild the reference's
// inputs from the initial buffers, the scalars and the spec's geometry.
func Registry() launch.Registry {
	r := launch.SampleRegistry()
	r.AddGenerators(ref.HeldoutGenerators())
	for name, v := range verifiers() {
		r.Verify[name] = v
	}
	return r
}

// ints checks got (int32 elements) against want exactly.
func ints(got []byte, want []int32) error {
	if len(got) < 4*len(want) {
		return fmt.Errorf("buffer has %d bytes, want %d elements", len(got), len(want))
	}
	return ref.CompareInts(i32s(got)[:len(want)], want)
}

func verifiers() map[string]launch.VerifyFunc {
	need := func(in launch.RefInput, names ...string) error {
		for _, n := range names {
			if _, ok := in.Buffers[n]; !ok {
				return fmt.Errorf("the launch has no buffer %q", n)
			}
		}
		return nil
	}
	n := func(in launch.RefInput) int { return int(in.Scalars["n"]) }
	dim := func(in launch.RefInput, d []int) int {
		if len(d) == 0 {
			return 1
		}
		return d[0]
	}
	v := map[string]launch.VerifyFunc{}
	v["histogram"] = func(in launch.RefInput, got []byte) error {
		if err := need(in, "data"); err != nil {
			return err
		}
		return ints(got, ref.Histogram(in.Buffers["data"][:n(in)]))
	}
	for _, part := range []string{"out", "out2"} {
		part := part
		v["localsort."+part] = func(in launch.RefInput, got []byte) error {
			if err := need(in, "in"); err != nil {
				return err
			}
			s, d := ref.LocalSort(i32s(in.Buffers["in"])[:8*n(in)])
			if part == "out" {
				return ints(got, s)
			}
			return ints(got, d)
		}
	}
	v["devfunc"] = func(in launch.RefInput, got []byte) error {
		if err := need(in, "in", "idx"); err != nil {
			return err
		}
		return ints(got, ref.DevFunc(i32s(in.Buffers["in"])[:n(in)], i32s(in.Buffers["idx"])[:n(in)]))
	}
	v["dynrev"] = func(in launch.RefInput, got []byte) error {
		if err := need(in, "in"); err != nil {
			return err
		}
		return ints(got, ref.DynRev(i32s(in.Buffers["in"])[:n(in)], dim(in, in.Spec.Block)))
	}
	v["shflchain"] = func(in launch.RefInput, got []byte) error {
		if err := need(in, "next"); err != nil {
			return err
		}
		return ints(got, ref.ShflChain(i32s(in.Buffers["next"])[:n(in)], int(in.Scalars["steps"])))
	}
	v["multispace"] = func(in launch.RefInput, got []byte) error {
		if err := need(in, "x", "w", "coef"); err != nil {
			return err
		}
		return ints(got, ref.MultiSpace(i32s(in.Buffers["x"])[:n(in)], i32s(in.Buffers["w"])[:n(in)], i32s(in.Buffers["coef"])[:8]))
	}
	v["bigblock"] = func(in launch.RefInput, got []byte) error {
		if err := need(in, "in"); err != nil {
			return err
		}
		return ints(got, ref.BigBlock(i32s(in.Buffers["in"])[:n(in)], dim(in, in.Spec.Grid)))
	}
	for _, part := range []string{"out", "totals"} {
		part := part
		v["scan."+part] = func(in launch.RefInput, got []byte) error {
			if err := need(in, "in"); err != nil {
				return err
			}
			o, tot := ref.Scan(i32s(in.Buffers["in"])[:n(in)], dim(in, in.Spec.Grid))
			if part == "out" {
				return ints(got, o)
			}
			return ints(got, tot)
		}
	}
	v["transpose"] = func(in launch.RefInput, got []byte) error {
		if err := need(in, "in"); err != nil {
			return err
		}
		rows, cols := int(in.Scalars["rows"]), int(in.Scalars["cols"])
		return ref.Compare(f32s(got)[:rows*cols], ref.Transpose(f32s(in.Buffers["in"])[:rows*cols], rows, cols))
	}
	v["spmv"] = func(in launch.RefInput, got []byte) error {
		if err := need(in, "rowptr", "col", "val", "x"); err != nil {
			return err
		}
		rows := int(in.Scalars["rows"])
		x := ref.SpMVIn{Rows: rows, RowPtr: i32s(in.Buffers["rowptr"])[:rows+1], Col: i32s(in.Buffers["col"]),
			Val: f32s(in.Buffers["val"]), X: f32s(in.Buffers["x"])}
		return ref.Compare(f32s(got)[:rows], ref.SpMV(x))
	}
	v["stencil2d"] = func(in launch.RefInput, got []byte) error {
		if err := need(in, "in"); err != nil {
			return err
		}
		rows, cols := int(in.Scalars["rows"]), int(in.Scalars["cols"])
		return ints(got, ref.Stencil2D(i32s(in.Buffers["in"])[:rows*cols], rows, cols))
	}
	fr := func(in launch.RefInput) ([]int32, int32, error) {
		if err := need(in, "in"); err != nil {
			return nil, 0, err
		}
		p, s := ref.FenceReduce(i32s(in.Buffers["in"])[:n(in)], dim(in, in.Spec.Grid))
		return p, s, nil
	}
	v["fencereduce"] = func(in launch.RefInput, got []byte) error {
		_, s, err := fr(in)
		if err != nil {
			return err
		}
		return ints(got, []int32{s})
	}
	v["fencereduce.partials"] = func(in launch.RefInput, got []byte) error {
		p, _, err := fr(in)
		if err != nil {
			return err
		}
		return ints(got, p)
	}
	// the last block resets the ticket counter
	v["fencereduce.count"] = func(in launch.RefInput, got []byte) error { return ints(got, []int32{0}) }
	return v
}

func i32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
