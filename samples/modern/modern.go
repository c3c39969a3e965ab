package modern

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

//go:embed */*.ptx */launch.yaml */*.cu
var files embed.FS

// FS returns the embedded files: "<name>/<name>.cu" (absent for
// hand-written PTX), "<name>/<name>.<variant>.ptx", "<name>/launch.yaml".
func FS() fs.FS { return files }

// Kernel is one sample of the group (its directory's files in FS).
type Kernel = kernelset.Kernel

// List returns every sample of the group, sorted by name.
func List() []Kernel { return kernelset.List(files) }

// Registry returns a fresh launch.Registry: launch.SampleRegistry() plus
// this group's generators (ref.ModernGenerators) and verifiers, named
// after the kernels. Verifiers rebuild the reference from the initial
// buffers and the generator's scalars (exact selects the exact compare or
// the documented tolerance).
func Registry() launch.Registry {
	r := launch.SampleRegistry()
	r.AddGenerators(ref.ModernGenerators())
	for name, v := range verifiers() {
		r.Verify[name] = v
	}
	return r
}

// Expected returns the reference of a check (the verifier's name) for a
// finished launch's inputs, so tests can report error figures.
func Expected(name string, in launch.RefInput) (ref.Floats, error) {
	need := func(names ...string) error {
		for _, n := range names {
			if _, ok := in.Buffers[n]; !ok {
				return fmt.Errorf("the launch has no buffer %q", n)
			}
		}
		return nil
	}
	// a kernel parameter of that name, else the generator's scalar
	scf := func(n string) float64 {
		if v, ok := in.Scalars[n]; ok {
			return v
		}
		for _, g := range in.Inputs {
			if v, ok := g.Scalars[n]; ok {
				return v
			}
		}
		return 0
	}
	sc := func(n string) int { return int(scf(n)) }
	switch name {
	case "tiledmm", "wmmagemm", "wgmmagemm":
		if err := need("a", "b"); err != nil {
			return ref.Floats{}, err
		}
		m, n, k := sc("M"), sc("N"), sc("K")
		if m <= 0 || n <= 0 || k <= 0 {
			return ref.Floats{}, fmt.Errorf("scalars M, N, K missing")
		}
		a, b := ref.F16s(in.Buffers["a"]), ref.F16s(in.Buffers["b"])
		if len(a) < m*k || len(b) < k*n {
			return ref.Floats{}, fmt.Errorf("a or b smaller than M×K, K×N")
		}
		return ref.GemmF16(a, b, m, n, k, sc("bt") == 1, sc("exact") == 1), nil
	case "attention":
		if err := need("q", "k", "v"); err != nil {
			return ref.Floats{}, err
		}
		sq := sc("seq_q")
		q, k, v := ref.F16s(in.Buffers["q"]), ref.F16s(in.Buffers["k"]), ref.F16s(in.Buffers["v"])
		if sq <= 0 || len(q) < sq*64 || len(k) < 64*64 || len(v) < 64*64 {
			return ref.Floats{}, fmt.Errorf("q, k, v smaller than seq_q×64, 64×64")
		}
		// the kernel's c is an f32 parameter
		return ref.Attention(q, k, v, sq, 64, 64, float64(float32(scf("c"))), sc("exact") == 1), nil
	case "flashattn":
		if err := need("q", "k", "v"); err != nil {
			return ref.Floats{}, err
		}
		sq, sk := sc("seq_q"), sc("seq_k")
		q, k, v := ref.F16s(in.Buffers["q"]), ref.F16s(in.Buffers["k"]), ref.F16s(in.Buffers["v"])
		if sq <= 0 || sk <= 0 || sk%64 != 0 || len(q) < sq*64 || len(k) < sk*64 || len(v) < sk*64 {
			return ref.Floats{}, fmt.Errorf("q, k, v smaller than seq_q×64, seq_k×64 (seq_k a multiple of 64)")
		}
		return ref.FlashAttention(q, k, v, sq, sk, 64, 64, float64(float32(scf("c"))), sc("exact") == 1), nil
	}
	return ref.Floats{}, fmt.Errorf("no reference %q", name)
}

func verifiers() map[string]launch.VerifyFunc {
	v := map[string]launch.VerifyFunc{}
	for _, name := range []string{"tiledmm", "wmmagemm", "wgmmagemm", "attention", "flashattn"} {
		name := name
		v[name] = func(in launch.RefInput, got []byte) error {
			want, err := Expected(name, in)
			if err != nil {
				return err
			}
			g := f32s(got)
			if len(g) < len(want.Want) {
				return fmt.Errorf("buffer has %d elements, want %d", len(g), len(want.Want))
			}
			return ref.Compare(g[:len(want.Want)], want)
		}
	}
	return v
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
