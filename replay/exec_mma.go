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

type mmaKind uint8

const (
	mmaF16 mmaKind = iota + 1 // .f16 A/B
	mmaBF16
)

// lowerMma lowers mma.sync.aligned.m16n8k16.row.col with f16/bf16 inputs.
func (l *lowerer) lowerMma(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, name := p.Op, p.Args, f.Name
	var sync, aligned, shape, row, col bool
	for _, m := range opMods(op, name) {
		switch m {
		case ".sync":
			sync = true
		case ".aligned":
			aligned = true
		case ".m16n8k16":
			shape = true
		case ".row":
			row = true
		case ".col":
			col = true
		case ".f16", ".f32", ".bf16":
		default:
			return refuse(name, "modifier %s is not implemented (only .m16n8k16.row.col with .f16/.bf16 inputs)", m)
		}
	}
	if !sync || !aligned || !shape || !row || !col {
		return refuse(name, "only mma.sync.aligned.m16n8k16.row.col is implemented")
	}
	ts := op.Types
	if len(ts) != 4 {
		return refuse(name, "needs four types .dtype.atype.btype.ctype")
	}
	dt, at, bt, ct := ts[0], ts[1], ts[2], ts[3]
	switch {
	case at != bt:
		return refuse(name, "atype and btype must be equal")
	case at == ptx.F16 && (dt == ptx.F16 || dt == ptx.F32) && (ct == ptx.F16 || ct == ptx.F32):
		in.sub = uint8(mmaF16)
	case at == ptx.BF16 && dt == ptx.F32 && ct == ptx.F32:
		in.sub = uint8(mmaBF16)
	default:
		return refuse(name, "type combination %s.%s.%s.%s is not implemented", dt, at, bt, ct)
	}
	if err := need(a, 4); err != nil {
		return err
	}
	nc := func(t ptx.Type) int {
		if t == ptx.F32 {
			return 4
		}
		return 2
	}
	vec := func(op ptx.Operand, n int, what string) ([]ptx.Operand, error) {
		if op.Kind != ptx.OpVec || len(op.Elems) != n {
			return nil, refuse(name, "operand %s must be a vector of %d registers", what, n)
		}
		return op.Elems, nil
	}
	dv, err := vec(a[0], nc(dt), "d")
	if err != nil {
		return err
	}
	av, err := vec(a[1], 4, "a")
	if err != nil {
		return err
	}
	bv, err := vec(a[2], 2, "b")
	if err != nil {
		return err
	}
	cv, err := vec(a[3], nc(ct), "c")
	if err != nil {
		return err
	}
	for _, o := range append(append(append([]ptx.Operand(nil), av...), bv...), cv...) {
		r, err := l.src(o, ptx.B32)
		if err != nil {
			return err
		}
		in.args = append(in.args, slot{reg: r, size: 4})
	}
	if err := l.setD(in, dv...); err != nil {
		return err
	}
	in.typ, in.typ2 = dt, ct
	in.exec = execMma
	col0 := 0
	if l.c.Prog.File.Tok != nil && p.Pos().IsValid() {
		col0 = l.c.Prog.File.Tok.Position(p.Pos()).Column
	}
	l.c.Notices = append(l.c.Notices, fmt.Sprintf("%s:%d:%d: replay: notice: %s computes with replay's documented numerical model (exact products, float64 accumulation in k order, one rounding to %s): within the documented tolerance of hardware, not bit-exact",
		l.c.Prog.Name, in.m.Line, col0, op.Text, dt))
	return nil
}

func execMma(w *warp, in *inst, m uint32) {
	if want := w.live; m != want || w.exited != 0 || want != 0xffffffff {
		w.faultf(in, -1, FaultBarrierDiverg,
			"mma.sync.aligned: executed by lanes %#08x, but all 32 threads of the warp must execute it and none may have exited", m)
		return
	}
	var A [16][16]float64
	var B [16][8]float64
	var C [16][8]float64
	half := func(v uint64, hi int) float64 {
		h := uint16(v >> (16 * hi))
		if mmaKind(in.sub) == mmaBF16 {
			return float64(fpx.BF16ToF32(h))
		}
		return float64(fpx.F16ToF32(h))
	}
	rd := func(i, l int) uint64 { return w.regs[in.args[i].reg+int32(l)] }
	cf32 := in.typ2 == ptx.F32
	for l := 0; l < 32; l++ {
		g, q := l/4, l%4
		for i := 0; i < 8; i++ {
			A[g+8*((i/2)%2)][2*q+i%2+8*(i/4)] = half(rd(i/2, l), i%2)
		}
		for i := 0; i < 4; i++ {
			B[2*q+i%2+8*(i/2)][g] = half(rd(4+i/2, l), i%2)
		}
		for i := 0; i < 4; i++ {
			r, c := g+8*(i/2), 2*q+i%2
			if cf32 {
				C[r][c] = float64(math.Float32frombits(uint32(rd(6+i, l))))
			} else {
				C[r][c] = float64(fpx.F16ToF32(uint16(rd(6+i/2, l) >> (16 * (i % 2)))))
			}
		}
	}
	var D [16][8]float64
	for i := 0; i < 16; i++ {
		for j := 0; j < 8; j++ {
			s := 0.0
			for k := 0; k < 16; k++ {
				s += A[i][k] * B[k][j]
			}
			D[i][j] = s + C[i][j]
		}
	}
	df32 := in.typ == ptx.F32
	for l := 0; l < 32; l++ {
		g, q := l/4, l%4
		if df32 {
			for i := 0; i < 4; i++ {
				v := fpx.F64ToF32(D[g+8*(i/2)][2*q+i%2], fpx.RN)
				w.regs[in.d[i]+int32(l)] = uint64(math.Float32bits(v))
			}
			continue
		}
		for r := 0; r < 2; r++ {
			lo := fpx.F64ToF16(D[g+8*r][2*q], fpx.RN)
			hi := fpx.F64ToF16(D[g+8*r][2*q+1], fpx.RN)
			w.regs[in.d[r]+int32(l)] = uint64(lo) | uint64(hi)<<16
		}
	}
}
