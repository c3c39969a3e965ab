package replay

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// wgmma.mma_async.sync.aligned.m64nNkK.f32.atype.btype d, a-desc, b-desc,
// scale-d, imm-scale-a, imm-scale-b[, imm-trans-a, imm-trans-b] (PTX ISA,
// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"): a warpgroup
// (four consecutive warps 4j..4j+3 of the CTA) computes D = A·B + D (or
// A·B when scale-d is false), A 64×K and B K×N read from shared memory
// through matrix descriptors, D 64×N in registers.
//
// Implemented: atype = btype ∈ {.f16, .bf16} with K = 16, {.e4m3, .e5m2}
// with K = 32; N a multiple of 8 up to 256; D .f32; both operands from
// descriptors, K-major (imm-trans-a = imm-trans-b = 0), imm-scale ±1.
//
// Descriptor (64 bits): start address bits 0–13 (address>>4, a shared
// space address), leading-dimension byte offset bits 16–29 (>>4),
// stride-dimension byte offset (SBO) bits 32–45 (>>4), base offset bits
// 49–51, layout (swizzle) bits 62–63: 1 = 128-byte, 2 = 64-byte,
// 3 = 32-byte swizzle. In the K-major swizzled canonical layout of width W
// (128, 64, 32 bytes), row r (of M for A, of N for B) and byte k·size
// along K sit at start + (r/8)·SBO + (r%8)·W + k·size — K·size is 32
// bytes ≤ W, so the leading-dimension offset is not used — and the
// swizzle exchanges 16-byte chunks: address bits 4..(3+log2(W/16)) are
// XORed with bits 7..(6+log2(W/16)) (CUTLASS Swizzle<3,4,3>, <2,4,3>,
// <1,4,3>). Replay refuses (faults) the unswizzled layout, a non-zero
// base offset, and descriptors that differ between the lanes of a warp or
// between the warps of the warpgroup (the n-th wgmma of each warp must be
// the same instruction with the same descriptors and scale-d).
//
// Fragment of D (f32): warp w%4 of its warpgroup holds rows 16·(w%4) ..
// +15; register i of lane t (g = t/4, q = t%4) is row
// 16·(w%4) + g + 8·((i/2)%2), column 8·(i/4) + 2q + i%2.
//
// Each warp computes its own 16 rows from shared memory when it issues
// the instruction; the asynchronous completion (wgmma.commit_group /
// wait_group) is then a no-op functionally: a program that reads D or
// writes A/B before waiting has undefined behavior on hardware, and any
// program that waits sees what replay computed. Numerical model as
// mma.sync (exact products, float64 sum in k order, D added, one rounding
// to f32), reported in Code.Notices.

// wgmma element kinds
const (
	wgF16 uint8 = iota + 1
	wgBF16
	wgE4M3
	wgE5M2
)

