package power

import "github.com/ptxtrace/ptxtrace/model"

// series counts busy cycles (weighted by a lane count) over time in
// buckets of 2^shift cycles. It starts at one cycle per bucket and doubles
// the width (adding neighbouring buckets) whenever a time past seriesCap
// buckets arrives, so its memory is bounded by seriesCap whatever the
// launch's length, and every bucket holds the exact count of its cycles.
type series struct {
	shift uint
	v     []uint64
}

// seriesCap bounds a series' buckets.
const seriesCap = 1024

// add counts n for every cycle of [from, to).
func (s *series) add(from, to model.Time, n uint64) {
	if n == 0 {
		return
	}
	for from < to {
		i := uint64(from) >> s.shift
		for i >= seriesCap {
			s.coarsen()
			i >>= 1
		}
		if i >= uint64(len(s.v)) {
			s.v = append(s.v, make([]uint64, int(i)+1-len(s.v))...)
		}
		end := min(to, model.Time((i+1)<<s.shift))
		s.v[i] += uint64(end-from) * n
		from = end
	}
}

// coarsen doubles the bucket width.
func (s *series) coarsen() {
	n := (len(s.v) + 1) / 2
	for j := range n {
		v := s.v[2*j]
		if 2*j+1 < len(s.v) {
			v += s.v[2*j+1]
		}
		s.v[j] = v
	}
	s.v = s.v[:n]
	s.shift++
}

// buckets returns s's counts at width 2^shift (≥ s.shift) over nb buckets;
// counts past the last bucket (busy cycles after the launch's end, which
// the tracks cut) are added to the last one.
func (s *series) buckets(shift uint, nb int) []uint64 {
	out := make([]uint64, nb)
	if nb == 0 {
		return out
	}
	for i, v := range s.v {
		j := min(i>>(shift-s.shift), nb-1)
		out[j] += v
	}
	return out
}
