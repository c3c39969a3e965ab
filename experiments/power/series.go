package power

import (
	"math"

	"github.com/ptxtrace/ptxtrace/model"
)

// series counts two kinds of busy cycles (units n0 and lanes n1, each
// weighted by a count) over time in buckets of 2^shift cycles, the pair of
// a bucket side by side. It starts at one cycle per bucket and doubles
// the width (adding neighbouring buckets) whenever a time past seriesCap
// buckets arrives, so its memory is bounded by seriesCap whatever the
// launch's length, and every bucket holds the exact count of its cycles.
//
// The counts are 32-bit (v) until one would pass 2^32−1; then the series
// turns wide (w, 64-bit) for the rest of the run. Either v or w is in use,
// never both.
type series struct {
	shift uint
	v     [][2]uint32
	w     [][2]uint64 // non-nil once wide
}

// seriesCap bounds a series' buckets.
const seriesCap = 1024

// add counts n0 and n1 for every cycle of [from, to).
func (s *series) add(from, to model.Time, n0, n1 uint64) {
	// fast path: [from, to) within one existing narrow bucket, no overflow
	if i := uint64(from) >> s.shift; from < to && i < uint64(len(s.v)) && uint64(to-1)>>s.shift == i {
		v := &s.v[i]
		d := uint64(to - from)
		a, b := uint64(v[0])+d*n0, uint64(v[1])+d*n1
		if (a|b)>>32 == 0 {
			v[0], v[1] = uint32(a), uint32(b)
			return
		}
	}
	s.addSlow(from, to, n0, n1)
}

// addSlow is add across buckets, growing or coarsening the series, or
// turning it wide.
func (s *series) addSlow(from, to model.Time, n0, n1 uint64) {
	if n0 == 0 && n1 == 0 {
		return
	}
	for from < to {
		i := uint64(from) >> s.shift
		for i >= seriesCap {
			s.coarsen()
			i >>= 1
		}
		end := min(to, model.Time((i+1)<<s.shift))
		d := uint64(end - from)
		if s.w != nil {
			s.w = extend(s.w, i)
			s.w[i][0] += d * n0
			s.w[i][1] += d * n1
		} else {
			s.v = extend(s.v, i)
			a, b := uint64(s.v[i][0])+d*n0, uint64(s.v[i][1])+d*n1
			if (a|b)>>32 != 0 {
				s.widen()
				s.w[i] = [2]uint64{a, b}
			} else {
				s.v[i] = [2]uint32{uint32(a), uint32(b)}
			}
		}
		from = end
	}
}

// extend makes bucket i of v exist: v is allocated whole at seriesCap on
// first use (a series reaches seriesCap buckets once its launch passes
// seriesCap cycles), and the buckets it adds are cleared (coarsen leaves
// old counts past len).
func extend[T uint32 | uint64](v [][2]T, i uint64) [][2]T {
	if i < uint64(len(v)) {
		return v
	}
	if v == nil {
		v = make([][2]T, 0, seriesCap)
	}
	n := len(v)
	v = v[:i+1]
	clear(v[n:])
	return v
}

// widen turns the series' counts 64-bit.
func (s *series) widen() {
	s.w = make([][2]uint64, len(s.v), seriesCap)
	for i, v := range s.v {
		s.w[i] = [2]uint64{uint64(v[0]), uint64(v[1])}
	}
	s.v = nil
}

// coarsen doubles the bucket width.
func (s *series) coarsen() {
	if s.w == nil {
		for j := 0; j+1 < len(s.v); j += 2 {
			if uint64(s.v[j][0])+uint64(s.v[j+1][0]) > math.MaxUint32 || uint64(s.v[j][1])+uint64(s.v[j+1][1]) > math.MaxUint32 {
				s.widen()
				break
			}
		}
	}
	if s.w != nil {
		s.w = halve(s.w)
	} else {
		s.v = halve(s.v)
	}
	s.shift++
}

// halve adds neighbouring buckets of v (their sums fit T).
func halve[T uint32 | uint64](v [][2]T) [][2]T {
	n := (len(v) + 1) / 2
	for j := range n {
		b := v[2*j]
		if 2*j+1 < len(v) {
			b[0] += v[2*j+1][0]
			b[1] += v[2*j+1][1]
		}
		v[j] = b
	}
	return v[:n]
}

// empty reports whether s never counted anything.
func (s *series) empty() bool { return len(s.v) == 0 && len(s.w) == 0 }

// buckets returns s's two counts at width 2^shift (≥ s.shift) over nb buckets;
// counts past the last bucket (busy cycles after the launch's end, which
// the tracks cut) are added to the last one.
func (s *series) buckets(shift uint, nb int) (n0, n1 []uint64) {
	n0, n1 = make([]uint64, nb), make([]uint64, nb)
	if nb == 0 {
		return n0, n1
	}
	for i, v := range s.v {
		j := min(i>>(shift-s.shift), nb-1)
		n0[j] += uint64(v[0])
		n1[j] += uint64(v[1])
	}
	for i, v := range s.w {
		j := min(i>>(shift-s.shift), nb-1)
		n0[j] += v[0]
		n1[j] += v[1]
	}
	return n0, n1
}
