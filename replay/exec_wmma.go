package replay

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// wmma.load / wmma.store / wmma.mma (PTX ISA, "Warp-level Matrix
// Multiply-Accumulate Instructions: wmma"), for two geometries:
//
//	.m16n16k16 with .f16 A and B (8 .f16x2 registers each) and .f16
//	   (4 .f16x2 registers) or .f32 (8 registers) C and D;
//	.m8n8k4 with .f64 A and B (1 register each), C and D (2 registers).
//
// The ISA leaves the distribution of matrix elements over the lanes'
// fragments unspecified (a program may only rely on wmma.load, wmma.mma
// and wmma.store agreeing with each other, and on element-wise operations
// applied uniformly to every fragment element). Replay uses the mma.sync
// fragment tables of the ISA (exec_mma.go), which is how sm_80 lays them
// out: for lane t, g = t/4, q = t%4,
//
//	m16n16k16 A, element e (0..15; e and e+8 hold the same element):
//	   the mma.m16n8k16 A element e%8 — row g + 8·((e/2)%2),
//	   column 2q + e%2 + 8·((e%8)/4);
//	m16n16k16 B, element e (0..15; e and e+8 the same): with i = e%4 and
//	   h = (e%8)/4, row 2q + i%2 + 8·(i/2), column g + 8h (the
//	   mma.m16n8k16 B table for the column half h);
//	m16n16k16 C/D, element e (0..7): with h = e/4, i = e%4, row
//	   g + 8·(i/2), column 2q + i%2 + 8h; .f16 fragments pack elements
//	   2r, 2r+1 into register r (low, high half), .f32 one per register;
//	m8n8k4 A: row g, column q; B: row q, column g; C/D element i: row g,
//	   column 2q + i.
//
// A load or store of matrix element (r, c) addresses element
// r·stride + c (.row) or c·stride + r (.col) from the warp-uniform address
// p; the stride operand is required (replay refuses the spelling without
// it). wmma is .sync.aligned: all 32 threads execute it together with the
// same address and stride, else replay faults. The model sees one access
// per lane, at the lane's first element, of in.m.Size bytes.
//
// wmma.mma computes D = A·B + C with the numerical model of mma.sync
// (exact products, float64 sum in k order, c added, one rounding to the
// destination type; .f64: a chain of fused multiply-adds in k order),
// reported in Code.Notices.

// wmma geometries
const (
	wmmaM16N16K16 uint8 = iota + 1
	wmmaM8N8K4
)

// wmma fragment kinds (inst.sub)
const (
	fragA uint8 = iota
	fragB
	fragC
)

// wmmaPos returns the matrix position of element e of lane l's fragment.
func wmmaPos(geom, frag uint8, l, e int) (row, col int) {
	if geom == wmmaM8N8K4 {
		switch frag {
		case fragA:
			return mmaM8N8K4.aPos(l, 0)
		case fragB:
			return mmaM8N8K4.bPos(l, 0)
		}
		return mmaM8N8K4.cPos(l, e)
	}
	switch frag {
	case fragA:
		return mmaM16N8K16.aPos(l, e%8)
	case fragB:
		r, c := mmaM16N8K16.bPos(l, e%4)
		return r, c + 8*((e%8)/4)
	}
	r, c := mmaM16N8K16.cPos(l, e%4)
	return r, c + 8*(e/4)
}

// wmmaElems returns the number of elements of a fragment and how many
// share one register.
func wmmaElems(geom, frag uint8, t ptx.Type) (n, per int) {
	if geom == wmmaM8N8K4 {
		if frag == fragC {
			return 2, 1
		}
		return 1, 1
	}
	switch {
	case frag != fragC:
		return 16, 2
	case t == ptx.F16:
		return 8, 2
	}
	return 8, 1
}

