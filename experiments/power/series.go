package power

import (
	"math"

	"github.com/ptxtrace/ptxtrace/model"
)

// table counts an SM's weighted cycles over time in cols columns (issued
// warp-instructions and their threads, busy unit and lane cycles per unit
// kind, stalled scheduler-cycles per reason) and buckets of 2^shift
// cycles, a bucket's columns side by side (one cache line on gtx480: an
// issue updates one row). It starts at one cycle per bucket and doubles
// the width (adding neighbouring buckets) whenever a time past seriesCap
// buckets arrives, so its memory is bounded by seriesCap rows whatever
// the launch's length, and every bucket holds the exact count of its
// cycles.
//
// The columns share the width: an SM's table has the width the widest of
// its columns would have had alone (the time of the latest count decides
// it), never wider than the launch's common width (Launch.SeriesShift, the
// widest of all, at least what seriesCap buckets over the launch need),
// so the launch's buckets are the same as with a width per column.
//
// The counts are 32-bit (v) until one would pass 2^32−1; then the table
// turns wide (w, 64-bit) for the rest of the run. Either v or w is in use,
// never both.
type table struct {
	shift uint
	cols  int
	nv    int // rows in v (0 once wide)
	v     []uint32
	w     []uint64 // non-nil once wide
	nw    int      // rows in w
}

// seriesCap bounds a table's buckets.
const seriesCap = 1024

// issue counts one issue at from (column 0: 1, column 1: threads) and its
// unit's occupancy [from, to) (column c: 1, column c+1: lanes per cycle).
func (t *table) issue(from, to model.Time, c int, threads, lanes uint64) {
	// fast path: [from, to) within one existing narrow bucket, no overflow
	if i := uint64(from) >> t.shift; from < to && i < uint64(t.nv) && uint64(to-1)>>t.shift == i && c+1 < t.cols {
		row := t.v[int(i)*t.cols : int(i+1)*t.cols]
		d := uint64(to - from)
		a, b, x, y := uint64(row[0])+1, uint64(row[1])+threads, uint64(row[c])+d, uint64(row[c+1])+d*lanes
		if (a|b|x|y)>>32 == 0 {
			row[0], row[1], row[c], row[c+1] = uint32(a), uint32(b), uint32(x), uint32(y)
			return
		}
	}
	t.addSlow(from, from+1, 0, 1, threads, true)
	t.addSlow(from, to, c, 1, lanes, true)
}

// add counts n0 in column c and n1 in column c+1 for every cycle of
// [from, to).
func (t *table) add(from, to model.Time, c int, n0, n1 uint64) {
	if i := uint64(from) >> t.shift; from < to && i < uint64(t.nv) && uint64(to-1)>>t.shift == i && c+1 < t.cols {
		row := t.v[int(i)*t.cols : int(i+1)*t.cols]
		d := uint64(to - from)
		x, y := uint64(row[c])+d*n0, uint64(row[c+1])+d*n1
		if (x|y)>>32 == 0 {
			row[c], row[c+1] = uint32(x), uint32(y)
			return
		}
	}
	t.addSlow(from, to, c, n0, n1, true)
}

// add1 counts n in column c for every cycle of [from, to).
func (t *table) add1(from, to model.Time, c int, n uint64) {
	if i := uint64(from) >> t.shift; from < to && i < uint64(t.nv) && uint64(to-1)>>t.shift == i && c < t.cols {
		p := &t.v[int(i)*t.cols+c]
		if x := uint64(*p) + uint64(to-from)*n; x>>32 == 0 {
			*p = uint32(x)
			return
		}
	}
	t.addSlow(from, to, c, n, 0, false)
}

