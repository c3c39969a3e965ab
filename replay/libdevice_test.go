package replay

import (
	"math"
	"os"
	"strings"
	"testing"
)

// Expected values below come from libdevice.10.bc's definitions (CUDA
// 11.8, read with llvm-dis) and the PTX ISA, worked out by hand.

func TestLibdeviceTable(t *testing.T) {
	const (
		nan32  = 0x7fffffff // PTX canonical NaN
		sub32  = 0x00000001 // smallest positive subnormal
		nsub32 = 0x80000001
	)
	f := func(x float32) uint64 { return uint64(math.Float32bits(x)) }
	d := func(x float64) uint64 { return math.Float64bits(x) }
	u := func(x int32) uint64 { return uint64(uint32(x)) }
	cases := []struct {
		fn   string
		args []uint64
		want uint64
	}{
		{"__nv_popc", []uint64{0xffffffff}, 32},
		{"__nv_popc", []uint64{0x80000001}, 2},
		{"__nv_popcll", []uint64{1<<63 | 1}, 2},
		{"__nv_clz", []uint64{0}, 32},
		{"__nv_clz", []uint64{1}, 31},
		{"__nv_clz", []uint64{0x80000000}, 0},
		{"__nv_clzll", []uint64{0}, 64},
		{"__nv_clzll", []uint64{1}, 63},
		{"__nv_ffs", []uint64{0}, 0},
		{"__nv_ffs", []uint64{1}, 1},
		{"__nv_ffs", []uint64{12}, 3},
		{"__nv_ffs", []uint64{0x80000000}, 32},
		{"__nv_ffsll", []uint64{0}, 0},
		{"__nv_ffsll", []uint64{1 << 63}, 64},
		{"__nv_brev", []uint64{1}, 0x80000000},
		{"__nv_brev", []uint64{0x0000ffff}, 0xffff0000},
		{"__nv_brevll", []uint64{1}, 1 << 63},
		// prmt: bytes 0-3 from x = 0x33221100, 4-7 from y = 0x77665544
		{"__nv_byte_perm", []uint64{0x33221100, 0x77665544, 0x3210}, 0x33221100},
		{"__nv_byte_perm", []uint64{0x33221100, 0x77665544, 0x7654}, 0x77665544},
		{"__nv_byte_perm", []uint64{0x33221100, 0x77665544, 0x0123}, 0x00112233},
		// selector 0x8888 is masked to 0x0000: byte 0 (0x80) four times, no sign replication
		{"__nv_byte_perm", []uint64{0x00000080, 0, 0x8888}, 0x80808080},
		// 24-bit operands: 0x800000 is −2^23; −2^23·2 = −2^24
		{"__nv_mul24", []uint64{0x00800000, 2}, 0xff000000},
		{"__nv_mul24", []uint64{0xff000003, 5}, 15},
		{"__nv_umul24", []uint64{0x01000003, 0x00ffffff}, 0x2fffffd},
		{"__nv_mulhi", []uint64{u(-1), u(-1)}, 0},
		{"__nv_mulhi", []uint64{0x80000000, 0x80000000}, 0x40000000},
		{"__nv_mulhi", []uint64{u(-2), 3}, 0xffffffff},
		{"__nv_umulhi", []uint64{0xffffffff, 0xffffffff}, 0xfffffffe},
		{"__nv_mul64hi", []uint64{^uint64(0), ^uint64(0)}, 0},
		{"__nv_mul64hi", []uint64{1 << 63, 2}, ^uint64(0)},
		{"__nv_umul64hi", []uint64{1 << 63, 4}, 2},
		{"__nv_sad", []uint64{u(-5), 3, 10}, 18},
		{"__nv_sad", []uint64{0x80000000, 0x7fffffff, 0}, 0xffffffff},
		{"__nv_usad", []uint64{3, 5, 1}, 3},
		{"__nv_usad", []uint64{0, 0xffffffff, 0}, 0xffffffff},
		{"__nv_min", []uint64{u(-1), 1}, u(-1)},
		{"__nv_umin", []uint64{0xffffffff, 1}, 1},
		{"__nv_max", []uint64{u(-1), 1}, 1},
		{"__nv_umax", []uint64{0xffffffff, 1}, 0xffffffff},
		{"__nv_llmin", []uint64{1 << 63, 1}, 1 << 63},
		{"__nv_ullmin", []uint64{1 << 63, 1}, 1},
		{"__nv_llmax", []uint64{1 << 63, 1}, 1},
		{"__nv_ullmax", []uint64{1 << 63, 1}, 1 << 63},
		{"__nv_abs", []uint64{u(-5)}, 5},
		{"__nv_abs", []uint64{0x80000000}, 0x80000000},
		{"__nv_llabs", []uint64{^uint64(0)}, 1},
		{"__nv_fabsf", []uint64{f(-2.5)}, f(2.5)},
		{"__nv_fabsf", []uint64{0x80000000}, 0},
		{"__nv_fminf", []uint64{nan32, f(1)}, f(1)},
		{"__nv_fmaxf", []uint64{f(-3), nan32}, f(-3)},
		{"__nv_floorf", []uint64{f(-2.5)}, f(-3)},
		{"__nv_floorf", []uint64{sub32}, 0}, // +subnormal floors to +0 with or without FTZ
		{"__nv_ceilf", []uint64{f(-2.5)}, f(-2)},
		{"__nv_truncf", []uint64{f(-2.7)}, f(-2)},
		{"__nv_rintf", []uint64{f(2.5)}, f(2)},
		{"__nv_rintf", []uint64{f(3.5)}, f(4)},
		{"__nv_roundf", []uint64{f(2.5)}, f(3)},
		{"__nv_roundf", []uint64{f(-2.5)}, f(-3)},
		{"__nv_roundf", []uint64{0x3effffff}, 0}, // 0.49999997: 0.49999997 +rz 0.5 < 1
		{"__nv_roundf", []uint64{f(8388609)}, f(8388609)},
		// (1+2^-23)(1−2^-23) − 1 = −2^-46 exactly when fused
		{"__nv_fmaf", []uint64{f(1 + 0x1p-23), f(1 - 0x1p-23), f(-1)}, f(-0x1p-46)},
		{"__nv_fsqrt_rn", []uint64{f(2)}, 0x3fb504f3},
		{"__nv_fsqrt_rn", []uint64{f(-1)}, nan32},
		{"__nv_fadd_rz", []uint64{f(1), f(0x1p-24)}, f(1)},
		{"__nv_fadd_ru", []uint64{f(1), f(0x1p-24)}, f(1 + 0x1p-23)},
		{"__nv_fdiv_rn", []uint64{f(1), f(3)}, 0x3eaaaaab},
		{"__nv_fdiv_rz", []uint64{f(1), f(3)}, 0x3eaaaaaa},
		{"__nv_saturatef", []uint64{nan32}, 0},
		{"__nv_saturatef", []uint64{f(2)}, f(1)},
		{"__nv_copysignf", []uint64{f(2), 0x80000000}, f(-2)},
		{"__nv_floor", []uint64{d(-0.5)}, d(-1)},
		{"__nv_round", []uint64{d(-0.5)}, d(-1)},
		{"__nv_round", []uint64{d(0.49999999999999994)}, 0},
		{"__nv_rint", []uint64{d(0.5)}, 0},
		{"__nv_sqrt", []uint64{d(2)}, 0x3ff6a09e667f3bcd},
		{"__nv_fma", []uint64{d(1 + 0x1p-52), d(1 - 0x1p-52), d(-1)}, d(-0x1p-104)},
		{"__nv_dadd_rd", []uint64{d(1), d(0x1p-60)}, d(1)},
		{"__nv_dadd_ru", []uint64{d(1), d(0x1p-60)}, d(1 + 0x1p-52)},
		{"__nv_fmin", []uint64{d(math.NaN()), d(2)}, d(2)},
		{"__nv_double_as_longlong", []uint64{d(1)}, 0x3ff0000000000000},
		{"__nv_signbitf", []uint64{0x80000000}, 1},
		{"__nv_signbitd", []uint64{d(1)}, 0},
		{"__nv_isnanf", []uint64{nan32}, 1},
		{"__nv_isnanf", []uint64{0x7f800000}, 0},
		{"__nv_isinff", []uint64{0xff800000}, 1},
		{"__nv_finitef", []uint64{0x7f7fffff}, 1},
		{"__nv_finitef", []uint64{0x7f800000}, 0},
		{"__nv_isnand", []uint64{0x7ff0000000000001}, 1},
		{"__nv_isfinited", []uint64{0xfff0000000000000}, 0},
		// halving adds: floor((a + b) / 2) and floor((a + b + 1) / 2) without overflow
		{"__nv_hadd", []uint64{u(-3), 0}, u(-2)},
		{"__nv_rhadd", []uint64{u(-3), 0}, u(-1)},
		{"__nv_hadd", []uint64{0x7fffffff, 0x7fffffff}, 0x7fffffff},
		{"__nv_uhadd", []uint64{0xffffffff, 1}, 0x80000000},
		{"__nv_urhadd", []uint64{0xffffffff, 0}, 0x80000000},
		{"__nv_hiloint2double", []uint64{0x3ff00000, 0}, d(1)},
		{"__nv_double2hiint", []uint64{d(1)}, 0x3ff00000},
		{"__nv_double2loint", []uint64{d(1 + 0x1p-52)}, 1},
		{"__nv_fdimf", []uint64{f(3), f(5)}, 0},
		{"__nv_fdimf", []uint64{f(5), f(3)}, f(2)},
		{"__nv_fdimf", []uint64{nan32, f(1)}, nan32},
		// cvt: rounding, saturation, NaN -> 0
		{"__nv_float2int_rn", []uint64{f(2.5)}, 2},
		{"__nv_float2int_rd", []uint64{f(-0.5)}, u(-1)},
		{"__nv_float2int_rz", []uint64{f(3e9)}, 0x7fffffff},
		{"__nv_float2int_rn", []uint64{nan32}, 0},
		{"__nv_float2uint_rz", []uint64{f(-1)}, 0},
		{"__nv_float2ll_ru", []uint64{f(-0.5)}, 0},
		{"__nv_float2ull_rn", []uint64{f(0x1p64)}, ^uint64(0)},
		{"__nv_double2int_rz", []uint64{d(-2.9)}, u(-2)},
		{"__nv_double2ll_rd", []uint64{d(-0x1p70)}, 1 << 63},
		{"__nv_int2float_rn", []uint64{16777217}, f(16777216)},
		{"__nv_int2float_ru", []uint64{16777217}, f(16777218)},
		{"__nv_uint2float_rz", []uint64{0xffffffff}, f(0x1p32 - 256)},
		{"__nv_ll2float_rd", []uint64{^uint64(0)}, f(-1)},
		{"__nv_ull2double_rn", []uint64{1<<53 + 1}, d(0x1p53)},
		{"__nv_ll2double_ru", []uint64{1<<53 + 1}, d(0x1p53 + 2)},
		{"__nv_int2double_rn", []uint64{0x80000000}, d(-0x1p31)},
		{"__nv_double2float_rz", []uint64{d(1 + 0x1p-30)}, f(1)},
		{"__nv_double2float_ru", []uint64{d(1 + 0x1p-30)}, f(1 + 0x1p-23)},
	}
	table := libdevTable()
	for _, c := range cases {
		fn := table[c.fn]
		if fn == nil {
			t.Errorf("%s: not built in", c.fn)
			continue
		}
		if len(c.args) != len(fn.args) {
			t.Fatalf("%s: %d args, the function has %d", c.fn, len(c.args), len(fn.args))
		}
		var a [3]uint64
		copy(a[:], c.args)
		got, refuse := fn.eval(a)
		if refuse != "" || got&sizeMask(fn.ret) != c.want {
			t.Errorf("%s(%#x) = %#x (%q), want %#x", c.fn, c.args, got, refuse, c.want)
		}
	}
	// FTZ-dependent results are refused: −subnormal floors to −1 without FTZ, to −0 with it.
	for _, c := range []struct {
		fn   string
		args []uint64
	}{
		{"__nv_floorf", []uint64{nsub32}},
		{"__nv_fabsf", []uint64{nsub32}},
		{"__nv_fmaf", []uint64{f(0x1p-70), f(0x1p-70), 0}},
		{"__nv_fadd_rn", []uint64{sub32, 0}},
		{"__nv_float2int_rd", []uint64{nsub32}},         // −1, or 0 after the flush
		{"__nv_double2float_rn", []uint64{d(0x1p-130)}}, // a subnormal result
	} {
		var a [3]uint64
		copy(a[:], c.args)
		if _, refuse := table[c.fn].eval(a); !strings.Contains(refuse, "__CUDA_FTZ") {
			t.Errorf("%s(%#x): refusal %q, want one naming __CUDA_FTZ", c.fn, c.args, refuse)
		}
	}
}