// lowerWmma lowers wmma.load, wmma.store and wmma.mma.
func (l *lowerer) lowerWmma(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, name := p.Op, p.Args, f.Name
	var sync, aligned, rn bool
	var geom uint8
	frag, layouts := -1, []bool{}
	for _, m := range opMods(op, name) {
		switch m {
		case ".sync":
			sync = true
		case ".aligned":
			aligned = true
		case ".m16n16k16":
			geom = wmmaM16N16K16
		case ".m8n8k4":
			geom = wmmaM8N8K4
		case ".a":
			frag = int(fragA)
		case ".b":
			frag = int(fragB)
		case ".c", ".d":
			frag = int(fragC)
		case ".row":
			layouts = append(layouts, false)
		case ".col":
			layouts = append(layouts, true)
		case ".rn":
			rn = true
		case ".global", ".shared", ".shared::cta", ".f16", ".f32", ".f64":
		default:
			return refuse(name, "modifier %s is not implemented (only .m16n16k16 .f16/.f32 and .m8n8k4 .f64)", m)
		}
	}
	if !sync || !aligned || geom == 0 {
		return refuse(name, "only wmma .sync.aligned with .m16n16k16 or .m8n8k4 is implemented")
	}
	if name == "wmma.mma" {
		return l.lowerWmmaMma(p, in, geom, len(layouts) == 2, rn)
	}
	if frag < 0 || len(layouts) != 1 || (name == "wmma.store") != (frag == int(fragC) && hasMod(op, ".d")) {
		return refuse(name, "needs a fragment (.a/.b/.c for wmma.load, .d for wmma.store) and one layout (.row/.col)")
	}
	if rn {
		return refuse(name, ".rn is a wmma.mma modifier")
	}
	t := op.Type()
	switch {
	case geom == wmmaM16N16K16 && frag != int(fragC) && t == ptx.F16:
	case geom == wmmaM16N16K16 && frag == int(fragC) && (t == ptx.F16 || t == ptx.F32):
	case geom == wmmaM8N8K4 && t == ptx.F64:
	default:
		return refuse(name, "type %s is not implemented for this fragment and shape", t)
	}
	if len(a) != 3 {
		return refuse(name, "needs the stride operand (replay does not implement the default stride)")
	}
	regOp, addrOp := a[0], a[1]
	if name == "wmma.store" {
		regOp, addrOp = a[1], a[0]
	}
	n, per := wmmaElems(geom, uint8(frag), t)
	elems := []ptx.Operand{regOp}
	if regOp.Kind == ptx.OpVec {
		elems = regOp.Elems
	}
	if len(elems) != n/per {
		return refuse(name, "the fragment needs %d registers, found %d", n/per, len(elems))
	}
	base, off, symSp, err := l.addr(addrOp)
	if err != nil {
		return err
	}
	in.s[0], in.ns = base, 1
	in.off = off
	if err := l.setS(in, ptx.U32, a[2]); err != nil {
		return err
	}
	sp := spaceOf(op.Space)
	if op.Space == ptx.SpaceNone || op.Space == ptx.SpaceGeneric {
		sp = spGeneric
		if symSp == spShared || symSp == spGlobal {
			sp = symSp
		}
	}
	if sp != spShared && sp != spGlobal && sp != spGeneric {
		return refuse(name, "only global, shared and generic addresses are allowed")
	}
	in.space = sp
	in.sub = uint8(frag)
	if layouts[0] {
		in.sub2 = 1
	}
	in.typ = t
	in.esize = uint8(t.Size())
	uniq := n
	if geom == wmmaM16N16K16 && frag != int(fragC) {
		uniq = 8
	}
	in.m.Size = uniq * t.Size()
	if sp != spGeneric {
		in.m.Space = sp.model()
	}
	if name == "wmma.load" {
		if err := l.setDests(in, elems); err != nil {
			return err
		}
		in.exec = func(w *warp, in *inst, m uint32) { execWmmaMem(w, in, m, geom, false) }
		return nil
	}
	for _, o := range elems {
		r, err := l.src(o, ptx.B64)
		if err != nil {
			return err
		}
		in.args = append(in.args, slot{reg: r, size: 8})
	}
	in.exec = func(w *warp, in *inst, m uint32) { execWmmaMem(w, in, m, geom, true) }
	return nil
}

// setDests records destination registers as in.rets slots (more than
// the four inst.d holds).
func (l *lowerer) setDests(in *inst, ops []ptx.Operand) error {
	for _, o := range ops {
		r, err := l.dst(o)
		if err != nil {
			return err
		}
		in.rets = append(in.rets, slot{reg: r, size: 8})
	}
	return nil
}

func hasMod(op *ptx.Opcode, m string) bool {
	for _, x := range op.Mods {
		if x == m {
			return true
		}
	}
	return false
}

