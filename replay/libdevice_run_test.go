package replay_test

import (
	"context"
	"encoding/binary"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/replay"
)

const libdevPTX = "testdata/libdevice/libdevice.clang14-sm_52.ptx"

func parseLibdev(t *testing.T, src string) *replay.Program {
	t.Helper()
	return progFromSrc(t, libdevPTX, src)
}

// libdevRun runs kernel of the clang -nocudalib PTX on 8 threads with the
// given input buffers (raw bytes) and returns the outputs.
func libdevRun(t *testing.T, kernel string, ms *model.Spec, in map[string][]byte, outs map[string]int) (map[string][]byte, error) {
	t.Helper()
	b, err := os.ReadFile(libdevPTX)
	if err != nil {
		t.Fatal(err)
	}
	var y strings.Builder
	y.WriteString("kernel: " + kernel + "\ngrid: [1]\nblock: [8]\nparams:\n")
	order := map[string][]string{
		"ld_int":   {"a", "b", "c", "la", "lb", "oi", "ol"},
		"ld_float": {"a", "b", "c", "da", "db", "dc", "of", "od"},
	}[kernel]
	for _, n := range order {
		size := len(in[n])
		if size == 0 {
			size = outs[n]
		}
		y.WriteString("  - {name: " + n + ", buffer: {size: " + itoa(size) + "}}\n")
	}
	y.WriteString("  - {name: n, value: 8}\n")
	spec, err := launch.ParseSpec([]byte(y.String()))
	if err != nil {
		t.Fatal(err)
	}
	o := launch.PrepareOptions{BaseDir: filepath.Dir(libdevPTX)}
	if ms != nil {
		o.NumSMs = ms.NumSMs
	}
	prep, err := spec.Prepare(parseLibdev(t, string(b)), o)
	if err != nil {
		t.Fatal(err)
	}
	for n, data := range in {
		copy(prep.Buffer(n).Alloc.Data, data)
	}
	if _, err := prep.Run(context.Background(), launch.ExecOptions{Model: ms}); err != nil {
		return nil, err
	}
	res := map[string][]byte{}
	for n := range outs {
		res[n] = prep.Buffer(n).Alloc.Data
	}
	return res, nil
}

func itoa(v int) string { return big.NewInt(int64(v)).String() }

