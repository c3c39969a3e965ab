package replay

import (
	"fmt"
	"math"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// mma.sync.aligned.m16n8k16.row.col.dtype.atype.btype.ctype d, a, b, c
// (PTX ISA, "Warp-level matrix multiply-accumulate: mma"): D = A·B + C with
// A 16×16 (row-major fragments), B 16×8 (column-major), C and D 16×8;
// atype = btype ∈ {.f16, .bf16}, ctype/dtype ∈ {.f16, .f32} (.bf16 only
// with .f32). Fragments, for lane t with g = t/4 and q = t%4:
//
//	A: 4 .b32 registers holding elements a0..a7 (a_{2r} low half of
//	   register r, a_{2r+1} high half); a_i is row g + 8·((i/2)%2),
//	   column 2q + i%2 + 8·(i/4).
//	B: 2 .b32 registers holding b0..b3; b_i is row 2q + i%2 + 8·(i/2),
//	   column g.
//	C, D: .f32: 4 registers c0..c3; .f16: 2 registers holding c0..c3 as
//	   halves; c_i is row g + 8·(i/2), column 2q + i%2.
//
// Numerical model (the ISA does not specify the order or the precision of
// the accumulation): every product a·b is exact (float64 holds the product
// of two 11-bit significands), the 16 products of an element are summed in
// float64 in k order, c is added in float64, and the sum is rounded once to
// dtype (round to nearest even). Replay reports every such instruction in
// Code.Notices: the result is within the documented tolerance of hardware
// (docs/launch.md), not bit-exact.

// Other shapes (same g, q):
//
//	m16n8k32 .s8/.u8 → .s32 (A: 4 registers of 4 bytes a0..a15, a_i row
//	   g + 8·((i/4)%2), column 4q + i%4 + 16·(i/8); B: 2 registers b0..b7,
//	   b_i row 4q + i%4 + 16·(i/4), column g; C/D: 4 .s32 registers laid out
//	   as the .f32 ones above). Exact: products and sums in int64, wrapped
//	   to 32 bits, or clamped to the s32 range with .satfinite.
//	m16n8k8 .tf32 → .f32 (A: 4 .b32 registers a0..a3, a_i row
//	   g + 8·(i%2), column q + 4·(i/2); B: 2 registers, b_i row q + 4·i,
//	   column g; C/D as .f32 above). Operands must be tf32 values (low 13
//	   bits zero, as cvt.rna.tf32.f32 makes them), else replay faults (the
//	   ISA does not say how other bit patterns are read). Numerical model
//	   as f16: exact products, float64 sum in k order, one rounding.
//	m8n8k4 .f64 (A: one .f64 register, row g, column q; B: one register,
//	   row q, column g; C/D: 2 registers, row g, column 2q + i). Numerical
//	   model: d = fma(a3, b3, fma(a2, b2, fma(a1, b1, fma(a0, b0, c)))) with
//	   float64 fused multiply-adds (one rounding each), reported in
//	   Code.Notices like the f16/bf16 shapes.

// mma element kinds of A/B.
const (
	mmaF16 uint8 = iota + 1
	mmaBF16
	mmaS8
	mmaU8
	mmaF64
	mmaTF32
)

// mmaShape describes one shape: the matrix sizes, registers per operand,
// elements per register and the ISA's fragment positions.
type mmaShape struct {
	m, n, k          int
	aRegs, bRegs     int
	aPer, bPer       int // elements per register
	aPos, bPos, cPos func(lane, i int) (row, col int)
}

var (
	mmaM16N8K16 = mmaShape{m: 16, n: 8, k: 16, aRegs: 4, bRegs: 2, aPer: 2, bPer: 2,
		aPos: func(l, i int) (int, int) { return l/4 + 8*((i/2)%2), 2*(l%4) + i%2 + 8*(i/4) },
		bPos: func(l, i int) (int, int) { return 2*(l%4) + i%2 + 8*(i/2), l / 4 },
		cPos: func(l, i int) (int, int) { return l/4 + 8*(i/2), 2*(l%4) + i%2 }}
	mmaM16N8K32 = mmaShape{m: 16, n: 8, k: 32, aRegs: 4, bRegs: 2, aPer: 4, bPer: 4,
		aPos: func(l, i int) (int, int) { return l/4 + 8*((i/4)%2), 4*(l%4) + i%4 + 16*(i/8) },
		bPos: func(l, i int) (int, int) { return 4*(l%4) + i%4 + 16*(i/4), l / 4 },
		cPos: func(l, i int) (int, int) { return l/4 + 8*(i/2), 2*(l%4) + i%2 }}
	// m16n8k8 .tf32 ("Matrix Fragments for mma.m16n8k8", .tf32): a_i
	// row g + 8·(i%2), column q + 4·(i/2); b_i row q + 4·i, column g.
	mmaM16N8K8 = mmaShape{m: 16, n: 8, k: 8, aRegs: 4, bRegs: 2, aPer: 1, bPer: 1,
		aPos: func(l, i int) (int, int) { return l/4 + 8*(i%2), l%4 + 4*(i/2) },
		bPos: func(l, i int) (int, int) { return l%4 + 4*i, l / 4 },
		cPos: func(l, i int) (int, int) { return l/4 + 8*(i/2), 2*(l%4) + i%2 }}
	mmaM8N8K4 = mmaShape{m: 8, n: 8, k: 4, aRegs: 1, bRegs: 1, aPer: 1, bPer: 1,
		aPos: func(l, i int) (int, int) { return l / 4, l % 4 },
		bPos: func(l, i int) (int, int) { return l % 4, l / 4 },
		cPos: func(l, i int) (int, int) { return l / 4, 2*(l%4) + i }}
)

// lowerMma lowers mma.sync.aligned (shapes above) with .row.col.
func (l *lowerer) lowerMma(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, name := p.Op, p.Args, f.Name
	var sync, aligned, row, col, rn bool
	var sh *mmaShape
	for _, m := range opMods(op, name) {
		switch m {
		case ".sync":
			sync = true
		case ".aligned":
			aligned = true
		case ".m16n8k16":
			sh = &mmaM16N8K16
		case ".m16n8k32":
			sh = &mmaM16N8K32
		case ".m8n8k4":
			sh = &mmaM8N8K4
		case ".m16n8k8":
			sh = &mmaM16N8K8
		case ".row":
			row = true
		case ".col":
			col = true
		case ".satfinite":
			in.flags |= fSat
		case ".rn":
			rn = true
		case ".f16", ".f32", ".bf16", ".s8", ".u8", ".s32", ".f64", ".tf32":
		default:
			return refuse(name, "modifier %s is not implemented (only .m16n8k16 f16/bf16, .m16n8k8 tf32, .m16n8k32 s8/u8 and .m8n8k4 f64, .row.col)", m)
		}
	}
	if !sync || !aligned || sh == nil || !row || !col {
		return refuse(name, "only mma.sync.aligned.{m16n8k16,m16n8k8,m16n8k32,m8n8k4}.row.col is implemented")
	}
	ts := op.Types
	if len(ts) != 4 {
		return refuse(name, "needs four types .dtype.atype.btype.ctype")
	}
	dt, at, bt, ct := ts[0], ts[1], ts[2], ts[3]
	exact := false
	switch {
	case sh == &mmaM16N8K16 && at == ptx.F16 && bt == ptx.F16 && (dt == ptx.F16 || dt == ptx.F32) && (ct == ptx.F16 || ct == ptx.F32):
		in.sub = mmaF16
	case sh == &mmaM16N8K16 && at == ptx.BF16 && bt == ptx.BF16 && dt == ptx.F32 && ct == ptx.F32:
		in.sub = mmaBF16
	case sh == &mmaM16N8K8 && at == ptx.TF32 && bt == ptx.TF32 && dt == ptx.F32 && ct == ptx.F32:
		in.sub = mmaTF32
	case sh == &mmaM16N8K32 && (at == ptx.S8 || at == ptx.U8) && (bt == ptx.S8 || bt == ptx.U8) && dt == ptx.S32 && ct == ptx.S32:
		in.sub, exact = mmaS8, true
		if at == ptx.U8 {
			in.sub = mmaU8
		}
		if bt == ptx.U8 {
			in.sub2 = 1
		}
	case sh == &mmaM8N8K4 && at == ptx.F64 && bt == ptx.F64 && dt == ptx.F64 && ct == ptx.F64:
		if !rn {
			return refuse(name, ".f64 needs .rn")
		}
		in.sub = mmaF64
	default:
		return refuse(name, "type combination %s.%s.%s.%s is not implemented for this shape", dt, at, bt, ct)
	}
	if in.flags&fSat != 0 && !exact {
		return refuse(name, ".satfinite is only implemented for integer mma")
	}
	if err := need(a, 4); err != nil {
		return err
	}
	nc := func(t ptx.Type) int {
		switch {
		case sh == &mmaM8N8K4:
			return 2
		case t == ptx.F16:
			return 2
		}
		return 4
	}
	vec := func(op ptx.Operand, n int, what string) ([]ptx.Operand, error) {
		if op.Kind == ptx.OpVec && len(op.Elems) == n {
			return op.Elems, nil
		}
		if n == 1 && op.Kind == ptx.OpReg {
			return []ptx.Operand{op}, nil
		}
		return nil, refuse(name, "operand %s must be a vector of %d registers", what, n)
	}
	dv, err := vec(a[0], nc(dt), "d")
	if err != nil {
		return err
	}
	av, err := vec(a[1], sh.aRegs, "a")
	if err != nil {
		return err
	}
	bv, err := vec(a[2], sh.bRegs, "b")
	if err != nil {
		return err
	}
	cv, err := vec(a[3], nc(ct), "c")
	if err != nil {
		return err
	}
	for _, o := range append(append(append([]ptx.Operand(nil), av...), bv...), cv...) {
		r, err := l.src(o, ptx.B64)
		if err != nil {
			return err
		}
		in.args = append(in.args, slot{reg: r, size: 8})
	}
	if err := l.setD(in, dv...); err != nil {
		return err
	}
	in.typ, in.typ2 = dt, ct
	in.exec = func(w *warp, in *inst, m uint32) { execMma(w, in, m, sh) }
	if !exact {
		col0 := 0
		if l.c.Prog.File.Tok != nil && p.Pos().IsValid() {
			col0 = l.c.Prog.File.Tok.Position(p.Pos()).Column
		}
		model := "exact products, float64 accumulation in k order, one rounding"
		if in.sub == mmaF64 {
			model = "a chain of float64 fused multiply-adds in k order starting from c"
		}
		l.c.Notices = append(l.c.Notices, fmt.Sprintf("%s:%d:%d: replay: notice: %s computes with replay's documented numerical model (%s, to %s): within the documented tolerance of hardware, not bit-exact",
			l.c.Prog.Name, in.m.Line, col0, op.Text, model, dt))
	}
	return nil
}

func execMma(w *warp, in *inst, m uint32, sh *mmaShape) {
	if want := w.live; m != want || w.exited != 0 || want != 0xffffffff {
		w.faultf(in, -1, FaultBarrierDiverg,
			"mma.sync.aligned: executed by lanes %#08x, but all 32 threads of the warp must execute it and none may have exited", m)
		return
	}
	var A [16][32]float64
	var B [32][8]float64
	var C [16][8]float64
	var Ai [16][32]int64
	var Bi [32][8]int64
	var Ci [16][8]int64
	elem := func(v uint64, i, per int, kind uint8, unsigned bool) (float64, int64) {
		switch kind {
		case mmaF16:
			return float64(fpx.F16ToF32(uint16(v >> (16 * i)))), 0
		case mmaBF16:
			return float64(fpx.BF16ToF32(uint16(v >> (16 * i)))), 0
		case mmaTF32:
			return float64(math.Float32frombits(uint32(v))), 0
		case mmaS8, mmaU8:
			b := uint8(v >> (8 * i))
			if unsigned {
				return 0, int64(b)
			}
			return 0, int64(int8(b))
		}
		return math.Float64frombits(v), 0
	}
	rd := func(i, l int) uint64 { return w.regs[in.args[i].reg+int32(l)] }
	kind := in.sub
	ints := kind == mmaS8 || kind == mmaU8
	na, nb := sh.aRegs*sh.aPer, sh.bRegs*sh.bPer
	for l := 0; l < 32; l++ {
		for i := 0; i < na; i++ {
			r, c := sh.aPos(l, i)
			A[r][c], Ai[r][c] = elem(rd(i/sh.aPer, l), i%sh.aPer, sh.aPer, kind, kind == mmaU8)
		}
		for i := 0; i < nb; i++ {
			r, c := sh.bPos(l, i)
			B[r][c], Bi[r][c] = elem(rd(sh.aRegs+i/sh.bPer, l), i%sh.bPer, sh.bPer, kind, in.sub2 == 1)
		}
		cb := sh.aRegs + sh.bRegs
		nce := 4
		if sh == &mmaM8N8K4 {
			nce = 2
		}
		for i := 0; i < nce; i++ {
			r, c := sh.cPos(l, i)
			switch {
			case ints:
				Ci[r][c] = int64(int32(uint32(rd(cb+i, l))))
			case in.typ2 == ptx.F64:
				C[r][c] = math.Float64frombits(rd(cb+i, l))
			case in.typ2 == ptx.F32:
				C[r][c] = float64(math.Float32frombits(uint32(rd(cb+i, l))))
			default:
				C[r][c] = float64(fpx.F16ToF32(uint16(rd(cb+i/2, l) >> (16 * (i % 2)))))
			}
		}
	}
	if kind == mmaTF32 {
		// a .tf32 operand is a .b32 register holding a tf32 value: an
		// f32 bit pattern whose low 13 significand bits are zero (cvt.rna.tf32.f32
		// produces them). The ISA does not define how other patterns are
		// read; replay refuses them instead of guessing.
		for l := 0; l < 32; l++ {
			for i := 0; i < sh.aRegs+sh.bRegs; i++ {
				if v := uint32(rd(i, l)); v&0x1fff != 0 && v&0x7f800000 != 0x7f800000 {
					w.faultf(in, l, FaultUnsupported, "mma .tf32: operand register %d of lane %d holds %#08x, which is not a tf32 value (low 13 bits set); the ISA does not define how it is read", i, l, v)
					return
				}
			}
		}
	}
	var D [16][8]float64
	var Di [16][8]int64
	for i := 0; i < sh.m; i++ {
		for j := 0; j < sh.n; j++ {
			switch {
			case ints:
				s := Ci[i][j]
				for k := 0; k < sh.k; k++ {
					s += Ai[i][k] * Bi[k][j]
				}
				Di[i][j] = s
			case kind == mmaF64:
				s := C[i][j]
				for k := 0; k < sh.k; k++ {
					s = math.FMA(A[i][k], B[k][j], s)
				}
				D[i][j] = s
			default:
				s := 0.0
				for k := 0; k < sh.k; k++ {
					s += A[i][k] * B[k][j]
				}
				D[i][j] = s + C[i][j]
			}
		}
	}
	sat := in.flags&fSat != 0
	for l := 0; l < 32; l++ {
		switch {
		case ints:
			for i := 0; i < 4; i++ {
				r, c := sh.cPos(l, i)
				v := Di[r][c]
				if sat {
					v = max(min(v, math.MaxInt32), math.MinInt32)
				}
				w.regs[in.d[i]+int32(l)] = uint64(uint32(int32(v)))
			}
		case in.typ == ptx.F64:
			for i := 0; i < 2; i++ {
				r, c := sh.cPos(l, i)
				w.regs[in.d[i]+int32(l)] = math.Float64bits(D[r][c])
			}
		case in.typ == ptx.F32:
			for i := 0; i < 4; i++ {
				r, c := sh.cPos(l, i)
				w.regs[in.d[i]+int32(l)] = uint64(math.Float32bits(fpx.F64ToF32(D[r][c], fpx.RN)))
			}
		default:
			for rg := 0; rg < 2; rg++ {
				r0, c0 := sh.cPos(l, 2*rg)
				r1, c1 := sh.cPos(l, 2*rg+1)
				lo := fpx.F64ToF16(D[r0][c0], fpx.RN)
				hi := fpx.F64ToF16(D[r1][c1], fpx.RN)
				w.regs[in.d[rg]+int32(l)] = uint64(lo) | uint64(hi)<<16
			}
		}
	}
}