// wmmaConverged faults unless all 32 threads execute a .sync.aligned wmma.
func (w *warp) wmmaConverged(in *inst, m uint32) bool {
	if want := w.live; m != want || w.exited != 0 || want != 0xffffffff {
		w.faultf(in, -1, FaultBarrierDiverg,
			"%s is .sync.aligned: executed by lanes %#08x, but all 32 threads of the warp must execute it and none may have exited", opName(in), m)
		return false
	}
	return true
}

// execWmmaMem executes wmma.load (store false) and wmma.store.
func execWmmaMem(w *warp, in *inst, m uint32, geom uint8, store bool) {
	if !w.wmmaConverged(in, m) {
		return
	}
	base, stride := w.r(in.s[0]), w.r(in.s[1])
	p0, s0 := base[0]+uint64(in.off), uint32(stride[0])
	for l := 1; l < 32; l++ {
		if base[l]+uint64(in.off) != p0 || uint32(stride[l]) != s0 {
			w.faultf(in, l, FaultInvalid, "%s: address %#x and stride %d of lane %d differ from lane 0's (%#x, %d); they must be warp-uniform",
				opName(in), base[l]+uint64(in.off), uint32(stride[l]), l, p0, s0)
			return
		}
	}
	frag := in.sub
	n, per := wmmaElems(geom, frag, in.typ)
	es := uint64(in.esize)
	w.eff.Addr = w.addrs[:]
	var first space = spNone
	for l := 0; l < 32; l++ {
		for e := 0; e < n; e++ {
			r, c := wmmaPos(geom, frag, l, e)
			idx := uint64(r)*uint64(s0) + uint64(c)
			if in.sub2 == 1 {
				idx = uint64(c)*uint64(s0) + uint64(r)
			}
			a := p0 + idx*es
			sp := in.space
			if sp == spGeneric {
				sp, a = w.k.code.am.resolve(a)
				if sp != spGlobal && sp != spShared {
					w.faultf(in, l, FaultInvalid, "%s: generic address %#x is neither global nor shared memory", opName(in), p0+idx*es)
					return
				}
			}
			if a%es != 0 {
				w.faultf(in, l, FaultMisaligned, "misaligned %s element address %#x (%d-byte elements)", opName(in), a, es)
				return
			}
			if e == 0 {
				w.addrs[l] = a
				if l == 0 {
					first = sp
				}
			}
			reg := e / per
			sh := 8 * int(es) * (e % per)
			if store {
				v := w.regs[in.args[reg].reg+int32(l)] >> sh
				if !w.store(in, sp, l, a, int(es), v) {
					return
				}
				continue
			}
			v, ok := w.load(in, sp, l, a, int(es))
			if !ok {
				return
			}
			d := &w.regs[in.rets[reg].reg+int32(l)]
			if e%per == 0 {
				*d = 0
			}
			*d |= v << sh
		}
	}
	w.setSpace(first)
}