// lowerWgmma lowers wgmma.mma_async.
func (l *lowerer) lowerWgmma(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, name := p.Op, p.Args, f.Name
	var sync, aligned bool
	n, k := 0, 0
	for _, m := range opMods(op, name) {
		switch {
		case m == ".sync":
			sync = true
		case m == ".aligned":
			aligned = true
		case strings.HasPrefix(m, ".m64n"):
			nn, kk, ok := strings.Cut(m[len(".m64n"):], "k")
			var e1, e2 error
			n, e1 = strconv.Atoi(nn)
			k, e2 = strconv.Atoi(kk)
			if !ok || e1 != nil || e2 != nil || n%8 != 0 || n < 8 || n > 256 {
				return refuse(name, "shape %s is not implemented", m)
			}
		case m == ".f32" || m == ".f16" || m == ".bf16" || m == ".e4m3" || m == ".e5m2":
		default:
			return refuse(name, "modifier %s is not implemented", m)
		}
	}
	if !sync || !aligned || n == 0 {
		return refuse(name, "only wgmma.mma_async.sync.aligned.m64nNkK is implemented")
	}
	ts := op.Types
	if len(ts) != 3 || ts[0] != ptx.F32 || ts[1] != ts[2] {
		return refuse(name, "only .f32 accumulators with equal A and B types are implemented")
	}
	want := 16
	switch op.Mods[len(op.Mods)-1] {
	case ".f16":
		in.sub = wgF16
	case ".bf16":
		in.sub = wgBF16
	case ".e4m3":
		in.sub, want = wgE4M3, 32
	case ".e5m2":
		in.sub, want = wgE5M2, 32
	default:
		return refuse(name, "A/B type %s is not implemented", op.Mods[len(op.Mods)-1])
	}
	if k != want {
		return refuse(name, "K = %d does not match the type (K = %d)", k, want)
	}
	regA := a[1].Kind == ptx.OpVec
	// operands after d, a, b, scale-d: imm-scale-a, imm-scale-b, then
	// (f16/bf16 only) imm-trans-a (descriptor A only) and imm-trans-b
	nimm := 2
	if want == 16 {
		nimm = 4
		if regA {
			nimm = 3
		}
	}
	if len(a) != 4+nimm {
		return refuse(name, "expected %d operands, found %d", 4+nimm, len(a))
	}
	if regA && (len(a[1].Elems) != 4 || want != 16) {
		return refuse(name, "A from registers is implemented for .f16/.bf16 with 4 registers only")
	}
	if a[0].Kind != ptx.OpVec || len(a[0].Elems) != n/2 {
		return refuse(name, "d must be a vector of %d registers", n/2)
	}
	imm := func(o ptx.Operand) (int64, bool) {
		if o.Kind != ptx.OpImm {
			return 0, false
		}
		v, err := strconv.ParseInt(o.Name, 0, 64)
		return v, err == nil
	}
	for i := 4; i < len(a); i++ {
		v, ok := imm(a[i])
		switch {
		case !ok:
			return refuse(name, "operand %d must be an immediate", i+1)
		case i < 6 && v != 1 && v != -1:
			return refuse(name, "imm-scale must be 1 or -1, found %d", v)
		case i >= 6 && v != 0 && v != 1:
			return refuse(name, "imm-trans must be 0 or 1, found %d", v)
		case i == 4 && v == -1:
			in.flags |= fNegA
		case i == 5 && v == -1:
			in.flags |= fNegB
		case i >= 6 && v == 1 && (i == len(a)-1):
			in.flags |= fTransB
		case i >= 6 && v == 1:
			in.flags |= fTransA
		}
	}
	if regA {
		// A fragment registers: the scratch slots after d's
		for _, o := range a[1].Elems {
			r, err := l.src(o, ptx.B32)
			if err != nil {
				return err
			}
			in.targets = append(in.targets, r)
		}
		a = append([]ptx.Operand{a[0], {Kind: ptx.OpImm, Name: "0"}}, a[2:]...)
	}
	if err := l.setS(in, ptx.B64, a[1], a[2]); err != nil {
		return err
	}
	if v, ok := imm(a[3]); ok {
		if v != 0 && v != 1 {
			return refuse(name, "scale-d must be 0 or 1")
		}
		in.s[2] = l.constReg(regInit{kind: initImm, v: uint64(v)})
		in.ns = 3
	} else if err := l.setS(in, ptx.Pred, a[3]); err != nil {
		return err
	}
	for _, o := range a[0].Elems {
		r, err := l.src(o, ptx.B32)
		if err != nil {
			return err
		}
		in.args = append(in.args, slot{reg: r, size: 8})
	}
	if err := l.setDests(in, a[0].Elems); err != nil {
		return err
	}
	in.vec = uint8(n / 8)
	in.exec = execWgmma
	col0 := 0
	if l.c.Prog.File.Tok != nil && p.Pos().IsValid() {
		col0 = l.c.Prog.File.Tok.Position(p.Pos()).Column
	}
	l.c.Notices = append(l.c.Notices, fmt.Sprintf("%s:%d:%d: replay: notice: %s computes with replay's documented numerical model (exact products, float64 accumulation in k order, one rounding, to f32): within the documented tolerance of hardware, not bit-exact",
		l.c.Prog.Name, in.m.Line, col0, op.Text))
	return nil
}

// wgOperands are what the warps of a warpgroup must agree on.
type wgOperands struct {
	pc           int
	descA, descB uint64
	scaleD       uint64
	warp, count  int
}

// wgDesc is a decoded matrix descriptor.
type wgDesc struct {
	start, lbo, sbo uint64
	width           uint64 // swizzle width in bytes (0: interleaved, no swizzle)
}

