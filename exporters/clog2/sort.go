package clog2

import (
	"cmp"
	"math/bits"
	"slices"
)

// eventOrder is the global order of all begin (even index) and end (odd
// index) events of a recStore: region i has events 2i and 2i+1. Events are
// sorted by (time, index), which keeps each warp's events in its own order
// (a warp's regions are stored in begin order and its events' times never
// decrease along its records).
type eventOrder struct {
	keys   []uint64 // packed: (t − base) << ib | index, when it fits
	ib     uint
	base   uint64
	wide   []wideEvent // otherwise
	packed bool
}

type wideEvent struct{ t, i uint64 }

func (o *eventOrder) len() int {
	if o.packed {
		return len(o.keys)
	}
	return len(o.wide)
}

// at returns the k-th event's time and index.
func (o *eventOrder) at(k int) (uint64, uint64) {
	if o.packed {
		key := o.keys[k]
		return key>>o.ib + o.base, key & (1<<o.ib - 1)
	}
	return o.wide[k].t, o.wide[k].i
}

// sortEvents orders the events of s. When the time range and the event
// count fit in 64 bits together (the usual case), it packs each event into
// one uint64 and radix-sorts only the time bits: LSD radix sort is stable,
// and the keys start in index order, so ties stay in index order.
func sortEvents(s *recStore, base, maxT uint64) *eventOrder {
	n := 2 * s.n
	o := &eventOrder{base: base}
	ib := uint(bits.Len64(uint64(max(n-1, 1))))
	tb := uint(bits.Len64(maxT - base))
	if ib+tb <= 64 {
		o.packed, o.ib = true, ib
		keys := make([]uint64, 0, n)
		for _, c := range s.chunks {
			for j := range c {
				i := uint64(len(keys))
				keys = append(keys, (c[j].start-base)<<ib|i, (c[j].end-base)<<ib|(i+1))
			}
		}
		o.keys = radixSort(keys, ib, ib+tb)
		return o
	}
	w := make([]wideEvent, 0, n)
	for _, c := range s.chunks {
		for j := range c {
			i := uint64(len(w))
			w = append(w, wideEvent{c[j].start, i}, wideEvent{c[j].end, i + 1})
		}
	}
	slices.SortFunc(w, func(a, b wideEvent) int {
		if a.t != b.t {
			return cmp.Compare(a.t, b.t)
		}
		return cmp.Compare(a.i, b.i)
	})
	o.wide = w
	return o
}

const radixBits = 11

// radixSort sorts keys stably by bits [lo, hi) with LSD passes of
// radixBits bits, skipping passes where every key has the same digit. It
// returns the sorted slice (keys or a buffer of the same length).
func radixSort(keys []uint64, lo, hi uint) []uint64 {
	if len(keys) < 2 {
		return keys
	}
	buf := make([]uint64, len(keys))
	var count [1 << radixBits]int
	for shift := lo; shift < hi; shift += radixBits {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(1<<radixBits-1)]++
		}
		if count[(keys[0]>>shift)&(1<<radixBits-1)] == len(keys) {
			continue
		}
		sum := 0
		for d := range count {
			c := count[d]
			count[d] = sum
			sum += c
		}
		for _, k := range keys {
			d := (k >> shift) & (1<<radixBits - 1)
			buf[count[d]] = k
			count[d]++
		}
		keys, buf = buf, keys
	}
	return keys
}
