package replay

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
)

// Built-in libdevice functions.
//
// PTX from clang -nocudalib (and Triton-style code generators) calls
// libdevice's __nv_* functions through `.extern .func` declarations that
// nothing in the module defines. Replay evaluates the functions whose
// libdevice definition (libdevice.10.bc, CUDA 11.8) is a fixed composition
// of exactly specified operations: integer bit operations and halving adds,
// IEEE-rounded arithmetic, rounding to integral values, conversions (cvt),
// min/max/abs/copysign/fdim, classification predicates and bit casts. Each entry below
// follows that definition, not the CUDA documentation's prose (e.g.
// __nv_byte_perm masks the selector with 0x7777, so no byte is
// sign-replicated; __nv_roundf is trunc(x +rz copysign(0.5, x))).
//
// Many float definitions branch on __nvvm_reflect("__CUDA_FTZ"), which is
// decided when libdevice is linked, not in the PTX. Replay computes both
// variants and faults when they differ (a subnormal operand or result),
// rather than guess. Everything else is refused when the kernel is loaded,
// with the reason: __nv_sqrtf depends on __CUDA_PREC_SQRT (nvcc links
// sqrt.rn.f32, clang 14 sqrt.approx.f32), __nv_rsqrtf and the fast_*
// functions are approximate instructions whose result bits PTX does not
// define, and the transcendental functions are long libdevice sequences
// (polynomials around ex2/lg2.approx or hardware-specific reductions) that
// replay does not reproduce bit for bit.

// libdevFn is one built-in libdevice function: the byte size of each
// argument and of the result (4 or 8), and its evaluation for one lane.
// eval returns a non-empty refusal when the result is not determined.
type libdevFn struct {
	args []int
	ret  int
	eval func(a [3]uint64) (uint64, string)
}

// libdevUnsupported explains why a known libdevice function is not built in.
func libdevUnsupported(name string) string {
	switch {
	case name == "__nv_isinfd":
		return "its definition depends on __CUDA_ARCH, which the PTX does not fix"
	case name == "__nv_sqrtf":
		return "its definition depends on __CUDA_PREC_SQRT, fixed when libdevice is linked (nvcc: sqrt.rn.f32, clang 14: sqrt.approx.f32); use __nv_fsqrt_rn or link libdevice"
	case name == "__nv_rsqrtf" || name == "__nv_rsqrt" || strings.HasPrefix(name, "__nv_fast_") || name == "__nv_frsqrt_rn" ||
		name == "__nv_rcp64h" || name == "__nv_exp2f":
		return "libdevice computes it with an approximate instruction whose result bits PTX does not define"
	}
	return "replay does not reproduce its libdevice instruction sequence bit for bit (only exactly specified functions are built in); link libdevice (clang without -nocudalib, or nvcc) to replay it"
}

// lookupLibdevice returns the built-in for name, or an error naming the
// function and why replay refuses it. ok is false for names that are not
// libdevice functions (not __nv_*).
func lookupLibdevice(name string) (fn *libdevFn, ok bool, err error) {
	if !strings.HasPrefix(name, "__nv_") {
		return nil, false, nil
	}
	if f, found := libdevTable()[name]; found {
		return f, true, nil
	}
	return nil, true, fmt.Errorf("libdevice function %s is not supported: %s", name, libdevUnsupported(name))
}

// checkLibdevSig checks the extern declaration's parameter and result
// sizes against the libdevice signature.
func checkLibdevSig(name string, fn *libdevFn, f *fnCode) error {
	sig := func(args []int, ret int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "(%d bytes) %s(", ret, name)
		for i, a := range args {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d bytes", a)
		}
		b.WriteString(")")
		return b.String()
	}
	var got []int
	for _, p := range f.params {
		got = append(got, p.size)
	}
	gotRet := 0
	if len(f.rets) == 1 {
		gotRet = f.rets[0].size
	}
	if len(f.rets) != 1 || gotRet != fn.ret || len(got) != len(fn.args) {
		return fmt.Errorf("declaration of libdevice function %s does not match libdevice: declared %s, libdevice has %s", name, sig(got, gotRet), sig(fn.args, fn.ret))
	}
	for i := range got {
		if got[i] != fn.args[i] {
			return fmt.Errorf("declaration of libdevice function %s does not match libdevice: declared %s, libdevice has %s", name, sig(got, gotRet), sig(fn.args, fn.ret))
		}
	}
	return nil
}

