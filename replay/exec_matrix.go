package replay

import (
	"math/bits"
)

// ldmatrix / stmatrix (.m8n8 .b16): warp-collective loads and stores of
// 8x8 matrices of 16-bit elements (PTX ISA, "Warp Level Matrix Load/Store
// Instructions").
//
// With .num = .x1, .x2 or .x4 (in.vec = 1, 2, 4 matrices), lane 8i+r
// supplies the address of row r of matrix i: 16 contiguous bytes (8
// elements), 16-byte aligned, in shared memory (or a generic address
// pointing there). Register i of lane t holds elements (t/4, 2(t%4)) in
// its low half and (t/4, 2(t%4)+1) in its high half of matrix i; with
// .trans it holds elements (2(t%4), t/4) and (2(t%4)+1, t/4) instead (the
// matrix is transposed on the way). Lanes 8*num..31 supply no address.
//
// Both instructions are .sync.aligned: every thread of the warp must
// execute them together and none may have exited, else the behavior is
// undefined; replay faults instead.

// matrixRows checks the warp-collective preconditions and computes the row
// addresses (shared-space offsets) of every matrix; ok false after a fault.
func (w *warp) matrixRows(in *inst, m uint32) (rows [4][8]uint64, ok bool) {
	num := int(in.vec)
	if want := w.live; m != want || w.exited != 0 {
		w.faultf(in, -1, FaultBarrierDiverg,
			"%s is .sync.aligned: executed by lanes %#08x, but every thread of the warp (%#08x) must execute it and none may have exited",
			opName(in), m, want)
		return rows, false
	}
	addrLanes := uint32(1)<<(8*num) - 1
	if num == 4 {
		addrLanes = 0xffffffff
	}
	if m&addrLanes != addrLanes {
		w.faultf(in, -1, FaultInvalid, "%s.x%d needs row addresses from lanes 0..%d, but the warp has lanes %#08x",
			opName(in), num, 8*num-1, m)
		return rows, false
	}
	base := w.r(in.s[0])
	w.eff.Addr = w.addrs[:]
	for l := 0; l < 32; l++ {
		if m>>l&1 == 0 {
			continue
		}
		src := l % (8 * num) // lanes without an address: report a duplicate row to the model
		a := base[src] + uint64(in.off)
		sp := in.space
		if sp == spGeneric {
			sp, a = w.k.code.am.resolve(a)
			if sp != spShared {
				w.faultf(in, src, FaultInvalid, "%s: generic address %#x of lane %d is not in shared memory", opName(in), base[src]+uint64(in.off), src)
				return rows, false
			}
		}
		if a&15 != 0 {
			w.faultf(in, src, FaultMisaligned, "misaligned %s row address %#x (rows are 16-byte aligned)", opName(in), a)
			return rows, false
		}
		w.addrs[l] = a
		if l == src {
			rows[l/8][l%8] = a
		}
	}
	w.setSpace(spShared)
	return rows, true
}

// opName is the base opcode of a lowered instruction's text.
func opName(in *inst) string {
	for i := 0; i < len(in.text); i++ {
		if in.text[i] == '.' || in.text[i] == ' ' {
			return in.text[:i]
		}
	}
	return in.text
}

// fragLane returns the lane and the half (0 low, 1 high) of a register
// that hold element (row, col) of a matrix in the ldmatrix fragment layout.
func fragLane(row, col int, trans bool) (lane, half int) {
	if trans {
		row, col = col, row
	}
	return 4*row + col/2, col % 2
}

func execLdmatrix(w *warp, in *inst, m uint32) {
	rows, ok := w.matrixRows(in, m)
	if !ok {
		return
	}
	trans := in.sub2 == 1
	for i := 0; i < int(in.vec); i++ {
		d := w.r(in.d[i])
		var out [32]uint64
		for r := 0; r < 8; r++ {
			src := 8*i + r
			lo, ok1 := w.load(in, spShared, src, rows[i][r], 8)
			hi, ok2 := w.load(in, spShared, src, rows[i][r]+8, 8)
			if !ok1 || !ok2 {
				return
			}
			for c := 0; c < 8; c++ {
				v := lo >> (16 * c)
				if c >= 4 {
					v = hi >> (16 * (c - 4))
				}
				lane, half := fragLane(r, c, trans)
				out[lane] |= (v & 0xffff) << (16 * half)
			}
		}
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			d[l] = out[l]
		}
	}
}

func execStmatrix(w *warp, in *inst, m uint32) {
	rows, ok := w.matrixRows(in, m)
	if !ok {
		return
	}
	trans := in.sub2 == 1
	for i := 0; i < int(in.vec); i++ {
		s := w.r(in.s[1+i])
		for r := 0; r < 8; r++ {
			var lo, hi uint64
			for c := 0; c < 8; c++ {
				lane, half := fragLane(r, c, trans)
				v := s[lane] >> (16 * half) & 0xffff
				if c < 4 {
					lo |= v << (16 * c)
				} else {
					hi |= v << (16 * (c - 4))
				}
			}
			dst := 8*i + r
			if !w.store(in, spShared, dst, rows[i][r], 8, lo) || !w.store(in, spShared, dst, rows[i][r]+8, 8, hi) {
				return
			}
		}
	}
}
