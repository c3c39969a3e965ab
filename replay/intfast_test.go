package replay

import (
	"math/rand/v2"
	"testing"
)

// TestSetpIntFast compares setpInt, setp's branch-free integer path, with
// cmpInt lane by lane: every comparison code (ones cmpInt does not know
// included), widths 8 to 64, signed and not, full and partial masks, with
// and without a second predicate, on random and edge operands.
func TestSetpIntFast(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	edge := []uint64{0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
		0xffffffff, 1 << 63, 1<<63 - 1, ^uint64(0), 0x1_0000_0000}
	val := func() uint64 {
		if r.IntN(2) == 0 {
			return edge[r.IntN(len(edge))]
		}
		return r.Uint64()
	}
	for trial := 0; trial < 4000; trial++ {
		bits := []uint8{8, 16, 32, 64}[r.IntN(4)]
		in := &inst{bits: bits, mask: widthMask(bits), signed: r.IntN(2) == 0, sub: uint8(r.IntN(cNan + 2))}
		var a, b, p, q, p0, q0 [32]uint64
		for l := range a {
			a[l], b[l] = val(), val()
			if r.IntN(4) == 0 {
				b[l] = a[l]
			}
			p0[l], q0[l] = 7, 9
		}
		m := ^uint32(0)
		if trial%2 == 1 {
			m = r.Uint32()
		}
		var qp *[32]uint64
		if trial%3 == 0 {
			qp = &q
		}
		p, q = p0, q0
		setpInt(in, &a, &b, &p, qp, m)
		for l := range a {
			wp, wq := p0[l], q0[l]
			if m>>l&1 != 0 {
				wp = b2u(cmpInt(a[l], b[l], in))
				if qp != nil {
					wq = wp ^ 1
				}
			}
			if p[l] != wp || q[l] != wq {
				t.Fatalf("bits %d signed %v sub %d lane %d: %#x vs %#x: p %d q %d, want %d %d",
					bits, in.signed, in.sub, l, a[l], b[l], p[l], q[l], wp, wq)
			}
		}
	}
}

// TestMulWideAll compares mulWideAll, mul.wide's every-lane loop, with
// mulWide lane by lane for 16- and 32-bit operands, signed and not.
func TestMulWideAll(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 1))
	for trial := 0; trial < 200; trial++ {
		bits := []uint8{16, 32}[r.IntN(2)]
		in := &inst{bits: bits, mask: widthMask(2 * bits), signed: r.IntN(2) == 0, sub: iMulWide}
		var a, b, d [32]uint64
		for l := range a {
			a[l], b[l] = r.Uint64(), r.Uint64()
			if l%4 == 0 {
				a[l] |= 1 << (bits - 1)
			}
		}
		mulWideAll(in, &a, &b, &d)
		for l := range a {
			if want := mulWide(a[l], b[l], in) & in.mask; d[l] != want {
				t.Fatalf("bits %d signed %v lane %d: %#x*%#x = %#x, want %#x", bits, in.signed, l, a[l], b[l], d[l], want)
			}
		}
	}
}
