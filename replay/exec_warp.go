package replay

import (
	"math/bits"
)

// shfl modes
const (
	shUp = iota
	shDown
	shBfly
	shIdx
)

// execShfl implements shfl(.sync).mode.b32 d[|p], a, b, c[, membermask]
// with the PTX ISA's lane arithmetic. A source lane that is not active
// supplies its register value as it stands (the ISA leaves it undefined).
func execShfl(w *warp, in *inst, m uint32) {
	a, b, c := w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2])
	var src [32]uint64
	copy(src[:], a[:])
	d := w.r(in.d[0])
	var p *[32]uint64
	if in.nd > 1 {
		p = w.r(in.d[1])
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		lane := bits.TrailingZeros32(mm)
		bval := int(b[lane] & 31)
		cval := int(c[lane] & 31)
		segmask := int(c[lane] >> 8 & 31)
		maxLane := lane&segmask | cval&^segmask
		minLane := lane & segmask
		var j int
		var pval bool
		switch in.sub {
		case shUp:
			j = lane - bval
			pval = j >= maxLane
		case shDown:
			j = lane + bval
			pval = j <= maxLane
		case shBfly:
			j = lane ^ bval
			pval = j <= maxLane
		case shIdx:
			j = minLane | bval&^segmask
			pval = j <= maxLane
		}
		if !pval {
			j = lane
		}
		d[lane] = src[j&31] & 0xffffffff
		if p != nil {
			p[lane] = b2u(pval)
		}
	}
}

// members returns the lanes taking part in a warp-synchronous operation:
// the active lanes, restricted to the membermask operand when present.
func (w *warp) members(in *inst, idx int, m uint32) uint32 {
	if idx < 0 || idx >= int(in.ns) {
		return m
	}
	mm := uint32(w.regs[in.s[idx]+int32(bits.TrailingZeros32(m|1))])
	return m & mm
}

// vote modes
const (
	vAll = iota
	vAny
	vUni
	vBallot
)

func execVote(w *warp, in *inst, m uint32) {
	a := w.r(in.s[0])
	neg := uint64(in.sneg & 1)
	part := w.members(in, 1, m)
	var set uint32
	for mm := part; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		if (a[l]&1)^neg != 0 {
			set |= 1 << l
		}
	}
	var v uint64
	switch in.sub {
	case vAll:
		v = b2u(set == part)
	case vAny:
		v = b2u(set != 0)
	case vUni:
		v = b2u(set == part || set == 0)
	case vBallot:
		v = uint64(set)
	}
	d := w.r(in.d[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		d[bits.TrailingZeros32(mm)] = v
	}
}

// match.any / match.all
func execMatch(w *warp, in *inst, m uint32) {
	a := w.r(in.s[0])
	part := w.members(in, 1, m)
	d := w.r(in.d[0])
	var p *[32]uint64
	if in.nd > 1 {
		p = w.r(in.d[1])
	}
	mask := in.mask
	all := true
	first := a[bits.TrailingZeros32(part|1)] & mask
	for mm := part; mm != 0; mm &= mm - 1 {
		if a[bits.TrailingZeros32(mm)]&mask != first {
			all = false
		}
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		if in.sub == 1 { // all
			if all {
				d[l] = uint64(part)
			} else {
				d[l] = 0
			}
			if p != nil {
				p[l] = b2u(all)
			}
			continue
		}
		var same uint32
		for nn := part; nn != 0; nn &= nn - 1 {
			j := bits.TrailingZeros32(nn)
			if a[j]&mask == a[l]&mask {
				same |= 1 << j
			}
		}
		d[l] = uint64(same)
	}
}

func execActivemask(w *warp, in *inst, m uint32) {
	d := w.r(in.d[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		d[bits.TrailingZeros32(mm)] = uint64(w.cur)
	}
}

// redux.sync.op.type d, a, membermask
const (
	rdAdd = iota
	rdMin
	rdMax
	rdAnd
	rdOr
	rdXor
)

func execRedux(w *warp, in *inst, m uint32) {
	a := w.r(in.s[0])
	part := w.members(in, 1, m)
	var acc uint64
	first := true
	for mm := part; mm != 0; mm &= mm - 1 {
		v := a[bits.TrailingZeros32(mm)] & 0xffffffff
		if first {
			acc, first = v, false
			continue
		}
		switch in.sub {
		case rdAdd:
			acc = (acc + v) & 0xffffffff
		case rdMin:
			if in.signed && int32(v) < int32(acc) || !in.signed && v < acc {
				acc = v
			}
		case rdMax:
			if in.signed && int32(v) > int32(acc) || !in.signed && v > acc {
				acc = v
			}
		case rdAnd:
			acc &= v
		case rdOr:
			acc |= v
		case rdXor:
			acc ^= v
		}
	}
	d := w.r(in.d[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		d[bits.TrailingZeros32(mm)] = acc
	}
}

// elect.sync d|p, membermask
func execElect(w *warp, in *inst, m uint32) {
	part := w.members(in, 0, m)
	leader := bits.TrailingZeros32(part)
	d := w.r(in.d[0])
	var p *[32]uint64
	if in.nd > 1 {
		p = w.r(in.d[1])
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = uint64(leader)
		if p != nil {
			p[l] = b2u(l == leader)
		}
	}
}