// libdevice evaluates a built-in libdevice call for the lanes in m.
func (w *warp) libdevice(in *inst, f *fnCode, m uint32, fr *frame) {
	fn := f.libdev
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		var a [3]uint64
		for i := range fn.args {
			if i < len(in.args) {
				a[i] = w.slotVal(fr, in.args[i], l) & sizeMask(fn.args[i])
			}
		}
		v, refuse := fn.eval(a)
		if refuse != "" {
			w.faultf(in, l, FaultUnsupported, "%s: %s", f.name, refuse)
			return
		}
		v &= sizeMask(fn.ret)
		if len(in.rets) == 0 {
			continue
		}
		r := in.rets[0]
		if r.reg >= 0 {
			fr.regs[int(r.reg)+l] = v
		} else if n := min(r.size, fn.ret); fr.fp+r.off+n <= len(w.local[l]) {
			putLE(w.local[l][fr.fp+r.off:], n, v)
		}
	}
}

func sizeMask(n int) uint64 {
	if n >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*n) - 1
}

const ftzRefusal = "the result depends on __CUDA_FTZ (a subnormal operand or result), which is fixed when libdevice is linked, not in the PTX"

// ftz32 evaluates a float function in its non-FTZ and FTZ variants (the
// FTZ one flushes subnormal operands and results to sign-preserving zero,
// as PTX .ftz does) and refuses when they differ.
func ftz32(op func(x, y, z float32) float32) func(a [3]uint64) (uint64, string) {
	return func(a [3]uint64) (uint64, string) {
		x, y, z := f32(a[0]), f32(a[1]), f32(a[2])
		plain := op(x, y, z)
		fx, fy, fz := fpx.FtzF32(x), fpx.FtzF32(y), fpx.FtzF32(z)
		flushed := fpx.FtzF32(op(fx, fy, fz))
		if math.Float32bits(plain) != math.Float32bits(flushed) {
			return 0, ftzRefusal
		}
		return b32(plain), ""
	}
}

// plain32 and plain64 wrap float functions without an FTZ variant.
func plain32(op func(x, y, z float32) float32) func(a [3]uint64) (uint64, string) {
	return func(a [3]uint64) (uint64, string) { return b32(op(f32(a[0]), f32(a[1]), f32(a[2]))), "" }
}

func plain64(op func(x, y, z float64) float64) func(a [3]uint64) (uint64, string) {
	return func(a [3]uint64) (uint64, string) { return b64(op(f64(a[0]), f64(a[1]), f64(a[2]))), "" }
}

func intFn(op func(x, y, z uint64) uint64) func(a [3]uint64) (uint64, string) {
	return func(a [3]uint64) (uint64, string) { return op(a[0], a[1], a[2]), "" }
}

func sext32(v uint64) int64 { return int64(int32(uint32(v))) }

// roundHalfAway32 is libdevice's __nv_roundf: trunc(x +rz copysign(0.5, x)).
func roundHalfAway32(x float32) float32 {
	h := math.Float32frombits(math.Float32bits(x)&(1<<31) | 0x3f000000)
	return fpx.RoundToInt32(fpx.AddF32(x, h, fpx.RZ), fpx.RZ)
}

// roundHalfAway64 is __nv_round: trunc(x +rz copysign(0.5, x)).
func roundHalfAway64(x float64) float64 {
	h := math.Float64frombits(math.Float64bits(x)&(1<<63) | 0x3fe0000000000000)
	return fpx.RoundToInt64(fpx.AddF64(x, h, fpx.RZ), fpx.RZ)
}