func le32s(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func le64s(v []uint64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b
}

// TestLibdeviceReplayInt replays clang 14 -nocudalib PTX calling the
// integer libdevice functions, functionally and on the gtx480 model, and
// checks every result against loops and big-integer arithmetic written
// from the CUDA Math API definitions (independent of libdevice.go).
func TestLibdeviceReplayInt(t *testing.T) {
	x := []int32{0, -1, math.MinInt32, 12, 0x00800000, -16777213, 0x33221100, 0x80}
	y := []int32{0, 1, math.MaxInt32, -5, 2, 5, 0x77665544, -2}
	z := []int32{0, 0x3210, 0x8888, 0x7654, 0x0123, 10, 0x4567, -1}
	p := []int64{0, -1, math.MinInt64, 1 << 40, 0x0123456789abcdef, -12345678901, 3, 1 << 62}
	q := []int64{0, 1, math.MaxInt64, -(1 << 40), -0x0fedcba987654321, 987654321, -3, 4}
	u32 := func(v []int32) []uint32 {
		o := make([]uint32, len(v))
		for i, e := range v {
			o[i] = uint32(e)
		}
		return o
	}
	u64 := func(v []int64) []uint64 {
		o := make([]uint64, len(v))
		for i, e := range v {
			o[i] = uint64(e)
		}
		return o
	}
	in := map[string][]byte{"a": le32s(u32(x)), "b": le32s(u32(y)), "c": le32s(u32(z)), "la": le64s(u64(p)), "lb": le64s(u64(q))}
	popc := func(v uint64) int64 {
		n := int64(0)
		for ; v != 0; v >>= 1 {
			n += int64(v & 1)
		}
		return n
	}
	clz := func(v uint64, w int) int64 {
		n := int64(0)
		for b := w - 1; b >= 0 && v>>b&1 == 0; b-- {
			n++
		}
		return n
	}
	ffs := func(v uint64, w int) int64 {
		for b := 0; b < w; b++ {
			if v>>b&1 == 1 {
				return int64(b + 1)
			}
		}
		return 0
	}
	brev := func(v uint64, w int) uint64 {
		r := uint64(0)
		for b := 0; b < w; b++ {
			r |= (v >> b & 1) << (w - 1 - b)
		}
		return r
	}
	hi := func(a, b *big.Int, w uint) uint64 {
		pr := new(big.Int).Mul(a, b)
		pr.Rsh(pr, w) // floor division: the high word of the two's-complement product
		m := new(big.Int).Lsh(big.NewInt(1), w)
		pr.Mod(pr, m)
		return pr.Uint64()
	}
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	sext24 := func(v int32) int64 { return int64(v<<8) >> 8 }
	want32 := func(i int) []int64 {
		a, b, c := x[i], y[i], z[i]
		ua, ub := uint32(a), uint32(b)
		bs := []byte{byte(ua), byte(ua >> 8), byte(ua >> 16), byte(ua >> 24), byte(ub), byte(ub >> 8), byte(ub >> 16), byte(ub >> 24)}
		perm := uint32(0)
		for n := 0; n < 4; n++ {
			perm |= uint32(bs[(uint32(c)>>(4*n))&7]) << (8 * n)
		}
		mn, mx := a, b
		if b < a {
			mn, mx = b, a
		}
		umn := ua
		if ub < ua {
			umn = ub
		}
		return []int64{popc(uint64(ua)), clz(uint64(ua), 32), ffs(uint64(ua), 32), int64(brev(uint64(ua), 32)), int64(perm),
			sext24(a) * sext24(b), int64(ua&0xffffff) * int64(ub&0xffffff),
			int64(hi(big.NewInt(int64(a)), big.NewInt(int64(b)), 32)), int64(hi(new(big.Int).SetUint64(uint64(ua)), new(big.Int).SetUint64(uint64(ub)), 32)),
			int64(c) + abs(int64(a)-int64(b)), int64(uint32(c)) + abs(int64(ua)-int64(ub)),
			int64(mn), int64(mx), int64(umn), abs(int64(a)),
			popc(uint64(p[i])) + 100*clz(uint64(p[i]), 64) + 10000*ffs(uint64(p[i]), 64)}
	}
	want64 := func(i int) []uint64 {
		a, b := p[i], q[i]
		mn, mx := a, b
		if b < a {
			mn, mx = b, a
		}
		umn, umx := uint64(a), uint64(b)
		if umx < umn {
			umn, umx = umx, umn
		}
		la := a
		if la < 0 {
			la = -la // wraps for MinInt64, like 0 − x
		}
		return []uint64{brev(uint64(a), 64), uint64(mn), uint64(mx),
			hi(big.NewInt(a), big.NewInt(b), 64), hi(new(big.Int).SetUint64(uint64(a)), new(big.Int).SetUint64(uint64(b)), 64),
			uint64(la), umx, umn}
	}
	gtx, _ := model.Preset("gtx480")
	for _, ms := range []*model.Spec{nil, &gtx} {
		out, err := libdevRun(t, "ld_int", ms, in, map[string]int{"oi": 8 * 16 * 4, "ol": 8 * 8 * 8})
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"popc", "clz", "ffs", "brev", "byte_perm", "mul24", "umul24", "mulhi", "umulhi", "sad", "usad", "min", "max", "umin", "abs", "popcll+clzll+ffsll"}
		for i := 0; i < 8; i++ {
			for k, w := range want32(i) {
				if got := binary.LittleEndian.Uint32(out["oi"][4*(16*i+k):]); got != uint32(w) {
					t.Errorf("thread %d %s(%#x, %#x, %#x) = %#x, want %#x", i, names[k], uint32(x[i]), uint32(y[i]), uint32(z[i]), got, uint32(w))
				}
			}
			n64 := []string{"brevll", "llmin", "llmax", "mul64hi", "umul64hi", "llabs", "ullmax", "ullmin"}
			for k, w := range want64(i) {
				if got := binary.LittleEndian.Uint64(out["ol"][8*(8*i+k):]); got != w {
					t.Errorf("thread %d %s(%#x, %#x) = %#x, want %#x", i, n64[k], p[i], q[i], got, w)
				}
			}
		}
	}
}

