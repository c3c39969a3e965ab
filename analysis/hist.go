package analysis

import (
	"math"
	"math/bits"
	"sort"
)

// histogram is a log-linear histogram of durations: values below 128 are
// exact; above, each power of two is split into 64 buckets, and a quantile
// is reported as its bucket's midpoint (relative error < 0.8%). The zero
// value is empty.
type histogram struct {
	counts map[uint32]uint64
	n      uint64
}

const histSub = 6 // 2^6 sub-buckets per power of two

func bucketOf(v uint64) uint32 {
	if v < 2<<histSub {
		return uint32(v)
	}
	e := uint(bits.Len64(v)) - histSub - 1
	return uint32((uint64(e)+1)<<histSub) + uint32(v>>e)
}

// bucketRange returns the values [lo, hi] of bucket b.
func bucketRange(b uint32) (lo, hi uint64) {
	if b < 2<<histSub {
		return uint64(b), uint64(b)
	}
	e := uint(b>>histSub) - 2
	m := uint64(b) - uint64(e+1)<<histSub
	return m << e, (m+1)<<e - 1
}

func (h *histogram) add(v uint64) {
	if h.counts == nil {
		h.counts = map[uint32]uint64{}
	}
	h.counts[bucketOf(v)]++
	h.n++
}

// quantile returns the q-quantile (nearest rank) as its bucket's midpoint;
// 0 when the histogram is empty.
func (h *histogram) quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	keys := make([]uint32, 0, len(h.counts))
	for k := range h.counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	rank := max(uint64(math.Ceil(q*float64(h.n))), 1)
	var c uint64
	for _, k := range keys {
		c += h.counts[k]
		if c >= rank {
			lo, hi := bucketRange(k)
			return (float64(lo) + float64(hi)) / 2
		}
	}
	lo, hi := bucketRange(keys[len(keys)-1])
	return (float64(lo) + float64(hi)) / 2
}