func decodeWgDesc(d uint64, mnMajor bool) (wgDesc, string) {
	x := wgDesc{start: (d & 0x3fff) << 4, lbo: (d >> 16 & 0x3fff) << 4, sbo: (d >> 32 & 0x3fff) << 4}
	switch d >> 62 {
	case 1:
		x.width = 128
	case 2:
		x.width = 64
	case 3:
		x.width = 32
	default:
		if mnMajor {
			return x, "the unswizzled (interleaved) layout of an MN-major operand is not implemented"
		}
	}
	if bo := d >> 49 & 7; bo != 0 {
		return x, fmt.Sprintf("base offset %d is not implemented", bo)
	}
	return x, ""
}

// addr returns the shared address of element (r, k) — r along M (A) or N
// (B) — of es-byte elements, K-major or MN-major, with the canonical
// layouts (CUTLASS make_gmma_desc; T = 16/es elements per 16 bytes):
//
//	K-major interleaved: ((8,m),(T,2)) : ((16 B, SBO), (es, LBO))
//	K-major swizzled W:  ((8,m),(W/es)) : ((W, SBO), (es))
//	MN-major swizzled W: ((W/es,m),(8,k)) : ((es, LBO), (W, SBO))
//
// then the swizzle XORs address bits 4.. with bits 7.. (log2(W/16) bits).
func (x wgDesc) addr(r, k int, es uint64, mnMajor bool) uint64 {
	var a uint64
	ur, uk := uint64(r), uint64(k)
	switch {
	case x.width == 0:
		t := 16 / es
		return x.start + ur%8*16 + ur/8*x.sbo + uk%t*es + uk/t*x.lbo
	case mnMajor:
		per := x.width / es
		a = x.start + ur%per*es + ur/per*x.lbo + uk%8*x.width + uk/8*x.sbo
	default:
		a = x.start + ur%8*x.width + ur/8*x.sbo + uk*es
	}
	mask := x.width/16 - 1
	return a ^ (a >> 7 & mask << 4)
}

// fp8 decoding (OCP FP8: e4m3 bias 7, no infinities, S.1111.111 NaN;
// e5m2 is the high byte of an IEEE binary16).
func e4m3ToF64(b uint8) float64 {
	s := 1.0
	if b&0x80 != 0 {
		s = -1
	}
	e, m := int(b>>3&15), float64(b&7)
	switch {
	case e == 15 && b&7 == 7:
		return math.NaN()
	case e == 0:
		return s * m / 8 * math.Ldexp(1, -6)
	}
	return s * (1 + m/8) * math.Ldexp(1, e-7)
}

func e5m2ToF64(b uint8) float64 { return float64(fpx.F16ToF32(uint16(b) << 8)) }

func execWgmma(w *warp, in *inst, m uint32) {
	if !w.wmmaConverged(in, m) {
		return
	}
	wg := w.id / 4
	if w.k.nthreads < 128*(wg+1) {
		w.faultf(in, -1, FaultBarrierDiverg, "wgmma: warpgroup %d is incomplete (the CTA has %d threads; a warpgroup is 128)", wg, w.k.nthreads)
		return
	}
	da, db, sd := w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2])
	for l := 1; l < 32; l++ {
		if da[l] != da[0] || db[l] != db[0] || sd[l]&1 != sd[0]&1 {
			w.faultf(in, l, FaultInvalid, "wgmma: descriptors or scale-d of lane %d differ from lane 0's; they must be warp-uniform", l)
			return
		}
	}
	// the four warps of the warpgroup execute the same wgmma with the same
	// descriptors and scale-d (else the behavior is undefined)
	ops := wgOperands{pc: in.m.PC, descA: da[0], descB: db[0], scaleD: sd[0] & 1, warp: w.id}
	if in.targets != nil {
		ops.descA = 0
	}
	key := [2]int{wg, w.wgSeq}
	w.wgSeq++
	if w.c.wgOps == nil {
		w.c.wgOps = map[[2]int]wgOperands{}
	}
	if prev, ok := w.c.wgOps[key]; ok {
		if prev.pc != ops.pc || prev.descA != ops.descA || prev.descB != ops.descB || prev.scaleD != ops.scaleD {
			w.faultf(in, 0, FaultInvalid, "wgmma: warp %d's wgmma #%d (pc %d, descriptors %#x/%#x, scale-d %d) differs from warp %d's (pc %d, %#x/%#x, %d); the warpgroup must execute the same wgmma with the same operands",
				w.id, key[1], ops.pc, ops.descA, ops.descB, ops.scaleD, prev.warp, prev.pc, prev.descA, prev.descB, prev.scaleD)
			return
		}
		if prev.count++; prev.count == 4 {
			delete(w.c.wgOps, key)
		} else {
			w.c.wgOps[key] = prev
		}
	} else {
		ops.count = 1
		w.c.wgOps[key] = ops
	}
	A, why := decodeWgDesc(da[0], in.flags&fTransA != 0)
	if in.targets != nil {
		A, why = wgDesc{}, "" // A from registers
	}
	if why == "" {
		var B wgDesc
		B, why = decodeWgDesc(db[0], in.flags&fTransB != 0)
		if why == "" {
			w.wgmma(in, m, A, B, sd[0]&1 == 1)
			return
		}
	}
	w.faultf(in, 0, FaultUnsupported, "wgmma: matrix descriptor %#x / %#x: %s", da[0], db[0], why)
}