// rounded computes op exactly and rounds it to prec bits in mode (no
// subnormal results in these inputs, so the unbounded exponent of
// big.Float does not matter).
func rounded(prec uint, mode big.RoundingMode, op func(z *big.Float)) float64 {
	z := new(big.Float).SetPrec(prec).SetMode(mode)
	op(z)
	v, _ := z.Float64()
	return v
}

// TestLibdeviceReplayFloat replays the float libdevice calls and checks
// them against Go's math package and exactly rounded big.Float arithmetic.
// A subnormal operand whose result depends on __CUDA_FTZ faults.
func TestLibdeviceReplayFloat(t *testing.T) {
	x := []float32{2.5, -2.5, 0.49999997, 1 + 0x1p-23, 8388609, -0.3, 100.7, 1.5}
	y := []float32{3, -0.75, 7, 1 - 0x1p-23, 0.1, 1e10, -3.3, -0.001}
	z := []float32{1, 0.5, -3, -1, 2, 1e-3, 0.25, 7}
	u := []float64{2.5, -0.5, 0.49999999999999994, 1e300, -7.25, 2, 1 + 0x1p-52, 9}
	v := []float64{3, 2, -1, 1e10, 0.1, 3, 1 - 0x1p-52, -0.001}
	w := []float64{1, 0, 5, -1, 0.3, 4, -1, 1}
	b32s := func(v []float32) []byte {
		o := make([]uint32, len(v))
		for i, e := range v {
			o[i] = math.Float32bits(e)
		}
		return le32s(o)
	}
	b64s := func(v []float64) []byte {
		o := make([]uint64, len(v))
		for i, e := range v {
			o[i] = math.Float64bits(e)
		}
		return le64s(o)
	}
	in := map[string][]byte{"a": b32s(x), "b": b32s(y), "c": b32s(z), "da": b64s(u), "db": b64s(v), "dc": b64s(w)}
	big32 := func(v float32) *big.Float { return new(big.Float).SetFloat64(float64(v)) }
	want32 := func(i int) []float32 {
		a, b, c := x[i], y[i], z[i]
		fa, fb := float64(a), float64(b)
		sat := math.Min(math.Max(fa, 0), 1)
		return []float32{float32(math.Floor(fa)), float32(math.Ceil(fa)), float32(math.Trunc(fa)), float32(math.Round(fa)),
			float32(math.Min(fa, fb)), float32(math.Max(fa, fb)), float32(math.Abs(fa)),
			float32(rounded(24, big.ToNearestEven, func(r *big.Float) { r.Add(new(big.Float).Mul(big32(a), big32(b)), big32(c)) })),
			float32(math.Sqrt(fa)),
			float32(rounded(24, big.ToZero, func(r *big.Float) { r.Add(big32(a), big32(b)) })),
			float32(rounded(24, big.ToNearestEven, func(r *big.Float) { r.Quo(big32(a), big32(b)) })),
			float32(math.Copysign(fa, fb)),
			float32(rounded(24, big.ToPositiveInf, func(r *big.Float) { r.Mul(big32(a), big32(b)) })),
			float32(rounded(24, big.ToNegativeInf, func(r *big.Float) { r.Add(new(big.Float).Mul(big32(a), big32(b)), big32(c)) })),
			float32(rounded(24, big.ToZero, func(r *big.Float) { r.Quo(big.NewFloat(1), big32(b)) })),
			float32(sat)}
	}
	want64 := func(i int) []float64 {
		a, b, c := u[i], v[i], w[i]
		return []float64{math.Floor(a), math.Ceil(a), math.Round(a), math.Min(a, b), math.Abs(a), math.FMA(a, b, c), math.Sqrt(a),
			rounded(53, big.ToNegativeInf, func(r *big.Float) { r.Add(big.NewFloat(a), big.NewFloat(b)) })}
	}
	names := []string{"floorf", "ceilf", "truncf", "roundf", "fminf", "fmaxf", "fabsf", "fmaf", "fsqrt_rn", "fadd_rz", "fdiv_rn", "copysignf", "fmul_ru", "fmaf_rd", "frcp_rz", "saturatef"}
	n64 := []string{"floor", "ceil", "round", "fmin", "fabs", "fma", "sqrt", "dadd_rd"}
	outs := map[string]int{"of": 8 * 16 * 4, "od": 8 * 8 * 8}
	gtx, _ := model.Preset("gtx480")
	for _, ms := range []*model.Spec{nil, &gtx} {
		out, err := libdevRun(t, "ld_float", ms, in, outs)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 8; i++ {
			for k, wv := range want32(i) {
				got := math.Float32frombits(binary.LittleEndian.Uint32(out["of"][4*(16*i+k):]))
				if math.Float32bits(got) != math.Float32bits(wv) && !(got != got && wv != wv) {
					t.Errorf("thread %d %s(%v, %v, %v) = %v (%#x), want %v (%#x)", i, names[k], x[i], y[i], z[i], got, math.Float32bits(got), wv, math.Float32bits(wv))
				}
			}
			for k, wv := range want64(i) {
				got := math.Float64frombits(binary.LittleEndian.Uint64(out["od"][8*(8*i+k):]))
				if math.Float64bits(got) != math.Float64bits(wv) && !(got != got && wv != wv) {
					t.Errorf("thread %d %s(%v, %v, %v) = %v, want %v", i, n64[k], u[i], v[i], w[i], got, wv)
				}
			}
		}
	}
	// floorf of a negative subnormal is −1 without FTZ and −0 with it: refused.
	x[3] = -math.Float32frombits(1)
	in["a"] = b32s(x)
	_, err := libdevRun(t, "ld_float", nil, in, outs)
	if err == nil || !strings.Contains(err.Error(), "__nv_floorf") || !strings.Contains(err.Error(), "__CUDA_FTZ") {
		t.Errorf("subnormal operand: %v, want a fault naming __nv_floorf and __CUDA_FTZ", err)
	}
}

