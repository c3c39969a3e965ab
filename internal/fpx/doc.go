// Package fpx provides bit-exact floating-point helpers for replaying PTX
// arithmetic and conversions on the CPU.
//
// Model: every value is an IEEE 754-2008 binary interchange format pattern
// (binary16 as uint16, bfloat16 as uint16, TF32 as a binary32 pattern with the
// low 13 bits zero, binary32 as float32, binary64 as float64, OCP FP8 E4M3 and
// E5M2 as uint8). Each correctly rounded operation computes the exact result
// of the operation on the operand values and rounds it once to the
// destination format in the requested direction (Round: RN, RZ, RM, RP, RNA),
// with gradual underflow (subnormals) and the clause 7.4 overflow rules. One
// routine, format.encode, performs every final rounding, so conversions and
// arithmetic share the same tie, underflow and overflow behaviour.
//
// Invariants:
//   - Pure functions: no global state is written after package
//     initialisation; the same inputs give the same bits on every platform.
//     Go may fuse x*y+z into an FMA on some architectures, so every product
//     whose rounding matters is wrapped in an explicit conversion (Go spec:
//     an explicit conversion rounds and prevents fusion), and FMA is only
//     used deliberately through math.FMA.
//   - Exactly one rounding per operation: no double rounding through float32
//     or float64 unless provably innocuous (float64 carries >= 2p+2 bits for
//     binary32 +, -, *, /, sqrt in RN). Directed modes learn the side of the
//     exact value with error-free transformations (TwoSum, FMA remainders);
//     where those are not exact, math/big computes the exact value.
//   - NaN: arithmetic results that are NaN are the canonical NaN of the
//     format (CanonicalNaN32 = 0x7fffffff for .f32, 0x7fff for .f16/.bf16,
//     CanonicalNaN64 for .f64). Format conversions keep sign and payload
//     (IEEE 6.2.3) so that widening followed by narrowing is the identity.
//     FloatToInt maps NaN to 0 (PTX cvt).
//   - Zero signs follow IEEE 6.3: an exact zero sum is +0 except under RM
//     (-0), unless both addends are zeros of the same sign.
//   - .ftz and .sat are not applied implicitly; callers apply FtzF32 to
//     operands and results and SatF32 to results as the instruction asks.
//   - Approximate instructions (Ex2Approx, Lg2Approx, SinApprox, CosApprox,
//     RcpApprox, RsqrtApprox, SqrtApprox, TanhApprox) return deterministic,
//     (nearly always) correctly rounded values and follow the PTX ISA
//     special-case tables; they are within the PTX ISA's documented error
//     bounds but are not bit-identical to any particular GPU's
//     special-function unit, whose tables NVIDIA does not publish.
package fpx