func (w *warp) wgmma(in *inst, m uint32, A, B wgDesc, scaleD bool) {
	n := 8 * int(in.vec)
	k, es := 16, uint64(2)
	if in.sub == wgE4M3 || in.sub == wgE5M2 {
		k, es = 32, 1
	}
	row0 := 16 * (w.id % 4)
	conv := func(v uint64) float64 {
		switch in.sub {
		case wgF16:
			return float64(fpx.F16ToF32(uint16(v)))
		case wgBF16:
			return float64(fpx.BF16ToF32(uint16(v)))
		case wgE4M3:
			return e4m3ToF64(uint8(v))
		}
		return e5m2ToF64(uint8(v))
	}
	// the swizzles move whole 16-byte chunks: read each chunk once (one
	// bounds and cp.async-race check per chunk)
	chunks := map[uint64][]byte{}
	read := func(x wgDesc, r, kk int, mn bool) (float64, bool) {
		a := x.addr(r, kk, es, mn)
		c, ok := chunks[a&^15]
		if !ok {
			if c = w.span(in, spShared, 0, a&^15, 16, false); c == nil {
				return 0, false
			}
			chunks[a&^15] = c
		}
		return conv(le(c[a&15:], int(es))), true
	}
	var a [16][32]float64 // this warp's rows
	if in.targets != nil {
		// A from registers: the mma.m16n8k16 A fragment of this warp's 16 rows
		for l := 0; l < 32; l++ {
			for i := 0; i < 8; i++ {
				r, c := mmaM16N8K16.aPos(l, i)
				a[r][c] = conv(w.regs[in.targets[i/2]+int32(l)] >> (16 * (i % 2)) & 0xffff)
			}
		}
	}
	for r := 0; r < 16 && in.targets == nil; r++ {
		for kk := 0; kk < k; kk++ {
			v, ok := read(A, row0+r, kk, in.flags&fTransA != 0)
			if !ok {
				return
			}
			a[r][kk] = v
		}
	}
	if in.flags&fNegA != 0 {
		for r := range a {
			for kk := range a[r] {
				a[r][kk] = -a[r][kk]
			}
		}
	}
	b := make([][32]float64, n)
	for c := 0; c < n; c++ {
		for kk := 0; kk < k; kk++ {
			v, ok := read(B, c, kk, in.flags&fTransB != 0)
			if !ok {
				return
			}
			if in.flags&fNegB != 0 {
				v = -v
			}
			b[c][kk] = v
		}
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		g, q := l/4, l%4
		for i := 0; i < n/2; i++ {
			r, c := g+8*((i/2)%2), 8*(i/4)+2*q+i%2
			s := 0.0
			for kk := 0; kk < k; kk++ {
				s += a[r][kk] * b[c][kk]
			}
			if scaleD {
				s += float64(math.Float32frombits(uint32(w.regs[in.args[i].reg+int32(l)])))
			}
			w.regs[in.rets[i].reg+int32(l)] = uint64(math.Float32bits(fpx.F64ToF32(s, fpx.RN)))
		}
	}
}