// lowerWmmaMma lowers wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype
// (m16n16k16: dtype, ctype ∈ {.f16, .f32} with .f16 A/B; m8n8k4:
// .rn.f64.f64.f64.f64). The layouts only say how the fragments were loaded;
// replay's fragment positions do not depend on them.
func (l *lowerer) lowerWmmaMma(p *ptx.Instruction, in *inst, geom uint8, layouts, rn bool) error {
	op, a, name := p.Op, p.Args, "wmma.mma"
	if !layouts {
		return refuse(name, "needs .alayout.blayout (.row/.col each)")
	}
	ts := op.Types
	var dt, ct ptx.Type
	switch {
	case geom == wmmaM16N16K16 && len(ts) == 2 && (ts[0] == ptx.F16 || ts[0] == ptx.F32) && (ts[1] == ptx.F16 || ts[1] == ptx.F32) && !rn:
		dt, ct = ts[0], ts[1]
	case geom == wmmaM8N8K4 && len(ts) == 4 && ts[0] == ptx.F64 && ts[1] == ptx.F64 && ts[2] == ptx.F64 && ts[3] == ptx.F64 && rn:
		dt, ct = ptx.F64, ptx.F64
	default:
		return refuse(name, "only .m16n16k16.{f16,f32}.{f16,f32} and .m8n8k4.rn.f64.f64.f64.f64 are implemented")
	}
	if err := need(a, 4); err != nil {
		return err
	}
	at := ptx.F16
	if geom == wmmaM8N8K4 {
		at = ptx.F64
	}
	vec := func(o ptx.Operand, n int, what string) ([]ptx.Operand, error) {
		if o.Kind == ptx.OpVec && len(o.Elems) == n {
			return o.Elems, nil
		}
		return nil, refuse(name, "operand %s must be a vector of %d registers", what, n)
	}
	cnt := func(frag uint8, t ptx.Type) int { n, per := wmmaElems(geom, frag, t); return n / per }
	dv, err := vec(a[0], cnt(fragC, dt), "d")
	if err != nil {
		return err
	}
	var srcs []ptx.Operand
	for i, fr := range []struct {
		k uint8
		t ptx.Type
	}{{fragA, at}, {fragB, at}, {fragC, ct}} {
		v, err := vec(a[1+i], cnt(fr.k, fr.t), "abc"[i:i+1])
		if err != nil {
			return err
		}
		srcs = append(srcs, v...)
	}
	for _, o := range srcs {
		r, err := l.src(o, ptx.B64)
		if err != nil {
			return err
		}
		in.args = append(in.args, slot{reg: r, size: 8})
	}
	if err := l.setDests(in, dv); err != nil {
		return err
	}
	in.typ, in.typ2 = dt, ct
	in.exec = func(w *warp, in *inst, m uint32) { execWmmaMma(w, in, m, geom) }
	col0 := 0
	if l.c.Prog.File.Tok != nil && p.Pos().IsValid() {
		col0 = l.c.Prog.File.Tok.Position(p.Pos()).Column
	}
	model := "exact products, float64 accumulation in k order, one rounding"
	if geom == wmmaM8N8K4 {
		model = "a chain of float64 fused multiply-adds in k order starting from c"
	}
	l.c.Notices = append(l.c.Notices, fmt.Sprintf("%s:%d:%d: replay: notice: %s computes with replay's documented numerical model (%s, to %s): within the documented tolerance of hardware, not bit-exact",
		l.c.Prog.Name, in.m.Line, col0, op.Text, model, dt))
	return nil
}

func execWmmaMma(w *warp, in *inst, m uint32, geom uint8) {
	if !w.wmmaConverged(in, m) {
		return
	}
	var A, B, C, D [16][16]float64
	at := ptx.F16
	M, N, K := 16, 16, 16
	if geom == wmmaM8N8K4 {
		at, M, N, K = ptx.F64, 8, 8, 4
	}
	elem := func(v uint64, t ptx.Type, half int) float64 {
		switch t {
		case ptx.F16:
			return float64(fpx.F16ToF32(uint16(v >> (16 * half))))
		case ptx.F32:
			return float64(math.Float32frombits(uint32(v)))
		}
		return math.Float64frombits(v)
	}
	reg := 0
	for _, fr := range []struct {
		k   uint8
		t   ptx.Type
		mat *[16][16]float64
	}{{fragA, at, &A}, {fragB, at, &B}, {fragC, in.typ2, &C}} {
		n, per := wmmaElems(geom, fr.k, fr.t)
		if fr.k != fragC && geom == wmmaM16N16K16 {
			n = 8 // elements 8..15 duplicate 0..7
		}
		for l := 0; l < 32; l++ {
			for e := 0; e < n; e++ {
				r, c := wmmaPos(geom, fr.k, l, e)
				fr.mat[r][c] = elem(w.regs[in.args[reg+e/per].reg+int32(l)], fr.t, e%per)
			}
		}
		n, per = wmmaElems(geom, fr.k, fr.t)
		reg += n / per
	}
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			if geom == wmmaM8N8K4 {
				s := C[i][j]
				for k := 0; k < K; k++ {
					s = math.FMA(A[i][k], B[k][j], s)
				}
				D[i][j] = s
				continue
			}
			s := 0.0
			for k := 0; k < K; k++ {
				s += A[i][k] * B[k][j]
			}
			D[i][j] = s + C[i][j]
		}
	}
	n, per := wmmaElems(geom, fragC, in.typ)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		for e := 0; e < n; e++ {
			r, c := wmmaPos(geom, fragC, l, e)
			d := &w.regs[in.rets[e/per].reg+int32(l)]
			switch in.typ {
			case ptx.F64:
				*d = math.Float64bits(D[r][c])
			case ptx.F32:
				*d = uint64(math.Float32bits(fpx.F64ToF32(D[r][c], fpx.RN)))
			default:
				if e%2 == 0 {
					*d = 0
				}
				*d |= uint64(fpx.F64ToF16(D[r][c], fpx.RN)) << (16 * (e % 2))
			}
		}
	}
}