// TestLibdeviceRoundedProperty compares the IEEE-rounded libdevice
// functions with exactly rounded big.Float arithmetic on random normal
// operands whose results stay normal (where the FTZ variants agree).
// Products are formed at 256 bits and square roots at 400 bits before the
// final rounding (big.Float.Sqrt does not honour directed rounding modes).
func TestLibdeviceRoundedProperty(t *testing.T) {
	modes := map[string]big.RoundingMode{"rn": big.ToNearestEven, "rz": big.ToZero, "rd": big.ToNegativeInf, "ru": big.ToPositiveInf}
	s := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s }
	rnd32 := func() float32 { // sign, exponent in [-20, 20], 24 random bits
		m := float64(next()>>40|1<<23) / (1 << 23)
		e := int(next()%41) - 20
		if next()&1 == 1 {
			m = -m
		}
		return float32(math.Ldexp(m, e))
	}
	rnd64 := func() float64 {
		m := float64(next()>>11|1<<52) / (1 << 52)
		if next()&1 == 1 {
			m = -m
		}
		return math.Ldexp(m, int(next()%81)-40)
	}
	for suf, mode := range modes {
		for i := 0; i < 2000; i++ {
			x, y, z := rnd32(), rnd32(), rnd32()
			bx, by, bz := big.NewFloat(float64(x)), big.NewFloat(float64(y)), big.NewFloat(float64(z))
			check := func(fn string, args []float32, want float64) {
				var a [3]uint64
				for k, v := range args {
					a[k] = uint64(math.Float32bits(v))
				}
				got, refuse := replay.LibdevEval(fn, a)
				if refuse != "" || uint32(got) != math.Float32bits(float32(want)) {
					t.Fatalf("%s%v = %#x (%q), want %#x (%v)", fn, args, uint32(got), refuse, math.Float32bits(float32(want)), want)
				}
			}
			check("__nv_fadd_"+suf, []float32{x, y}, rounded(24, mode, func(r *big.Float) { r.Add(bx, by) }))
			check("__nv_fsub_"+suf, []float32{x, y}, rounded(24, mode, func(r *big.Float) { r.Sub(bx, by) }))
			check("__nv_fmul_"+suf, []float32{x, y}, rounded(24, mode, func(r *big.Float) { r.Mul(bx, by) }))
			check("__nv_fdiv_"+suf, []float32{x, y}, rounded(24, mode, func(r *big.Float) { r.Quo(bx, by) }))
			check("__nv_fmaf_"+suf, []float32{x, y, z}, rounded(24, mode, func(r *big.Float) { r.Add(new(big.Float).SetPrec(256).Mul(bx, by), bz) }))
			ax := float32(math.Abs(float64(x)))
			check("__nv_fsqrt_"+suf, []float32{ax}, rounded(24, mode, func(r *big.Float) { r.Set(new(big.Float).SetPrec(400).Sqrt(big.NewFloat(float64(ax)))) }))

			u, v, w := rnd64(), rnd64(), rnd64()
			bu, bv, bw := big.NewFloat(u), big.NewFloat(v), big.NewFloat(w)
			check64 := func(fn string, args []float64, want float64) {
				var a [3]uint64
				for k, e := range args {
					a[k] = math.Float64bits(e)
				}
				got, refuse := replay.LibdevEval(fn, a)
				if refuse != "" || got != math.Float64bits(want) {
					t.Fatalf("%s%v = %v (%q), want %v", fn, args, math.Float64frombits(got), refuse, want)
				}
			}
			check64("__nv_dadd_"+suf, []float64{u, v}, rounded(53, mode, func(r *big.Float) { r.Add(bu, bv) }))
			check64("__nv_dmul_"+suf, []float64{u, v}, rounded(53, mode, func(r *big.Float) { r.Mul(bu, bv) }))
			check64("__nv_ddiv_"+suf, []float64{u, v}, rounded(53, mode, func(r *big.Float) { r.Quo(bu, bv) }))
			check64("__nv_fma_"+suf, []float64{u, v, w}, rounded(53, mode, func(r *big.Float) { r.Add(new(big.Float).SetPrec(256).Mul(bu, bv), bw) }))
			au := math.Abs(u)
			check64("__nv_dsqrt_"+suf, []float64{au}, rounded(53, mode, func(r *big.Float) { r.Set(new(big.Float).SetPrec(400).Sqrt(big.NewFloat(au))) }))
		}
	}
}