// libdevTable builds the table of built-in functions (a fresh map; it is
// consulted only while lowering).
func libdevTable() map[string]*libdevFn {
	t := map[string]*libdevFn{}
	i1 := func(name string, arg, ret int, op func(x uint64) uint64) {
		t[name] = &libdevFn{args: []int{arg}, ret: ret, eval: intFn(func(x, _, _ uint64) uint64 { return op(x) })}
	}
	i2 := func(name string, size int, op func(x, y uint64) uint64) {
		t[name] = &libdevFn{args: []int{size, size}, ret: size, eval: intFn(func(x, y, _ uint64) uint64 { return op(x, y) })}
	}
	i3 := func(name string, op func(x, y, z uint64) uint64) {
		t[name] = &libdevFn{args: []int{4, 4, 4}, ret: 4, eval: intFn(op)}
	}
	// bit operations (llvm.ctpop, ctlz, bitreverse)
	i1("__nv_popc", 4, 4, func(x uint64) uint64 { return uint64(bits.OnesCount32(uint32(x))) })
	i1("__nv_popcll", 8, 4, func(x uint64) uint64 { return uint64(bits.OnesCount64(x)) })
	i1("__nv_clz", 4, 4, func(x uint64) uint64 { return uint64(bits.LeadingZeros32(uint32(x))) })
	i1("__nv_clzll", 8, 4, func(x uint64) uint64 { return uint64(bits.LeadingZeros64(x)) })
	// __nv_ffs: bfind.shiftamt.u32(brev(x)) + 1; bfind of 0 is 0xffffffff, so ffs(0) = 0
	i1("__nv_ffs", 4, 4, func(x uint64) uint64 {
		if uint32(x) == 0 {
			return 0
		}
		return uint64(bits.TrailingZeros32(uint32(x)) + 1)
	})
	// __nv_ffsll: 64 − ctlz(x & −x); ctlz(0) = 64
	i1("__nv_ffsll", 8, 4, func(x uint64) uint64 { return uint64(64 - bits.LeadingZeros64(x&-x)) })
	i1("__nv_brev", 4, 4, func(x uint64) uint64 { return uint64(bits.Reverse32(uint32(x))) })
	i1("__nv_brevll", 8, 8, func(x uint64) uint64 { return bits.Reverse64(x) })
	// __nv_byte_perm: prmt.b32 a, b, c & 0x7777 (default mode; bytes 0–3 of a, 4–7 of b)
	i3("__nv_byte_perm", func(a, b, c uint64) uint64 {
		src := uint64(uint32(a)) | uint64(uint32(b))<<32
		sel := uint32(c) & 0x7777
		var r uint64
		for n := 0; n < 4; n++ {
			k := (sel >> (4 * n)) & 7
			r |= (src >> (8 * k) & 0xff) << (8 * n)
		}
		return r
	})
	// multiplications
	i2("__nv_mul24", 4, func(x, y uint64) uint64 {
		return uint64(int64(int32(uint32(x)<<8)>>8) * int64(int32(uint32(y)<<8)>>8))
	})
	i2("__nv_umul24", 4, func(x, y uint64) uint64 { return (x & 0xffffff) * (y & 0xffffff) })
	i2("__nv_mulhi", 4, func(x, y uint64) uint64 { return uint64((sext32(x) * sext32(y)) >> 32) })
	i2("__nv_umulhi", 4, func(x, y uint64) uint64 { return (uint64(uint32(x)) * uint64(uint32(y))) >> 32 })
	i2("__nv_umul64hi", 8, func(x, y uint64) uint64 { hi, _ := bits.Mul64(x, y); return hi })
	i2("__nv_mul64hi", 8, func(x, y uint64) uint64 {
		hi, _ := bits.Mul64(x, y)
		// signed high half: subtract y if x < 0 and x if y < 0 (two's complement correction)
		if int64(x) < 0 {
			hi -= y
		}
		if int64(y) < 0 {
			hi -= x
		}
		return hi
	})
	// sad.s32 / sad.u32: c + |a − b| (32-bit wrap-around)
	i3("__nv_sad", func(a, b, c uint64) uint64 {
		x, y := int32(uint32(a)), int32(uint32(b))
		d := uint32(x) - uint32(y)
		if x < y {
			d = uint32(y) - uint32(x)
		}
		return uint64(uint32(c) + d)
	})
	i3("__nv_usad", func(a, b, c uint64) uint64 {
		x, y := uint32(a), uint32(b)
		d := x - y
		if x < y {
			d = y - x
		}
		return uint64(uint32(c) + d)
	})
	// min / max (select on icmp)
	i2("__nv_min", 4, func(x, y uint64) uint64 { return pick(int32(uint32(x)) <= int32(uint32(y)), x, y) })
	i2("__nv_umin", 4, func(x, y uint64) uint64 { return pick(uint32(x) <= uint32(y), x, y) })
	i2("__nv_max", 4, func(x, y uint64) uint64 { return pick(int32(uint32(x)) >= int32(uint32(y)), x, y) })
	i2("__nv_umax", 4, func(x, y uint64) uint64 { return pick(uint32(x) >= uint32(y), x, y) })
	i2("__nv_llmin", 8, func(x, y uint64) uint64 { return pick(int64(x) <= int64(y), x, y) })
	i2("__nv_ullmin", 8, func(x, y uint64) uint64 { return pick(x <= y, x, y) })
	i2("__nv_llmax", 8, func(x, y uint64) uint64 { return pick(int64(x) >= int64(y), x, y) })
	i2("__nv_ullmax", 8, func(x, y uint64) uint64 { return pick(x >= y, x, y) })
	// abs: x >= 0 ? x : 0 − x (abs(INT_MIN) = INT_MIN)
	i1("__nv_abs", 4, 4, func(x uint64) uint64 { return pick(int32(uint32(x)) >= 0, x, uint64(-uint32(x))) })
	i1("__nv_llabs", 8, 8, func(x uint64) uint64 { return pick(int64(x) >= 0, x, -x) })
	// bit casts
	for _, n := range []string{"__nv_int_as_float", "__nv_float_as_int", "__nv_uint_as_float", "__nv_float_as_uint"} {
		i1(n, 4, 4, func(x uint64) uint64 { return x })
	}
	for _, n := range []string{"__nv_longlong_as_double", "__nv_double_as_longlong"} {
		i1(n, 8, 8, func(x uint64) uint64 { return x })
	}

	fl32 := func(name string, n int, ftz bool, op func(x, y, z float32) float32) {
		args := make([]int, n)
		for i := range args {
			args[i] = 4
		}
		e := plain32(op)
		if ftz {
			e = ftz32(op)
		}
		t[name] = &libdevFn{args: args, ret: 4, eval: e}
	}
	fl64 := func(name string, n int, op func(x, y, z float64) float64) {
		args := make([]int, n)
		for i := range args {
			args[i] = 8
		}
		t[name] = &libdevFn{args: args, ret: 8, eval: plain64(op)}
	}
	absF32 := func(x, _, _ float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }
	fl32("__nv_fabsf", 1, true, absF32)
	fl32("__nv_fminf", 2, true, func(x, y, _ float32) float32 { return fpx.MinF32(x, y, false) })
	fl32("__nv_fmaxf", 2, true, func(x, y, _ float32) float32 { return fpx.MaxF32(x, y, false) })
	fl32("__nv_copysignf", 2, false, func(x, y, _ float32) float32 {
		return math.Float32frombits(math.Float32bits(y)&(1<<31) | math.Float32bits(x)&^(1<<31))
	})
	fl32("__nv_saturatef", 1, true, func(x, _, _ float32) float32 { return fpx.SatF32(x) })
	fl32("__nv_floorf", 1, true, func(x, _, _ float32) float32 { return fpx.RoundToInt32(x, fpx.RM) })
	fl32("__nv_ceilf", 1, true, func(x, _, _ float32) float32 { return fpx.RoundToInt32(x, fpx.RP) })
	fl32("__nv_truncf", 1, false, func(x, _, _ float32) float32 { return fpx.RoundToInt32(x, fpx.RZ) })
	fl32("__nv_rintf", 1, false, func(x, _, _ float32) float32 { return fpx.RoundToInt32(x, fpx.RN) })
	fl32("__nv_nearbyintf", 1, false, func(x, _, _ float32) float32 { return fpx.RoundToInt32(x, fpx.RN) })
	fl32("__nv_roundf", 1, true, func(x, _, _ float32) float32 { return roundHalfAway32(x) })
	fl32("__nv_fmaf", 3, true, func(x, y, z float32) float32 { return fpx.FmaF32(x, y, z, fpx.RN) })
	fl32("__nv_fsqrt_rn", 1, true, func(x, _, _ float32) float32 { return fpx.SqrtF32(x, fpx.RN) })

	fl64("__nv_fabs", 1, func(x, _, _ float64) float64 { return math.Float64frombits(math.Float64bits(x) &^ (1 << 63)) })
	fl64("__nv_fmin", 2, func(x, y, _ float64) float64 { return fpx.MinF64(x, y, false) })
	fl64("__nv_fmax", 2, func(x, y, _ float64) float64 { return fpx.MaxF64(x, y, false) })
	fl64("__nv_copysign", 2, func(x, y, _ float64) float64 {
		return math.Float64frombits(math.Float64bits(y)&(1<<63) | math.Float64bits(x)&^(1<<63))
	})
	fl64("__nv_floor", 1, func(x, _, _ float64) float64 { return fpx.RoundToInt64(x, fpx.RM) })
	fl64("__nv_ceil", 1, func(x, _, _ float64) float64 { return fpx.RoundToInt64(x, fpx.RP) })
	fl64("__nv_trunc", 1, func(x, _, _ float64) float64 { return fpx.RoundToInt64(x, fpx.RZ) })
	fl64("__nv_rint", 1, func(x, _, _ float64) float64 { return fpx.RoundToInt64(x, fpx.RN) })
	fl64("__nv_nearbyint", 1, func(x, _, _ float64) float64 { return fpx.RoundToInt64(x, fpx.RN) })
	fl64("__nv_round", 1, func(x, _, _ float64) float64 { return roundHalfAway64(x) })
	fl64("__nv_fma", 3, func(x, y, z float64) float64 { return fpx.FmaF64(x, y, z, fpx.RN) })
	fl64("__nv_sqrt", 1, func(x, _, _ float64) float64 { return fpx.SqrtF64(x, fpx.RN) })

	// IEEE-rounded arithmetic: _rn _rz _rd _ru
	for suf, r := range map[string]fpx.Round{"rn": fpx.RN, "rz": fpx.RZ, "rd": fpx.RM, "ru": fpx.RP} {
		r := r
		fl32("__nv_fadd_"+suf, 2, true, func(x, y, _ float32) float32 { return fpx.AddF32(x, y, r) })
		fl32("__nv_fsub_"+suf, 2, true, func(x, y, _ float32) float32 { return fpx.SubF32(x, y, r) })
		fl32("__nv_fmul_"+suf, 2, true, func(x, y, _ float32) float32 { return fpx.MulF32(x, y, r) })
		fl32("__nv_fmaf_"+suf, 3, true, func(x, y, z float32) float32 { return fpx.FmaF32(x, y, z, r) })
		fl32("__nv_fdiv_"+suf, 2, true, func(x, y, _ float32) float32 { return fpx.DivF32(x, y, r) })
		fl32("__nv_frcp_"+suf, 1, true, func(x, _, _ float32) float32 { return fpx.RcpF32(x, r) })
		fl32("__nv_fsqrt_"+suf, 1, true, func(x, _, _ float32) float32 { return fpx.SqrtF32(x, r) })
		fl64("__nv_dadd_"+suf, 2, func(x, y, _ float64) float64 { return fpx.AddF64(x, y, r) })
		fl64("__nv_dsub_"+suf, 2, func(x, y, _ float64) float64 { return fpx.SubF64(x, y, r) })
		fl64("__nv_dmul_"+suf, 2, func(x, y, _ float64) float64 { return fpx.MulF64(x, y, r) })
		fl64("__nv_fma_"+suf, 3, func(x, y, z float64) float64 { return fpx.FmaF64(x, y, z, r) })
		fl64("__nv_ddiv_"+suf, 2, func(x, y, _ float64) float64 { return fpx.DivF64(x, y, r) })
		fl64("__nv_drcp_"+suf, 1, func(x, _, _ float64) float64 { return fpx.RcpF64(x, r) })
		fl64("__nv_dsqrt_"+suf, 1, func(x, _, _ float64) float64 { return fpx.SqrtF64(x, r) })
	}
	// predicates on the bit pattern (fabs.ftz turns a subnormal into a zero,
	// which changes none of them)
	i1("__nv_signbitf", 4, 4, func(x uint64) uint64 { return x >> 31 & 1 })
	i1("__nv_signbitd", 8, 4, func(x uint64) uint64 { return x >> 63 })
	i1("__nv_isnanf", 4, 4, func(x uint64) uint64 { return b2u(uint32(x)&0x7fffffff > 0x7f800000) })
	i1("__nv_isinff", 4, 4, func(x uint64) uint64 { return b2u(uint32(x)&0x7fffffff == 0x7f800000) })
	i1("__nv_finitef", 4, 4, func(x uint64) uint64 { return b2u(uint32(x)&0x7fffffff < 0x7f800000) })
	i1("__nv_isnand", 8, 4, func(x uint64) uint64 { return b2u(x&^(1<<63) > 0x7ff0000000000000) })
	i1("__nv_isfinited", 8, 4, func(x uint64) uint64 { return b2u(x>>32&0x7ff00000 != 0x7ff00000) })
	// halving adds: (a & b) + ((a ^ b) >> 1), rounded: (a | b) − ((a ^ b) >> 1)
	i2("__nv_hadd", 4, func(a, b uint64) uint64 { return uint64(int32(uint32(a)&uint32(b)) + int32(uint32(a)^uint32(b))>>1) })
	i2("__nv_rhadd", 4, func(a, b uint64) uint64 { return uint64(int32(uint32(a)|uint32(b)) - int32(uint32(a)^uint32(b))>>1) })
	i2("__nv_uhadd", 4, func(a, b uint64) uint64 { return uint64(uint32(a)&uint32(b) + (uint32(a)^uint32(b))>>1) })
	i2("__nv_urhadd", 4, func(a, b uint64) uint64 { return uint64(uint32(a) | uint32(b) - (uint32(a)^uint32(b))>>1) })
	// double halves
	t["__nv_hiloint2double"] = &libdevFn{args: []int{4, 4}, ret: 8, eval: intFn(func(hi, lo, _ uint64) uint64 { return uint64(uint32(hi))<<32 | uint64(uint32(lo)) })}
	i1("__nv_double2loint", 8, 4, func(x uint64) uint64 { return x & 0xffffffff })
	i1("__nv_double2hiint", 8, 4, func(x uint64) uint64 { return x >> 32 })
	// fdimf: a <= b (ordered) ? 0 : a − b. The fsub's denormal mode is the
	// module's at libdevice link time, so both variants are computed.
	fl32("__nv_fdimf", 2, true, func(x, y, _ float32) float32 {
		if x <= y {
			return 0
		}
		return fpx.SubF32(x, y, fpx.RN)
	})

	// conversions (cvt): float to integer saturates, NaN gives 0; FTZ
	// variants of the f32 sources flush a subnormal operand first.
	for suf, r := range map[string]fpx.Round{"rn": fpx.RN, "rz": fpx.RZ, "rd": fpx.RM, "ru": fpx.RP} {
		r := r
		for _, c := range []struct {
			name   string
			bits   int
			signed bool
		}{{"int", 32, true}, {"uint", 32, false}, {"ll", 64, true}, {"ull", 64, false}} {
			c := c
			size := c.bits / 8
			t["__nv_float2"+c.name+"_"+suf] = &libdevFn{args: []int{4}, ret: size, eval: func(a [3]uint64) (uint64, string) {
				x := f32(a[0])
				v := fpx.FloatToInt(float64(x), r, c.bits, c.signed)
				if fpx.FloatToInt(float64(fpx.FtzF32(x)), r, c.bits, c.signed) != v {
					return 0, ftzRefusal
				}
				return v, ""
			}}
			t["__nv_double2"+c.name+"_"+suf] = &libdevFn{args: []int{8}, ret: size, eval: intFn(func(x, _, _ uint64) uint64 {
				return fpx.FloatToInt(f64(x), r, c.bits, c.signed)
			})}
			t["__nv_"+c.name+"2float_"+suf] = &libdevFn{args: []int{size}, ret: 4, eval: intFn(func(x, _, _ uint64) uint64 {
				return b32(fpx.IntToF32(x, c.signed, c.bits, r))
			})}
			if c.bits == 64 {
				t["__nv_"+c.name+"2double_"+suf] = &libdevFn{args: []int{8}, ret: 8, eval: intFn(func(x, _, _ uint64) uint64 {
					return b64(fpx.IntToF64(x, c.signed, 64, r))
				})}
			}
		}
		t["__nv_double2float_"+suf] = &libdevFn{args: []int{8}, ret: 4, eval: func(a [3]uint64) (uint64, string) {
			v := fpx.F64ToF32(f64(a[0]), r)
			if math.Float32bits(fpx.FtzF32(v)) != math.Float32bits(v) {
				return 0, ftzRefusal
			}
			return b32(v), ""
		}}
	}
	// 32-bit integers convert to double exactly (libdevice has only _rn)
	i1("__nv_int2double_rn", 4, 8, func(x uint64) uint64 { return b64(float64(int32(uint32(x)))) })
	i1("__nv_uint2double_rn", 4, 8, func(x uint64) uint64 { return b64(float64(uint32(x))) })
	return t
}

func pick(c bool, x, y uint64) uint64 {
	if c {
		return x
	}
	return y
}
