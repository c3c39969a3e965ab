package replay

// Spelling cases: they complete the coverage of the opcode table
// (TestSpellingCoverage); every expected value is derived by hand from the
// PTX ISA, with the derivation next to the case where it is not obvious.

func spellingCases() []ccase {
	one := func(x uint64) []uint64 { return []uint64{x} }
	lane := func(f func(l int) uint64) func(l int) []uint64 { return func(l int) []uint64 { return one(f(l)) } }
	pred := func(f func(l int) bool) func(l int) []uint64 {
		return func(l int) []uint64 { return one(b2u(f(l))) }
	}
	untouched := func(l int) []uint64 { return nil }
	const m64 = ^uint64(0)
	const cmod = ".const .align 4 .u32 cv[2] = {7, 9};\n"
	const fmod = ".func (.param .b32 r) incr(.param .b32 x)\n{\n\t.reg .b32 %v;\n\tld.param.b32 %v, [x];\n\tadd.u32 %v, %v, 1;\n\tst.param.b32 [r], %v;\n\tret;\n}\n"
	// ldmatrix: lane l (< 16) stores u16 values 4l..4l+3 at smem[8l..],
	// so the u16 at index i of smem holds i; lane r of each 8-lane group
	// addresses row r = 16 bytes at smem[16r] (.x4: lanes 16..31 repeat
	// lanes 0..15, so matrices 2, 3 equal 0, 1). Matrix j row r col c is
	// 64j + 8r + c; lane t gets (t/4, 2(t%4)) low and (t/4, 2(t%4)+1) high,
	// .trans (2(t%4), t/4) and (2(t%4)+1, t/4).
	ldmIn := func(l int) []uint64 {
		b := uint64(4 * l)
		return []uint64{b | (b+1)<<16 | (b+2)<<32 | (b+3)<<48}
	}
	el := func(j, r, c int) uint64 { return uint64(64*(j%2) + 8*r + c) }
	frag := func(j, t int, trans bool) uint64 {
		g, q := t/4, t%4
		if trans {
			return el(j, 2*q, g) | el(j, 2*q+1, g)<<16
		}
		return el(j, g, 2*q) | el(j, g, 2*q+1)<<16
	}
	// cp.async 16-byte slots: %off = cpbuf + 16*tid
	const cpMod = ".shared .align 16 .b8 cpbuf[512];\n"
	const cpSlot = "mov.u64 %off, cpbuf; mul.wide.u32 %t64, %tid, 16; add.u64 %off, %off, %t64; "
	const ldmAddr = "st.shared.u64 [%sm], $a; bar.sync 0; and.b32 %t32, %tid, 15; mul.wide.u32 %t64, %t32, 16; add.u64 %t64, %sm0, %t64; "
	return []ccase{
		// integer widths and forms
		bin("add.s16", 16, 0x8000, 0x7fff, 1),
		k("add.cc.u64 %t64, $a, $a; addc.s64 $d, $b, $b", "64:64,64", 5, 1<<63, 2),                  // carry 1: 2+2+1
		k("sub.cc.u32 %t32, $a, $b; subc.s32 $d, $a, $a", "32:32,32", 0xffffffff, 0, 1),             // borrow 1: 0-0-1
		k("sub.cc.u64 %t64, $a, $b; subc.s64 $d, $a, $a", "64:64,64", m64, 0, 1),                    // borrow 1
		k("add.cc.u32 %t32, $a, $a; madc.lo.s32 $d, $b, $b, $c", "32:32,32,32", 7, 1<<31, 2, 2),     // 2*2+2+1
		k("add.cc.u64 %t64, $a, $a; madc.hi.s64 $d, $b, $b, $c", "64:64,64,64", 7, 1<<63, 1<<32, 5), // hi(2^64)=1, +5+1
		tern("mad24.lo.s32", 32, 4, 0xfffffffe, 3, 10),                                              // -2*3+10
		// hi = product bits 47..16: 0x7fffff^2 = 0x3fffff000001 -> 0x3fffff00;
		// + 0x7fffffff overflows: saturates to 0x7fffffff
		tern("mad24.hi.sat.s32", 32, 0x7fffffff, 0x7fffff, 0x7fffff, 0x7fffffff),
		tern("mad.lo.s64", 64, 85, uint64(m64-2), 5, 100), // -3*5+100
		// 1*(1+2^-23) - 2^-30 lies between 1 and 1+2^-23: rz/rm give 1,
		// rp gives 1+2^-23
		tern("mad.rz.f32", 32, 0x3f800000, 0x3f800000, 0x3f800001, 0xb0800000),
		tern("mad.rm.f32", 32, 0x3f800000, 0x3f800000, 0x3f800001, 0xb0800000),
		tern("mad.rp.f32", 32, 0x3f800001, 0x3f800000, 0x3f800001, 0xb0800000),
		tern("mad.rn.ftz.f32", 32, 0, 0x00000001, 0x3f800000, 0), // subnormal input flushed
		tern("mad.rn.f16", 16, 0x4500, 0x3c00, 0x4000, 0x4200),   // 1*2+3 = 5
		bin("min.bf16", 16, 0x3f80, 0x3f80, 0x4000),
		bin("min.s64", 64, m64, m64, 1),
		bin("min.u16", 16, 1, 0xffff, 1),
		bin("min.u64", 64, 1, m64, 1),
		bin("max.bf16x2", 32, 0x40004000, 0x3f804000, 0x40003f80),
		bin("max.s16", 16, 1, 0xffff, 1),
		bin("max.u32", 32, 0xffffffff, 0xffffffff, 1),
		bin("mul.rn.bf16x2", 32, 0x40c04040, 0x40003f80, 0x40404040), // (2*3, 1*3) = (6, 3)
		bin("sub.rn.bf16x2", 32, 0x40003f80, 0x40404040, 0x3f804000), // (3-1, 3-2)
		bin("sub.rz.f32", 32, 0x3f7fffff, 0x3f800000, 0x30800000),    // 1 - 2^-30 truncated
		bin("sub.rp.f32", 32, 0x3f800000, 0x3f800000, 0x30800000),
		bin("sub.s64", 64, m64, 0, 1),
		bin("sub.u16", 16, 0xffff, 0, 1),
		bin("div.u16", 16, 0x7fff, 0xffff, 2),
		bin("rem.s16", 16, 0xffff, 0xfff9, 3), // -7 rem 3 = -1 (truncating)
		bin("rem.u64", 64, 1, 10, 3),
		tern("sad.u16", 16, 12, 1, 3, 10),                         // |1-3| + 10
		tern("fns.b32", 32, 4, 0xf0, 0, 1),                        // 1st set bit at or above bit 0
		tern("fns.b32", 32, 5, 0xf0, 0, 2),                        // 2nd set bit
		bin("shr.b16", 16, 0x4000, 0x8000, 1).withSig("16:16,32"), // logical; the shift amount is .u32
		bin("shr.b64", 64, 1, 1<<63, 63).withSig("64:64,32"),
		// logic
		bin("and.b16", 16, 0x0f00, 0xff0f, 0x0ff0),
		bin("and.b64", 64, 0x0000ffff00000000, 0x0000ffffffff0000, 0xffffffff00000000),
		k("and.pred $d, $a, $b", "p:p,p", 0, 1, 0),
		bin("or.b16", 16, 0xfff0, 0xf0f0, 0x0ff0),
		bin("or.b32", 32, 0xffff0000, 0xff000000, 0x00ff0000),
		k("or.pred $d, $a, $b", "p:p,p", 1, 1, 0),
		bin("xor.b32", 32, 0xffff0000, 0xff0000ff, 0x00ff00ff),
		bin("xor.b64", 64, m64, 0xf0f0f0f0f0f0f0f0, 0x0f0f0f0f0f0f0f0f),
		k("xor.pred $d, $a, $b", "p:p,p", 0, 1, 1),
		un("not.b16", 16, 0xff00, 0x00ff),
		un("not.b64", 64, 0xffffffff00000000, 0x00000000ffffffff),
		k("not.pred $d, $a", "p:p", 0, 1),
		un("cnot.b64", 64, 1, 0),
		un("cnot.b64", 64, 0, 5),
		// moves
		un("mov.b16", 16, 0x1234, 0x1234),
		un("mov.u16", 16, 0xfedc, 0xfedc),
		un("mov.s16", 16, 0x8001, 0x8001),
		un("mov.u32", 32, 0x89abcdef, 0x89abcdef),
		un("mov.s32", 32, 0x80000000, 0x80000000),
		un("mov.f32", 32, 0x7fc00001, 0x7fc00001), // bits move unchanged, NaN payload included
		un("mov.u64", 64, 0x0123456789abcdef, 0x0123456789abcdef),
		un("mov.s64", 64, 1<<63, 1<<63),
		un("mov.f64", 64, 0xfff0000000000001, 0xfff0000000000001),
		k("mov.pred $d, $a", "p:p", 1, 1),
		// selects
		k("selp.b16 $d, $a, $b, $c", "16:16,16,p", 0x1111, 0x1111, 0x2222, 1),
		k("selp.s16 $d, $a, $b, $c", "16:16,16,p", 0x2222, 0x1111, 0x2222, 0),
		k("selp.u32 $d, $a, $b, $c", "32:32,32,p", 7, 7, 8, 1),
		k("selp.s32 $d, $a, $b, $c", "32:32,32,p", 8, 7, 8, 0),
		k("selp.u64 $d, $a, $b, $c", "64:64,64,p", 1<<40, 1<<40, 3, 1),
		k("selp.s64 $d, $a, $b, $c", "64:64,64,p", 3, 1<<40, 3, 0),
		k("selp.f64 $d, $a, $b, $c", "64:64,64,p", 0x3ff0000000000000, 0x3ff0000000000000, 0, 1),
		k("slct.b16.s32 $d, $a, $b, $c", "16:16,16,32", 0x1111, 0x1111, 0x2222, 0),          // c >= 0: a
		k("slct.s16.s32 $d, $a, $b, $c", "16:16,16,32", 0x2222, 0x1111, 0x2222, 0xffffffff), // c < 0: b
		k("slct.u16.s32 $d, $a, $b, $c", "16:16,16,32", 0x1111, 0x1111, 0x2222, 5),
		k("slct.b64.s32 $d, $a, $b, $c", "64:64,64,32", 2, 1, 2, 0x80000000),
		k("slct.s64.f32 $d, $a, $b, $c", "64:64,64,32", 1, 1, 2, 0x80000000), // -0.0 >= 0: a
		// set: u32 destination true = 0xffffffff; f32 destination true = 1.0
		k("set.eq.u32.b16 $d, $a, $b", "32:16,16", 0xffffffff, 0xabcd, 0xabcd),
		k("set.ne.u32.b32 $d, $a, $b", "32:32,32", 0, 5, 5),
		k("set.eq.u32.b64 $d, $a, $b", "32:64,64", 0, 1, 1<<32),
		k("set.lo.u32.u16 $d, $a, $b", "32:16,16", 0xffffffff, 1, 0xffff),
		k("set.hi.u32.u64 $d, $a, $b", "32:64,64", 0xffffffff, m64, 1),
		k("set.hs.u32.u32 $d, $a, $b", "32:32,32", 0xffffffff, 5, 5),
		k("set.ls.u32.u32 $d, $a, $b", "32:32,32", 0, 6, 5),
		k("set.lt.u32.s16 $d, $a, $b", "32:16,16", 0xffffffff, 0xffff, 1), // -1 < 1
		k("set.gt.f32.s32 $d, $a, $b", "32:32,32", 0x3f800000, 2, 1),
		k("set.ge.u32.f64 $d, $a, $b", "32:64,64", 0xffffffff, 0x4000000000000000, 0x4000000000000000),
		k("set.le.u32.f64 $d, $a, $b", "32:64,64", 0, 0x7ff8000000000000, 0), // NaN: ordered compare false
		k("set.equ.u32.f64 $d, $a, $b", "32:64,64", 0xffffffff, 0x7ff8000000000000, 0),
		k("set.neu.u32.f64 $d, $a, $b", "32:64,64", 0, 0x3ff0000000000000, 0x3ff0000000000000),
		k("set.ltu.u32.f64 $d, $a, $b", "32:64,64", 0xffffffff, 0x7ff8000000000000, 0),
		k("set.leu.u32.f64 $d, $a, $b", "32:64,64", 0, 0x4000000000000000, 0x3ff0000000000000),
		k("set.geu.u32.f64 $d, $a, $b", "32:64,64", 0xffffffff, 0x4000000000000000, 0x3ff0000000000000),
		k("set.num.u32.f64 $d, $a, $b", "32:64,64", 0, 0x7ff8000000000000, 0),
		k("set.nan.u32.f64 $d, $a, $b", "32:64,64", 0xffffffff, 0, 0x7ff8000000000000),
		// .ftz: the subnormal 2^-149 is flushed to +0, equal to -0
		k("set.eq.ftz.u32.f32 $d, $a, $b", "32:32,32", 0xffffffff, 0x00000001, 0x80000000),
		k("set.gt.or.u32.u16 $d, $a, $b, $c", "32:16,16,p", 0xffffffff, 1, 2, 1), // false or true
		k("set.gt.xor.u32.u16 $d, $a, $b, $c", "32:16,16,p", 0, 2, 1, 1),         // true xor true
		k("set.eq.u32.u64 $d, $a, $b", "32:64,64", 0xffffffff, 1<<40, 1<<40),
		// modifier combinations: relu, NaN, xorsign, satfinite, tf32
		// rounding (ties away; 0x0fff is below half of 2^13), sat on
		// floats (clamp to [0, 1]), signed shifts, paired predicates
		// (f16x2: d for the low half, q for the high half)
		bin("max.relu.f16", 16, 0, 0xbc00, 0xc000),
		bin("min.NaN.f32", 32, 0x7fffffff, 0x7fc00000, 0x3f800000),
		bin("min.f32", 32, 0x3f800000, 0x7fc00000, 0x3f800000),
		bin("max.xorsign.abs.f32", 32, 0xc0400000, 0xc0000000, 0x40400000),
		un("cvt.rn.relu.f16.f32", 16, 0, 0xbf800000).withSig("16:32"),
		un("cvt.rn.satfinite.f16.f32", 16, 0x7bff, 0x49742400).withSig("16:32"),
		un("cvt.rna.tf32.f32", 32, 0x3f800000, 0x3f800fff),
		tern("fma.rn.relu.bf16", 16, 0, 0xbf80, 0x3f80, 0),
		bin("add.sat.f32", 32, 0x3f800000, 0x3f000000, 0x3f400000),
		k("mul.wide.s16 $d, $a, $b", "32:16,16", 0xfffffffa, 0xfffe, 3),
		bin("sub.sat.s32", 32, 0x80000000, 0x80000000, 1),
		bin("shr.s16", 16, 0xc000, 0x8000, 1).withSig("16:16,32"),
		un("bfind.shiftamt.u32", 32, 15, 0x00010000),
		k("testp.subnormal.f64 $d, $a", "p:64", 1, 1),
		bin("min.relu.bf16x2", 32, 0x00003f80, 0xbf803f80, 0x40004000),
		k("setp.lt.f16x2 $d|$q, $a, $b", "p,p:32,32", 0, 0x3c004000, 0x40003c00).withWant(0, 1),
		// special functions
		{asm: "cos.approx.ftz.f32 $d, $a", sig: "32:32", in: []uint64{0x00000001}, want: one(0x3f800000), tol: 2}, // cos(0)
		{asm: "sin.approx.ftz.f32 $d, $a", sig: "32:32", in: []uint64{0x00000001}, want: one(0), tol: 1},          // sin(+0)
		{asm: "lg2.approx.ftz.f32 $d, $a", sig: "32:32", in: []uint64{0x3f800000}, want: one(0), tol: 1},          // log2(1)
		{asm: "ex2.approx.ftz.bf16 $d, $a", sig: "16:16", in: []uint64{0x3f80}, want: one(0x4000), tol: 1},        // 2^1
		{asm: "ex2.approx.ftz.bf16x2 $d, $a", sig: "32:32", in: []uint64{0x3f800000}, want: one(0x40003f80), tol: 1},
		{asm: "rsqrt.approx.ftz.f32 $d, $a", sig: "32:32", in: []uint64{0x40800000}, want: one(0x3f000000), tol: 2},             // 4 -> 0.5
		{asm: "rsqrt.approx.f64 $d, $a", sig: "64:64", in: []uint64{0x4010000000000000}, want: one(0x3fe0000000000000), tol: 2}, // 4 -> 0.5
		// 1/3 = 0.0101..b: RN rounds up to 0x3eaaaaab, RM down
		un("rcp.rm.f32", 32, 0x3eaaaaaa, 0x40400000),
		// sqrt(2) = 1.41421356237...; 0x3fb504f3 = 1.41421353816... is below
		un("sqrt.rm.f32", 32, 0x3fb504f3, 0x40000000),
		// loads and stores: widths and extension
		k("st.global.u8 [%gm], $a; ld.global.s8 $d, [%gm]", "16:16", 0xff80, 0x80),
		k("st.global.b8 [%gm], $a; ld.global.u8 $d, [%gm]", "16:16", 0x80, 0x80),
		k("st.global.s8 [%gm], $a; ld.global.b8 $d, [%gm]", "16:16", 0x7f, 0x17f), // stores the low byte
		k("st.global.s16 [%gm], $a; ld.global.s16 $d, [%gm]", "32:16", 0xffff8000, 0x8000),
		k("st.global.u16 [%gm], $a; ld.global.u16 $d, [%gm]", "32:16", 0x8000, 0x8000),
		k("st.global.s32 [%gm], $a; ld.global.s32 $d, [%gm]", "64:32", 0xffffffff80000000, 0x80000000),
		k("st.global.u64 [%gm], $a; ld.global.u64 $d, [%gm]", "64:64", 0x0123456789abcdef, 0x0123456789abcdef),
		k("st.global.s64 [%gm], $a; ld.global.s64 $d, [%gm]", "64:64", 1<<63, 1<<63),
		k("st.global.f32 [%gm], $a; ld.global.f32 $d, [%gm]", "32:32", 0x7fc00001, 0x7fc00001),
		k("st.global.f64 [%gm], $a; ld.global.f64 $d, [%gm]", "64:64", 0x7ff0000000000001, 0x7ff0000000000001),
		k("st.global.v2.u32 [%gm], {$a, $b}; ld.global.v2.u32 {$d, $q}, [%gm]", "32,32:32,32", 0, 11, 22).withWant(11, 22),
		k("st.global.v4.u16 [%gm], {$a, $b, $c, $e}; ld.global.v4.u16 {$d, $q, $r, $s}, [%gm]", "16,16,16,16:16,16,16,16", 0, 1, 2, 3, 4).withWant(1, 2, 3, 4),
		k(".local .align 8 .b8 lb[8]; st.local.u32 [lb+4], $a; ld.local.u32 $d, [lb+4]", "32:32", 0xcafe, 0xcafe),
		{asm: "ld.const.u32 $d, [cv+4]", sig: "32:", want: one(9), module: cmod},
		k("ld.param.u32 $d, [pact]", "32:", 0xffffffff),
		k("ld.global.nc.u32 $d, [%rin]", "32:32", 0x12345678, 0x12345678), // the lane's input word
		k("ldu.global.u32 $d, [%rin]", "32:32", 0x12345678, 0x12345678),
		// ldu reads the lane's input slots: a at +0, b at +8
		k("ldu.global.s32 $d, [%rin]", "32:32", 0x80000000, 0x80000000),
		k("ldu.global.f32 $d, [%rin]", "32:32", 0x3f800000, 0x3f800000),
		k("ldu.global.v2.b32 {$d, $q}, [%rin]", "32,32:64", 0, 0x1111222233334444).withWant(0x33334444, 0x11112222),
		k("ldu.global.v4.u32 {$d, $q, $r, $s}, [%rin]", "32,32,32,32:64,64", 0, 0x1111222233334444, 0x5555666677778888).withWant(0x33334444, 0x11112222, 0x77778888, 0x55556666),
		k("ldu.global.b64 $d, [%rin+8]", "64:64,64", 2, 1, 2),
		k("ldu.global.u64 $d, [%rin]", "64:64", 1<<63, 1<<63),
		k("ldu.global.s64 $d, [%rin]", "64:64", m64, m64),
		k("ldu.global.f64 $d, [%rin]", "64:64", 0x3ff0000000000000, 0x3ff0000000000000),
		k("st.shared::cta.u32 [%sm], $a; ld.shared::cta.u32 $d, [%sm]", "32:32", 77, 77),
		// memory-model and cache modifiers do not change a value
		k("st.relaxed.gpu.global.u32 [%gm], $a; ld.acquire.sys.global.u32 $d, [%gm]", "32:32", 5, 5),
		k("st.release.cta.global.u32 [%gm], $a; ld.relaxed.cluster.global.u32 $d, [%gm]", "32:32", 6, 6),
		k("st.relaxed.sys.global.u32 [%gm], $a; ld.relaxed.cta.global.u32 $d, [%gm]", "32:32", 7, 7),
		k("st.relaxed.cluster.global.u32 [%gm], $a; ld.relaxed.gpu.global.u32 $d, [%gm]", "32:32", 8, 8),
		k("st.volatile.global.u32 [%gm], $a; ld.volatile.global.u32 $d, [%gm]", "32:32", 9, 9),
		k("st.weak.global.cs.u32 [%gm], $a; ld.weak.global.lu.u32 $d, [%gm]", "32:32", 10, 10),
		k("st.global.wb.u32 [%gm], $a; ld.global.ca.u32 $d, [%gm]", "32:32", 11, 11),
		k("st.global.wt.u32 [%gm], $a; ld.global.cg.u32 $d, [%gm]", "32:32", 12, 12),
		k("st.global.cg.u32 [%gm], $a; ld.global.cv.u32 $d, [%gm]", "32:32", 13, 13),
		k("st.global.cs.u32 [%gm], $a; ld.global.cs.u32 $d, [%gm]", "32:32", 14, 14),
		k("st.global.u32 [%gm], $a; ld.global.lu.u32 $d, [%gm]", "32:32", 15, 15),
		k("st.global.u32 [%gm], $a; ld.global.L1::evict_first.L2::64B.u32 $d, [%gm]", "32:32", 16, 16),
		k("st.global.L1::evict_last.u32 [%gm], $a; ld.global.L1::evict_last.L2::128B.u32 $d, [%gm]", "32:32", 17, 17),
		k("st.global.L1::evict_normal.u32 [%gm], $a; ld.global.L1::evict_normal.L2::256B.u32 $d, [%gm]", "32:32", 18, 18),
		k("st.global.L1::evict_unchanged.u32 [%gm], $a; ld.global.L1::evict_unchanged.u32 $d, [%gm]", "32:32", 19, 19),
		k("st.global.L1::no_allocate.u32 [%gm], $a; ld.global.L1::no_allocate.u32 $d, [%gm]", "32:32", 20, 20),
		k("st.global.L1::evict_first.u32 [%gm], $a; ld.global.u32 $d, [%gm]", "32:32", 21, 21),
		// atomics: memory-model modifiers and types
		k("st.global.u32 [%gm], $a; atom.relaxed.gpu.global.add.u32 %t32, [%gm], $b; ld.global.u32 $d, [%gm]", "32:32,32", 7, 3, 4),
		k("st.global.u32 [%gm], $a; atom.acquire.cta.global.exch.b32 $d, [%gm], $b", "32:32,32", 3, 3, 4), // returns the old value
		k("st.global.u32 [%gm], $a; atom.release.sys.global.or.b32 %t32, [%gm], $b; ld.global.u32 $d, [%gm]", "32:32,32", 7, 3, 4),
		k("st.global.u32 [%gm], $a; atom.acq_rel.cluster.global.and.b32 %t32, [%gm], $b; ld.global.u32 $d, [%gm]", "32:32,32", 2, 3, 6),
		k("st.shared::cta.u32 [%sm], $a; atom.shared::cta.add.u32 %t32, [%sm], $b; ld.shared.u32 $d, [%sm]", "32:32,32", 7, 3, 4),
		k("st.global.u32 [%gm], $a; atom.global.add.noftz.bf16x2 %t32, [%gm], $b; ld.global.u32 $d, [%gm]", "32:32,32", 0x40004040, 0x3f804000, 0x3f803f80), // (1+1, 2+1)
		k("st.global.u32 [%gm], $a; red.relaxed.gpu.global.and.b32 [%gm], $b; ld.global.u32 $d, [%gm]", "32:32,32", 2, 3, 6),
		k("st.global.u32 [%gm], $a; red.release.sys.global.xor.b32 [%gm], $b; ld.global.u32 $d, [%gm]", "32:32,32", 5, 3, 6),
		k("st.global.u32 [%gm], $a; red.relaxed.cta.global.or.b32 [%gm], $b; ld.global.u32 $d, [%gm]", "32:32,32", 7, 3, 4),
		k("st.global.u32 [%gm], $a; red.release.cluster.global.add.u32 [%gm], $b; ld.global.u32 $d, [%gm]", "32:32,32", 7, 3, 4),
		k("st.shared::cta.u32 [%sm], $a; red.shared::cta.add.u32 [%sm], $b; ld.shared.u32 $d, [%sm]", "32:32,32", 7, 3, 4),
		k("st.global.u64 [%gm], $a; red.global.min.s64 [%gm], $b; ld.global.u64 $d, [%gm]", "64:64,64", m64, 5, m64), // min(5, -1)
		k("st.global.f64 [%gm], $a; red.global.add.f64 [%gm], $b; ld.global.f64 $d, [%gm]", "64:64,64", 0x4008000000000000, 0x3ff0000000000000, 0x4000000000000000),
		k("st.global.b16 [%gm], $a; red.global.add.noftz.f16 [%gm], $b; ld.global.b16 $d, [%gm]", "16:16,16", 0x4200, 0x3c00, 0x4000),  // 1+2 = 3
		k("st.global.b16 [%gm], $a; red.global.add.noftz.bf16 [%gm], $b; ld.global.b16 $d, [%gm]", "16:16,16", 0x4040, 0x3f80, 0x4000), // 1+2 = 3
		k("st.global.u32 [%gm], $a; red.global.add.noftz.f16x2 [%gm], $b; ld.global.u32 $d, [%gm]", "32:32,32", 0x42004200, 0x3c004000, 0x40003c00),
		k("st.global.u32 [%gm], $a; red.global.add.noftz.bf16x2 [%gm], $b; ld.global.u32 $d, [%gm]", "32:32,32", 0x40404040, 0x3f804000, 0x40003f80),
		// control flow
		k("mov.b32 $d, $a; bra.uni LX; mov.b32 $d, 0; LX: add.u32 $d, $d, 1", "32:32", 8, 7),
		wk("mov.b32 $d, 1; @$a bra LX; mov.b32 $d, 2; LX: add.u32 $d, $d, 0", "32:p", 0, pred(func(l int) bool { return l%3 == 0 }),
			lane(func(l int) uint64 { return uint64(2 - b2u(l%3 == 0)) })),
		wk("ts: .branchtargets L0, L1; brx.idx $a, ts; L0: mov.b32 $d, 10; bra.uni LE; L1: mov.b32 $d, 11; LE: add.u32 $d, $d, 0", "32:32", 0,
			lane(func(l int) uint64 { return uint64(l % 2) }), lane(func(l int) uint64 { return uint64(10 + l%2) })),
		k("ts: .branchtargets L0, L1; brx.idx.uni $a, ts; L0: mov.b32 $d, 10; bra.uni LE; L1: mov.b32 $d, 11; LE: add.u32 $d, $d, 0", "32:32", 11, 1),
		{asm: ".param .b32 aa; .param .b32 rr; st.param.b32 [aa], $a; call.uni (rr), incr, (aa); ld.param.b32 $d, [rr]", sig: "32:32",
			in: []uint64{41}, want: one(42), module: fmod},
		{asm: ".param .b32 aa; .param .b32 rr; st.param.b32 [aa], $a; call (rr), incr, (aa); ld.param.b32 $d, [rr]", sig: "32:32",
			in: []uint64{0xffffffff}, want: one(0), module: fmod},
		// ret/exit in the entry: the lanes stop before storing
		wk("mov.b32 $d, 7; @$a ret", "32:p", 0, pred(func(l int) bool { return l < 4 }), func(l int) []uint64 {
			if l < 4 {
				return nil
			}
			return one(7)
		}),
		wk("mov.b32 $d, 7; ret.uni", "32:", 0, untouched, untouched),
		wk("@$a exit; mov.b32 $d, 7", "32:p", 0, pred(func(l int) bool { return l%2 == 1 }), func(l int) []uint64 {
			if l%2 == 1 {
				return nil
			}
			return one(7)
		}),
		{asm: "trap", sig: ":", fault: "trap"},
		// barriers in one warp (inactive lanes of a case exit: they do
		// not take part)
		k("bar.sync 0; mov.b32 $d, $a", "32:32", 3, 3),
		k("barrier.sync.aligned 1; mov.b32 $d, $a", "32:32", 3, 3),
		k("bar.cta.sync 2, 32; mov.b32 $d, $a", "32:32", 3, 3),
		k("barrier.cta.sync 3; mov.b32 $d, $a", "32:32", 3, 3),
		k("bar.arrive 4, 32; mov.b32 $d, $a", "32:32", 3, 3),
		k("barrier.cta.arrive.aligned 5, 32; mov.b32 $d, $a", "32:32", 3, 3),
		// popc of lanes 0, 3, ..., 30 = 11; with lanes 0..15 active: 6
		wk("bar.red.popc.u32 $d, 0, $a", "32:p", 0, pred(func(l int) bool { return l%3 == 0 }), lane(func(l int) uint64 { return 11 })),
		wk("barrier.red.popc.u32 $d, 0, $a", "32:p", 0x0000ffff, pred(func(l int) bool { return l%3 == 0 }), lane(func(l int) uint64 { return 6 })),
		wk("barrier.red.and.pred $d, 1, $a", "p:p", 0, pred(func(l int) bool { return l != 7 }), lane(func(l int) uint64 { return 0 })),
		wk("bar.red.and.pred $d, 1, !$a", "p:p", 0x00ff00ff, pred(func(l int) bool { return l >= 8 && l < 16 }), lane(func(l int) uint64 { return 1 })),
		wk("bar.cta.red.or.pred $d, 2, 32, $a", "p:p", 0, pred(func(l int) bool { return l == 31 }), lane(func(l int) uint64 { return 1 })),
		wk("barrier.cta.red.or.aligned.pred $d, 2, $a", "p:p", 0, pred(func(l int) bool { return false }), lane(func(l int) uint64 { return 0 })),
		// bar.warp.sync on two divergent paths: each half writes its word,
		// syncs, then reads the other half's word (lanes < 16 wrote 2,
		// the others 1)
		wk("xor.b32 %t32, %tid, 16; mul.wide.u32 %t64, %t32, 8; add.u64 %t64, %sm0, %t64; "+
			"@$a bra L1; st.shared.u32 [%sm], 1; bar.warp.sync 0xffffffff; ld.shared.u32 $d, [%t64]; bra.uni L2; "+
			"L1: st.shared.u32 [%sm], 2; bar.warp.sync 0xffffffff; ld.shared.u32 $d, [%t64]; L2: add.u32 $d, $d, 0", "32:p", 0,
			pred(func(l int) bool { return l < 16 }), lane(func(l int) uint64 { return uint64(1 + b2u(l >= 16)) })),
		// no-ops: ordering, scheduling and cache hints
		k("membar.gl; mov.b32 $d, $a", "32:32", 1, 1),
		k("fence.sc.cta; fence.proxy.async; mov.b32 $d, $a", "32:32", 1, 1),
		k("nanosleep.u32 10; mov.b32 $d, $a", "32:32", 1, 1),
		k("brkpt; mov.b32 $d, $a", "32:32", 1, 1),
		k("pmevent 1; mov.b32 $d, $a", "32:32", 1, 1),
		k("griddepcontrol.wait; griddepcontrol.launch_dependents; mov.b32 $d, $a", "32:32", 1, 1),
		k("setmaxnreg.inc.sync.aligned.u32 64; mov.b32 $d, $a", "32:32", 1, 1),
		k("bar.warp.sync 0xffffffff; mov.b32 $d, $a", "32:32", 1, 1),
		k("cp.async.commit_group; cp.async.wait_group 0; cp.async.wait_all; mov.b32 $d, $a", "32:32", 1, 1),
		// mma.sync m16n8k16 with every lane supplying the same fragments:
		// A all 1 (f16 0x3c00, bf16 0x3f80), B all 2 (0x4000), C all 0.5:
		// D = 16*1*2 + 0.5 = 32.5 (f32 0x42020000, f16 0x5010); the fragment
		// layouts are checked lane by lane in TestMmaFragments
		k("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$d, $q, $r, $s}, {$a, $a, $a, $a}, {$b, $b}, {$c, $c, $c, $c}",
			"32,32,32,32:32,32,32", 0, 0x3c003c00, 0x40004000, 0x3f000000).withWant(0x42020000, 0x42020000, 0x42020000, 0x42020000),
		k("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {$d, $q}, {$a, $a, $a, $a}, {$b, $b}, {$c, $c}",
			"32,32:32,32,32", 0, 0x3c003c00, 0x40004000, 0x38003800).withWant(0x50105010, 0x50105010),
		k("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$d, $q, $r, $s}, {$a, $a, $a, $a}, {$b, $b}, {$c, $c, $c, $c}",
			"32,32,32,32:32,32,32", 0, 0x3f803f80, 0x40004000, 0x3f000000).withWant(0x42020000, 0x42020000, 0x42020000, 0x42020000),
		// m16n8k32 integer: every lane supplies the same bytes, so D =
		// 32·a·b + c: s8 -2·3 → -192+5 = -187; u8 254 · s8 -1 → -8128;
		// u8 255·255·32 = 2080800 + 0x7fffff00 saturates to 0x7fffffff
		k("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {$d, $q, $r, $s}, {$a, $a, $a, $a}, {$b, $b}, {$c, $c, $c, $c}",
			"32,32,32,32:32,32,32", 0, 0xfefefefe, 0x03030303, 5).withWant(0xffffff45, 0xffffff45, 0xffffff45, 0xffffff45),
		k("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {$d, $q, $r, $s}, {$a, $a, $a, $a}, {$b, $b}, {$c, $c, $c, $c}",
			"32,32,32,32:32,32,32", 0, 0xfefefefe, 0xffffffff, 0).withWant(0xffffe040, 0xffffe040, 0xffffe040, 0xffffe040),
		k("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {$d, $q, $r, $s}, {$a, $a, $a, $a}, {$b, $b}, {$c, $c, $c, $c}",
			"32,32,32,32:32,32,32", 0, 0xffffffff, 0xffffffff, 0x7fffff00).withWant(0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff),
		// m16n8k8 tf32: A all 1.5 (0x3fc00000, low 13 bits zero), B all
		// 2, C all 0.5: D = 8·1.5·2 + 0.5 = 24.5 (0x41c40000)
		k("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {$d, $q, $r, $s}, {$a, $a, $a, $a}, {$b, $b}, {$c, $c, $c, $c}",
			"32,32,32,32:32,32,32", 0, 0x3fc00000, 0x40000000, 0x3f000000).withWant(0x41c40000, 0x41c40000, 0x41c40000, 0x41c40000),
		// an f32 pattern that is not tf32 (low bits set) is refused
		{asm: "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {$d, $q, $r, $s}, {$a, $a, $a, $a}, {$b, $b}, {$c, $c, $c, $c}",
			sig: "32,32,32,32:32,32,32", in: []uint64{0x3fc00001, 0x40000000, 0}, fault: "not a tf32 value"},
		// m8n8k4 f64: 4 · 1.5·2 + 0.25 = 12.25
		k("mma.sync.aligned.m8n8k4.row.col.rn.f64.f64.f64.f64 {$d, $q}, {$a}, {$b}, {$c, $c}",
			"64,64:64,64,64", 0, 0x3ff8000000000000, 0x4000000000000000, 0x3fd0000000000000).withWant(0x4028800000000000, 0x4028800000000000),
		// mbarrier: each lane owns the barrier at its shared word %sm.
		// init count a, one arrival: the phase completes iff a == 1
		k("mbarrier.init.shared::cta.b64 [%sm], $a; mbarrier.arrive.release.cta.shared::cta.b64 %t64, [%sm]; mbarrier.test_wait.acquire.cta.shared::cta.b64 $d, [%sm], %t64",
			"p:32", 0, 2),
		k("mbarrier.init.shared.b64 [%sm], $a; mbarrier.arrive.shared.b64 %t64, [%sm]; mbarrier.test_wait.shared.b64 $d, [%sm], %t64",
			"p:32", 1, 1),
		// parity: phase 0 completed, phase 1 not
		k("mbarrier.init.shared.b64 [%sm], $a; mbarrier.arrive.shared.b64 _, [%sm]; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 $d, [%sm], 0; mbarrier.try_wait.parity.shared.b64 $q, [%sm], 1",
			"p,p:32", 0, 1).withWant(1, 0),
		k("mbarrier.init.shared.b64 [%sm], $a; mbarrier.arrive.shared.b64 %t64, [%sm]; mbarrier.try_wait.shared.b64 $d, [%sm], %t64; mbarrier.try_wait.acquire.cta.shared::cta.b64 $q, [%sm], %t64",
			"p,p:32", 0, 2).withWant(0, 0),
		k("mbarrier.init.shared.b64 [%sm], 1; mbarrier.arrive.shared.b64 %t64, [%sm]; mbarrier.test_wait.parity.shared.b64 $d, [%sm], $a; mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 $q, [%sm], 0",
			"p,p:32", 0, 1).withWant(0, 1),
		// PTX ISA (mbarrier.test_wait/try_wait): phaseParity names "either
		// the current phase or the immediately preceding phase"; the wait
		// is False for the current incomplete phase and True for the
		// immediately preceding one, and init leaves the object in phase 0
		// (parity 0). So on a fresh barrier parity 1 (the preceding phase)
		// is True at once and parity 0 False — the producer-start idiom.
		k("mbarrier.init.shared.b64 [%sm], 1; mbarrier.test_wait.parity.shared.b64 $d, [%sm], $a; mbarrier.try_wait.parity.shared.b64 $q, [%sm], 0",
			"p,p:32", 0, 1).withWant(1, 0),
		// two arrivals on a count-1 barrier: phases 0 and 1 complete, the
		// current phase is 2 (parity 0, incomplete), the preceding 1
		// (parity 1, complete)
		k("mbarrier.init.shared.b64 [%sm], 1; mbarrier.arrive.shared.b64 _, [%sm]; mbarrier.arrive.shared.b64 _, [%sm]; mbarrier.try_wait.parity.shared.b64 $d, [%sm], $a; mbarrier.test_wait.parity.shared.b64 $q, [%sm], 0",
			"p,p:32", 0, 1).withWant(1, 0),
		// expect_tx: the phase waits for the transaction bytes too
		k("mbarrier.init.shared.b64 [%sm], 1; mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%sm], $a; mbarrier.test_wait.parity.shared.b64 $d, [%sm], 0; mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%sm], $a; mbarrier.test_wait.parity.shared.b64 $q, [%sm], 0",
			"p,p:32", 0, 64).withWant(0, 1),
		// init 3, expect 16 bytes, arrive with count a, complete 16 bytes:
		// complete iff a == 3
		k("mbarrier.init.shared.b64 [%sm], 3; mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%sm], 16; mbarrier.arrive.shared.b64 _, [%sm], $a; mbarrier.complete_tx.shared.b64 [%sm], 16; mbarrier.test_wait.parity.shared.b64 $d, [%sm], 0",
			"p:32", 1, 3),
		k("mbarrier.init.shared.b64 [%sm], 3; mbarrier.expect_tx.shared.b64 [%sm], 16; mbarrier.arrive.shared.b64 _, [%sm], $a; mbarrier.complete_tx.shared.b64 [%sm], 16; mbarrier.test_wait.parity.shared.b64 $d, [%sm], 0",
			"p:32", 0, 2),
		// arrive_drop lowers the expected count for the next phases too
		k("mbarrier.init.shared.b64 [%sm], 2; mbarrier.arrive_drop.release.cta.shared::cta.b64 _, [%sm]; mbarrier.arrive.shared.b64 _, [%sm]; mbarrier.test_wait.parity.shared.b64 $d, [%sm], 0; mbarrier.arrive_drop.shared.b64 _, [%sm]; mbarrier.test_wait.parity.shared.b64 $q, [%sm], 1",
			"p,p:32", 0, 1).withWant(1, 1),
		// an invalidated (or never initialised) object faults
		{asm: "mbarrier.init.shared::cta.b64 [%sm], 1; mbarrier.inval.shared::cta.b64 [%sm]; mbarrier.arrive.shared.b64 _, [%sm]; mov.b32 $d, $a", sig: "32:32", in: []uint64{1}, fault: "not an initialised mbarrier"},
		{asm: "mbarrier.inval.shared.b64 [%sm]; mbarrier.test_wait.parity.shared.b64 %skip, [%sm], 0; mov.b32 $d, $a", sig: "32:32", in: []uint64{1}, fault: "not an initialised mbarrier"},
		// more arrivals than pending is undefined: a fault
		{asm: "mbarrier.init.shared.b64 [%sm], 1; mbarrier.arrive.shared.b64 _, [%sm], 2; mov.b32 $d, $a", sig: "32:32", in: []uint64{1}, fault: "arrival count"},
		// cp.async: each lane copies its own input words (at %rin) to its
		// shared word %sm or to its 16-byte slot of cpbuf (%off).
		k("cp.async.ca.shared.global [%sm], [%rin], 8; cp.async.commit_group; cp.async.wait_group 0; ld.shared.b64 $d, [%sm]",
			"64:64", 0x1122334455667788, 0x1122334455667788),
		// 16 bytes with src-size 12: bytes 0..11 from a, b; 12..15 zero, so
		// the high word reads b's low 4 bytes
		k(cpSlot+"cp.async.cg.shared::cta.global [%off], [%rin], 16, 12; cp.async.wait_all; ld.shared.b64 $d, [%off+8]",
			"64:64,64", 0x0c0b0a09, 0x0807060504030201, 0x100f0e0d0c0b0a09).withModule(cpMod),
		k(cpSlot+"cp.async.cg.shared.global [%off], [%rin], 16, 12; cp.async.wait_all; ld.shared.b64 $d, [%off]",
			"64:64,64", 0x0807060504030201, 0x0807060504030201, 0x100f0e0d0c0b0a09).withModule(cpMod),
		// src-size 0: all zero
		k("st.shared.b64 [%sm], $a; cp.async.ca.shared.global [%sm], [%rin], 8, 0; cp.async.wait_all; ld.shared.b64 $d, [%sm]",
			"64:64", 0, 0x1122334455667788),
		// ignore-src: 4 bytes of b over a's low word, or zeros when true
		k("st.shared.b64 [%sm], $a; cp.async.ca.shared.global [%sm], [%rin+8], 4, $c; cp.async.wait_all; ld.shared.b64 $d, [%sm]",
			"64:64,64,p", 0xaaaaaaaa22222222, 0xaaaaaaaabbbbbbbb, 0x1111111122222222, 0),
		k("st.shared.b64 [%sm], $a; cp.async.ca.shared.global [%sm], [%rin+8], 4, $c; cp.async.wait_all; ld.shared.b64 $d, [%sm]",
			"64:64,64,p", 0xaaaaaaaa00000000, 0xaaaaaaaabbbbbbbb, 0x1111111122222222, 1),
		// wait_group 1 completes the older of two committed groups
		k(cpSlot+"cp.async.ca.shared.global [%sm], [%rin], 8; cp.async.commit_group; cp.async.ca.shared.global [%off], [%rin+8], 8; cp.async.commit_group; cp.async.wait_group 1; ld.shared.b64 $d, [%sm]",
			"64:64,64", 5, 5, 6).withModule(cpMod),
		// reading a destination before its wait is a race: a fault
		{asm: cpSlot + "cp.async.ca.shared.global [%sm], [%rin], 8; cp.async.commit_group; cp.async.ca.shared.global [%off], [%rin+8], 8; cp.async.commit_group; cp.async.wait_group 1; ld.shared.b64 $d, [%off]",
			sig: "64:64,64", in: []uint64{5, 6}, module: cpMod, fault: "async-race"},
		{asm: "cp.async.ca.shared.global [%sm], [%rin], 8; ld.shared.b64 $d, [%sm]", sig: "64:64", in: []uint64{1}, fault: "async-race"},
		// an uncommitted copy is not covered by wait_group 0
		{asm: "cp.async.ca.shared.global [%sm], [%rin], 8; cp.async.wait_group 0; ld.shared.b64 $d, [%sm]", sig: "64:64", in: []uint64{1}, fault: "async-race"},
		// all lanes copying to the same shared word race with each other
		{asm: "cp.async.ca.shared.global [%sm0], [%rin], 8; cp.async.wait_all; ld.shared.b64 $d, [%sm0]", sig: "64:64", in: []uint64{1}, fault: "async-race"},
		k("cp.async.bulk.commit_group; cp.async.bulk.wait_group 0; mov.b32 $d, $a", "32:32", 1, 1),
		k("prefetch.global.L2 [%gm]; prefetchu.L1 [%gm]; mov.b32 $d, $a", "32:32", 1, 1),
		k("applypriority.global.L2::evict_normal [%rin], 128; mov.b32 $d, $a", "32:32", 1, 1),
		k("cp.async.bulk.prefetch.L2.global [%rin], 64; mov.b32 $d, $a", "32:32", 1, 1),
		k("st.global.u32 [%gm], $a; discard.global.L2 [%rin], 128; ld.global.u32 $d, [%gm]", "32:32", 1, 1),
		// generic addressing
		k("cvta.global.u64 $d, $a", "64:64", 0x100000040, 0x100000040), // global generic = global
		k("cvta.to.global.u64 $d, $a", "64:64", 0x100000040, 0x100000040),
		wk("cvta.shared.u64 %t64, %sm; cvta.to.shared.u64 $d, %t64", "64:", 0, untouched, lane(func(l int) uint64 { return uint64(8 * l) })),
		wk("cvta.shared::cta.u64 %t64, %sm; cvta.to.shared::cta.u64 $d, %t64", "64:", 0, untouched, lane(func(l int) uint64 { return uint64(8 * l) })),
		k(".local .align 8 .b8 lb[8]; mov.u64 %t64, lb; cvta.local.u64 %t64, %t64; st.u32 [%t64], $a; cvta.to.local.u64 %t64, %t64; ld.local.u32 $d, [%t64]", "32:32", 0xbeef, 0xbeef),
		{asm: "mov.u64 %t64, cv; cvta.const.u64 %t64, %t64; ld.u32 $d, [%t64]", sig: "32:", want: one(7), module: cmod},
		k("mov.u64 %t64, pact; cvta.param.u64 %t64, %t64; ld.u32 $d, [%t64]", "32:", 0xffffffff),
		k("cvta.shared.u64 %t64, %sm; isspacep.shared $d, %t64", "p:", 1),
		k("cvta.shared.u64 %t64, %sm; isspacep.shared::cta $d, %t64", "p:", 1),
		k("cvta.shared.u64 %t64, %sm; isspacep.global $d, %t64", "p:", 0),
		k("isspacep.global $d, %gm", "p:", 1),
		k(".local .align 8 .b8 lb[8]; mov.u64 %t64, lb; cvta.local.u64 %t64, %t64; isspacep.local $d, %t64", "p:", 1),
		{asm: "mov.u64 %t64, cv; cvta.const.u64 %t64, %t64; isspacep.const $d, %t64", sig: "p:", want: one(1), module: cmod},
		k("mov.u64 %t64, pact; cvta.param.u64 %t64, %t64; isspacep.param $d, %t64", "p:", 1),
		// ldmatrix / stmatrix
		wk(ldmAddr+"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {$d}, [%t64]", "32:64", 0, ldmIn, lane(func(l int) uint64 { return frag(0, l, false) })),
		wk(ldmAddr+"ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 {$d, $q}, [%t64]", "32,32:64", 0, ldmIn, func(l int) []uint64 {
			return []uint64{frag(0, l, true), frag(1, l, true)}
		}),
		wk(ldmAddr+"cvta.shared.u64 %t64, %t64; ldmatrix.sync.aligned.m8n8.x4.b16 {$d, $q, $r, $s}, [%t64]", "32,32,32,32:64", 0, ldmIn, func(l int) []uint64 {
			return []uint64{frag(0, l, false), frag(1, l, false), frag(2, l, false), frag(3, l, false)}
		}),
		// stmatrix .x1: lane t holds 2t (low) and 2t+1 (high); element
		// (r, c) comes from lane 4r + c/2, half c%2, so row r col c holds
		// 8r + c and lane l (< 16) reads u16 values 4l..4l+3 back; the
		// other 128 bytes keep their initial zero
		wk("and.b32 %t32, %tid, 15; mul.wide.u32 %t64, %t32, 16; add.u64 %t64, %sm0, %t64; stmatrix.sync.aligned.m8n8.x1.shared.b16 [%t64], {$a}; bar.sync 0; ld.shared.u64 $d, [%sm]", "64:32", 0,
			lane(func(l int) uint64 { return uint64(2*l) | uint64(2*l+1)<<16 }), lane(func(l int) uint64 {
				if l >= 16 {
					return 0
				}
				return ldmIn(l)[0]
			})),
		// .x2.trans: element (r, c) of matrix j comes from lane 4c + r/2,
		// half r%2 of register j; registers hold 2t | (2t+1)<<16 (+64 for
		// register 1), so element (r, c) = 64j + 8c + r: lane l reads row
		// l/2 of matrix 0 (l < 16), cols 4(l%2)..+3: 8c + l/2
		wk("and.b32 %t32, %tid, 15; mul.wide.u32 %t64, %t32, 16; add.u64 %t64, %sm0, %t64; add.u32 %t32, $a, 0x00400040; stmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 [%t64], {$a, %t32}; bar.sync 0; ld.shared.u64 $d, [%sm]", "64:32", 0,
			lane(func(l int) uint64 { return uint64(2*l) | uint64(2*l+1)<<16 }), lane(func(l int) uint64 {
				j, r := l/16, (l%16)/2
				var v uint64
				for k := 0; k < 4; k++ {
					c := 4*(l%2) + k
					v |= uint64(64*j+8*c+r) << (16 * k)
				}
				return v
			})),
		wk("and.b32 %t32, %tid, 15; mul.wide.u32 %t64, %t32, 16; add.u64 %t64, %sm0, %t64; cvta.shared.u64 %t64, %t64; stmatrix.sync.aligned.m8n8.x4.b16 [%t64], {$a, $a, $a, $a}; bar.sync 0; ld.shared.u64 $d, [%sm]", "64:32", 0,
			lane(func(l int) uint64 { return uint64(2*l) | uint64(2*l+1)<<16 }), lane(func(l int) uint64 { return ldmIn(l % 16)[0] })),
	}
}

// withWant sets the expected destinations of a multi-destination case.
func (c ccase) withWant(w ...uint64) ccase {
	c.want = w
	return c
}

// withSig sets the operand signature of a case.
func (c ccase) withSig(s string) ccase {
	c.sig = s
	return c
}

func (c ccase) withModule(m string) ccase {
	c.module = m
	return c
}