// TestLibdeviceSamples: the samples compiled by clang 14 with -nocudalib
// (ptx/testdata/gen) call __nv_min/__nv_max; they now replay and pass the
// samples' references. nn's calls __nv_sqrtf, which is refused.
func TestLibdeviceSamples(t *testing.T) {
	for _, name := range []string{"pathfinder", "hotspot"} {
		spec, dir := loadSampleSpec(t, name)
		prog := loadGen(t, name+".clang14-sm_52.ptx")
		prep, err := spec.Prepare(prog, launch.PrepareOptions{BaseDir: dir, Registry: launch.SampleRegistry()})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w := prep.Warnings(); len(w) > 0 {
			t.Errorf("%s: warnings %q", name, w)
		}
		if _, err := prep.Run(context.Background(), launch.ExecOptions{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rs := prep.Check(launch.SampleRegistry(), dir)
		if len(rs) == 0 {
			t.Errorf("%s: no checks", name)
		}
		for _, r := range rs {
			if !r.OK {
				t.Errorf("%s: check %s: %s", name, r.Buffer, r.Msg)
			}
		}
	}
	code, err := loadGen(t, "nn.clang14-sm_52.ptx").Lower("nn_distance")
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(code.Warnings, "\n"); !strings.Contains(w, "__nv_sqrtf") || !strings.Contains(w, "__CUDA_PREC_SQRT") {
		t.Errorf("nn: warnings %q, want the __nv_sqrtf refusal", w)
	}
}

// loadGen parses a generated PTX file of ptx/testdata/gen.
func loadGen(t testing.TB, name string) *replay.Program {
	path := filepath.Join("..", "ptx", "testdata", "gen", name)
	return progFromSrc(t, path, mustRead(t, path))
}