func TestLibdeviceRefused(t *testing.T) {
	for name, want := range map[string]string{
		"__nv_sqrtf":     "__CUDA_PREC_SQRT",
		"__nv_rsqrtf":    "approximate instruction",
		"__nv_fast_expf": "approximate instruction",
		"__nv_expf":      "bit for bit",
		"__nv_sin":       "bit for bit",
	} {
		_, isLib, err := lookupLibdevice(name)
		if !isLib || err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: isLib %v, err %v; want an error naming it and %q", name, isLib, err, want)
		}
	}
	if _, isLib, _ := lookupLibdevice("vprintf"); isLib {
		t.Errorf("vprintf is not a libdevice function")
	}
}

const libdevPTX = "testdata/libdevice/libdevice.clang14-sm_52.ptx"

func parseLibdev(t *testing.T, src string) *Program {
	t.Helper()
	return programOf(t, libdevPTX, src)
}

// TestLibdeviceLoadErrors: a call of a libdevice function replay does not
// build in, or an extern declaration whose signature is not libdevice's,
// is refused when the kernel is lowered (a load warning naming the
// function; executing the call is a fault, as for every instruction that
// could not be lowered).
func TestLibdeviceLoadErrors(t *testing.T) {
	b, err := os.ReadFile(libdevPTX)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for _, c := range []struct{ from, to, kernel, want string }{
		{"__nv_floorf", "__nv_expf", "ld_float", "libdevice function __nv_expf is not supported"},
		{"__nv_fsqrt_rn", "__nv_sqrtf", "ld_float", "__CUDA_PREC_SQRT"},
		{"__nv_truncf", "__nv_dsqrt_rn", "ld_float", "declaration of libdevice function __nv_dsqrt_rn does not match libdevice"},
	} {
		code, err := parseLibdev(t, strings.ReplaceAll(src, c.from, c.to)).Lower(c.kernel)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, w := range code.Warnings {
			found = found || strings.Contains(w, c.want)
		}
		if !found {
			t.Errorf("%s -> %s: warnings %q, want one containing %q", c.from, c.to, code.Warnings, c.want)
		}
	}
}