// addSlow is add (pair) or add1 across buckets, growing or coarsening the
// table, or turning it wide.
func (t *table) addSlow(from, to model.Time, c int, n0, n1 uint64, pair bool) {
	if n0 == 0 && n1 == 0 {
		return
	}
	for from < to {
		i := uint64(from) >> t.shift
		for i >= seriesCap {
			t.coarsen()
			i >>= 1
		}
		end := min(to, model.Time((i+1)<<t.shift))
		d := uint64(end - from)
		if t.w == nil {
			t.v, t.nv = extend(t.v, t.nv, t.cols, i)
			row := t.v[int(i)*t.cols : int(i+1)*t.cols]
			x := uint64(row[c]) + d*n0
			var y uint64
			if pair {
				y = uint64(row[c+1]) + d*n1
			}
			if (x|y)>>32 == 0 {
				row[c] = uint32(x)
				if pair {
					row[c+1] = uint32(y)
				}
				from = end
				continue
			}
			t.widen()
		}
		t.w, t.nw = extend(t.w, t.nw, t.cols, i)
		row := t.w[int(i)*t.cols : int(i+1)*t.cols]
		row[c] += d * n0
		if pair {
			row[c+1] += d * n1
		}
		from = end
	}
}

// extend makes row i of v (n rows of cols) exist: v is allocated whole at
// seriesCap rows on first use (a table reaches seriesCap rows once its
// launch passes seriesCap cycles), and the rows it adds are cleared
// (coarsen leaves old counts past the rows in use).
func extend[T uint32 | uint64](v []T, n, cols int, i uint64) ([]T, int) {
	if i < uint64(n) {
		return v, n
	}
	if v == nil {
		v = make([]T, seriesCap*cols)
	}
	clear(v[n*cols : int(i+1)*cols])
	return v, int(i + 1)
}

// widen turns the table's counts 64-bit.
func (t *table) widen() {
	t.w = make([]uint64, seriesCap*t.cols)
	for j, x := range t.v[:t.nv*t.cols] {
		t.w[j] = uint64(x)
	}
	t.nw, t.v, t.nv = t.nv, nil, 0
}

// coarsen doubles the bucket width.
func (t *table) coarsen() {
	if t.w == nil {
		for j := 0; j+1 < t.nv; j += 2 {
			a, b := t.v[j*t.cols:(j+1)*t.cols], t.v[(j+1)*t.cols:(j+2)*t.cols]
			for c := range a {
				if uint64(a[c])+uint64(b[c]) > math.MaxUint32 {
					t.widen()
					break
				}
			}
			if t.w != nil {
				break
			}
		}
	}
	if t.w != nil {
		t.nw = halve(t.w, t.nw, t.cols)
	} else {
		t.nv = halve(t.v, t.nv, t.cols)
	}
	t.shift++
}

// halve adds neighbouring rows of v (n rows of cols; their sums fit T)
// and returns the rows left.
func halve[T uint32 | uint64](v []T, n, cols int) int {
	h := (n + 1) / 2
	for j := range h {
		dst, a := v[j*cols:(j+1)*cols], v[2*j*cols:(2*j+1)*cols]
		copy(dst, a)
		if 2*j+1 < n {
			b := v[(2*j+1)*cols : (2*j+2)*cols]
			for c := range dst {
				dst[c] += b[c]
			}
		}
	}
	return h
}

// fill adds the table's columns at width 2^shift (≥ t.shift) into outs
// (outs[c] for column c, nil: not wanted; every other of length nb,
// zeroed), in one pass over the rows; counts past the last bucket (busy
// cycles after the launch's end, which the tracks cut) are added to the
// last one.
func (t *table) fill(shift uint, outs [][]uint64, nb int) {
	if nb == 0 {
		return
	}
	for i := range t.nv {
		j := min(i>>(shift-t.shift), nb-1)
		row := t.v[i*t.cols : (i+1)*t.cols]
		for c, o := range outs[:len(row)] {
			if o != nil {
				o[j] += uint64(row[c])
			}
		}
	}
	for i := range t.nw {
		j := min(i>>(shift-t.shift), nb-1)
		row := t.w[i*t.cols : (i+1)*t.cols]
		for c, o := range outs[:len(row)] {
			if o != nil {
				o[j] += row[c]
			}
		}
	}
}

// col is fill for column c alone.
func (t *table) col(c int, shift uint, out []uint64) {
	outs := make([][]uint64, t.cols)
	outs[c] = out
	t.fill(shift, outs, len(out))
}
