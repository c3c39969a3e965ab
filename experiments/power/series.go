package power

import "github.com/ptxtrace/ptxtrace/model"

// series counts two kinds of busy cycles (units n0 and lanes n1, each
// weighted by a count) over time in buckets of 2^shift cycles, the pair of
// a bucket side by side. It starts at one cycle per bucket and doubles
// the width (adding neighbouring buckets) whenever a time past seriesCap
// buckets arrives, so its memory is bounded by seriesCap whatever the
// launch's length, and every bucket holds the exact count of its cycles.
type series struct {
	shift uint
	v     [][2]uint64
}

// seriesCap bounds a series' buckets.
const seriesCap = 1024

// add counts n0 and n1 for every cycle of [from, to).
func (s *series) add(from, to model.Time, n0, n1 uint64) {
	// fast path: [from, to) within one existing bucket
	if i := uint64(from) >> s.shift; from < to && i < uint64(len(s.v)) && uint64(to-1)>>s.shift == i {
		v := &s.v[i]
		v[0] += uint64(to-from) * n0
		v[1] += uint64(to-from) * n1
		return
	}
	s.addSlow(from, to, n0, n1)
}

// addSlow is add across buckets, growing or coarsening the series.
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
		if i >= uint64(len(s.v)) {
			if s.v == nil {
				// whole at once: no growth (a series reaches seriesCap
				// buckets once its launch passes seriesCap cycles)
				s.v = make([][2]uint64, 0, seriesCap)
			}
			n := len(s.v)
			s.v = s.v[:i+1]
			clear(s.v[n:]) // coarsen leaves old counts past len
		}
		end := min(to, model.Time((i+1)<<s.shift))
		s.v[i][0] += uint64(end-from) * n0
		s.v[i][1] += uint64(end-from) * n1
		from = end
	}
}

// coarsen doubles the bucket width.
func (s *series) coarsen() {
	n := (len(s.v) + 1) / 2
	for j := range n {
		v := s.v[2*j]
		if 2*j+1 < len(s.v) {
			v[0] += s.v[2*j+1][0]
			v[1] += s.v[2*j+1][1]
		}
		s.v[j] = v
	}
	s.v = s.v[:n]
	s.shift++
}

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
		n0[j] += v[0]
		n1[j] += v[1]
	}
	return n0, n1
}
