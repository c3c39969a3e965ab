package power

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/ptxtrace/ptxtrace/model"
)

// Bin is Count idle intervals of Len cycles each.
type Bin struct {
	Len   model.Time `json:"len"`
	Count uint64     `json:"count"`
}

// Hist is an exact idle-interval histogram: bins of distinct lengths in
// increasing order, no zero-length or zero-count bin.
type Hist []Bin

// Net is the break-even evaluation of h: the intervals of length ≥ bet are
// gated; saved = Σ their lengths − gates × bet.
func (h Hist) Net(bet model.Time) (saved model.Time, gates uint64) {
	i := sort.Search(len(h), func(i int) bool { return h[i].Len >= bet })
	for _, b := range h[i:] {
		gates += b.Count
		saved += model.Time(b.Count) * (b.Len - bet)
	}
	return saved, gates
}

// Idle is the total of h's intervals and their number.
func (h Hist) Idle() (cycles model.Time, intervals uint64) {
	for _, b := range h {
		cycles += model.Time(b.Count) * b.Len
		intervals += b.Count
	}
	return cycles, intervals
}

// Decades counts the intervals of h in [1,10), [10,100), [100,1000),
// [1000,10000) and [10000,∞).
func (h Hist) Decades() [5]uint64 {
	var d [5]uint64
	for _, b := range h {
		i, lim := 0, model.Time(10)
		for i < 4 && b.Len >= lim {
			i++
			lim *= 10
		}
		d[i] += b.Count
	}
	return d
}

// histBuilder accumulates interval lengths: short ones (< smallLimit) in
// a dense slice of 32-bit counts indexed by length (allocated whole on
// the first short interval: one allocation, no growth), the rest in a
// map. A dense count that would pass 2^32−1 is moved into the map
// (carried), so every count stays exact.
type histBuilder struct {
	small   []uint32
	large   map[model.Time]uint64
	carried bool // large holds lengths < smallLimit too
}

// smallLimit bounds the dense part of a histBuilder (lengths < smallLimit).
const smallLimit = 256

func (m *histBuilder) add(n model.Time, count uint64) {
	if uint64(n) < uint64(len(m.small)) && n > 0 {
		if c := uint64(m.small[n]) + count; c <= math.MaxUint32 {
			m.small[n] = uint32(c)
			return
		}
	}
	m.addSlow(n, count)
}

// addSlow is add before the dense slice exists, for a long interval, or
// past a 32-bit count.
func (m *histBuilder) addSlow(n model.Time, count uint64) {
	if n <= 0 || count == 0 {
		return
	}
	if n < smallLimit {
		if m.small == nil {
			m.small = make([]uint32, smallLimit)
			if count <= math.MaxUint32 {
				m.small[n] = uint32(count)
				return
			}
		}
		// the count would overflow: carry it with the dense one to the map
		count += uint64(m.small[n])
		m.small[n] = 0
		m.carried = true
	}
	if m.large == nil {
		m.large = map[model.Time]uint64{}
	}
	m.large[n] += count
}

func (m *histBuilder) hist() Hist {
	n := len(m.large)
	for _, c := range m.small {
		if c > 0 {
			n++
		}
	}
	h := make(Hist, 0, n)
	for l, c := range m.small {
		if c > 0 {
			h = append(h, Bin{model.Time(l), uint64(c)})
		}
	}
	n = len(h)
	for l, c := range m.large {
		h = append(h, Bin{l, c})
	}
	large := h[n:]
	slices.SortFunc(large, func(a, b Bin) int { return cmp.Compare(a.Len, b.Len) })
	if m.carried {
		return merge(h[:n], large)
	}
	return h
}

// merge returns the union of a and b.
func merge(a, b Hist) Hist {
	n := len(a) + len(b) // less the lengths in both
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].Len < b[j].Len:
			i++
		case b[j].Len < a[i].Len:
			j++
		default:
			n--
			i++
			j++
		}
	}
	out := make(Hist, 0, n)
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].Len < b[j].Len):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].Len < a[i].Len:
			out = append(out, b[j])
			j++
		default:
			out = append(out, Bin{a[i].Len, a[i].Count + b[j].Count})
			i++
			j++
		}
	}
	return out
}

// Interval is the cycles [From, To).
type Interval struct {
	From model.Time `json:"from"`
	To   model.Time `json:"to"`
}

// track reduces one block's busy intervals, given in non-decreasing From
// order (overlapping or adjacent ones merge), to busy cycles and an idle
// histogram; with keep it also keeps the merged busy intervals.
type track struct {
	cur  model.Time // end of the time covered so far
	busy model.Time
	idle histBuilder
	keep bool
	runs []Interval
	from model.Time // start of the last busy run
}

func newTrack(keep bool) *track { return &track{keep: keep} }

func (t *track) add(from, to model.Time) {
	if to <= from {
		return
	}
	if from > t.cur || t.cur == 0 {
		t.from = from
	}
	if from > t.cur {
		if n := uint64(from - t.cur); n < uint64(len(t.idle.small)) && t.idle.small[n] < math.MaxUint32 {
			t.idle.small[n]++ // histBuilder.add's fast path, written out
		} else {
			t.idle.addSlow(from-t.cur, 1)
		}
		if t.keep {
			t.runs = append(t.runs, Interval{from, to})
		}
		t.busy += to - from
		t.cur = to
		return
	}
	if to > t.cur {
		t.busy += to - t.cur
		t.cur = to
		if t.keep {
			if n := len(t.runs); n > 0 {
				t.runs[n-1].To = to
			} else {
				t.runs = append(t.runs, Interval{from, to})
			}
		}
	}
}

// finish closes the timeline at end (the launch's cycle count): the time
// after the last busy cycle is one more idle interval.
// A busy run that outlasts end (an issue in the last cycles whose unit
// stays occupied after the last warp retired) is cut at end; one that
// starts at or after end is an error.
// It returns the busy cycles it cut.
func (t *track) finish(end model.Time) (cut model.Time, err error) {
	if t.cur > end {
		if t.from >= end {
			return 0, fmt.Errorf("busy from cycle %d, at or past the run's end %d", t.from, end)
		}
		cut = t.cur - end
		t.busy -= cut
		if n := len(t.runs); n > 0 {
			t.runs[n-1].To = end
		}
		t.cur = end
	}
	if end > t.cur {
		t.idle.add(end-t.cur, 1)
		t.cur = end
	}
	return cut, nil
}

func log10(v float64) float64 { return math.Log10(v) }
