package model

import "math/bits"

// calQueue is the memory side's event queue: a priority queue of timed
// items in (t, seq) order, like timeHeap, built as a calendar of calSlots
// one-cycle buckets over a sliding window of times plus a timeHeap for the
// items outside it. Most events fall a few hundred cycles ahead of the last
// one popped (interconnect, L2 and DRAM latencies, channel ticks), so a
// push is an append to its bucket's list and a pop takes the first item of
// the first non-empty bucket, found in a bitmap, instead of a heap's
// sift over dozens of cache lines.
//
// Invariants, which make the pop order exactly timeHeap's:
//   - every item in the calendar has lo <= t < lo+calSlots, so a bucket
//     (t mod calSlots) holds items of one time only, and the first
//     non-empty bucket from lo's holds the calendar's earliest time;
//   - the calendar admits an item only when its seq exceeds that of every
//     item admitted before (ringSeq), so each bucket's list, kept in push
//     order, is in seq order; an item that breaks either rule goes to far;
//   - pop compares the calendar's first item with far's top by (t, seq).
//
// lo only moves up to the time of an item being popped, which no item
// left in the calendar precedes, so the first invariant survives pops;
// with the calendar empty it moves to the next admitted item's time.
type calQueue struct {
	lo      Time
	n       int    // items in the calendar
	ringSeq uint64 // the largest seq admitted to the calendar
	used    [calSlots / 64]uint64
	head    [calSlots]int32 // first node of each bucket, -1: none
	tail    [calSlots]int32 // last node of each bucket
	nodes   []calNode
	free    int32 // free node list, -1: none
	far     timeHeap
}

// calSlots is the calendar's width in cycles (a power of two).
const calSlots = 1024

type calNode struct {
	timed
	next int32
}

func newCalQueue() *calQueue {
	q := &calQueue{free: -1}
	for i := range q.head {
		q.head[i] = -1
	}
	return q
}

// len returns the number of items queued.
func (q *calQueue) len() int { return q.n + len(q.far) }

func (q *calQueue) push(x timed) {
	if q.n == 0 && x.seq > q.ringSeq {
		q.lo = x.t
	}
	if x.t < q.lo || x.t-q.lo >= calSlots || x.seq <= q.ringSeq {
		q.far.push(x)
		return
	}
	q.ringSeq = x.seq
	var id int32
	if q.free >= 0 {
		id = q.free
		q.free = q.nodes[id].next
		q.nodes[id] = calNode{timed: x, next: -1}
	} else {
		id = int32(len(q.nodes))
		q.nodes = append(q.nodes, calNode{timed: x, next: -1})
	}
	b := x.t & (calSlots - 1)
	if q.head[b] < 0 {
		q.head[b] = id
		q.used[b>>6] |= 1 << (b & 63)
	} else {
		q.nodes[q.tail[b]].next = id
	}
	q.tail[b] = id
	q.n++
}

// first returns the bucket holding the calendar's earliest item; the
// calendar must not be empty.
func (q *calQueue) first() Time {
	b := q.lo & (calSlots - 1)
	w := b >> 6
	if m := q.used[w] >> (b & 63); m != 0 {
		return b + Time(bits.TrailingZeros64(m))
	}
	for i := Time(1); i <= calSlots/64; i++ {
		w2 := (w + i) & (calSlots/64 - 1)
		if m := q.used[w2]; m != 0 {
			return w2<<6 + Time(bits.TrailingZeros64(m))
		}
	}
	panic("model: calQueue.first on an empty calendar")
}

// earliest locates the earliest item: in far (b < 0) or at the head of
// bucket b. The queue must not be empty.
func (q *calQueue) earliest() (x *timed, b Time, inFar bool) {
	if q.n == 0 {
		return &q.far[0], 0, true
	}
	b = q.first()
	x = &q.nodes[q.head[b]].timed
	if len(q.far) > 0 && q.far[0].before(x) {
		return &q.far[0], 0, true
	}
	return x, b, false
}

// peek returns the earliest item without removing it (ok false when empty).
func (q *calQueue) peek() (timed, bool) {
	if q.len() == 0 {
		return timed{}, false
	}
	x, _, _ := q.earliest()
	return *x, true
}

// pop removes and returns the earliest item; the queue must not be empty.
func (q *calQueue) pop() timed {
	_, b, inFar := q.earliest()
	return q.remove(b, inFar)
}

// popBefore removes and returns the earliest item when its time is before
// horizon (ok false, nothing removed, otherwise or when empty).
func (q *calQueue) popBefore(horizon Time) (timed, bool) {
	if q.len() == 0 {
		return timed{}, false
	}
	x, b, inFar := q.earliest()
	if x.t >= horizon {
		return timed{}, false
	}
	return q.remove(b, inFar), true
}

// remove takes the earliest item, located by earliest.
func (q *calQueue) remove(b Time, inFar bool) timed {
	if inFar {
		x := q.far.pop()
		if q.n > 0 && x.t > q.lo {
			q.lo = x.t // (no calendar item precedes x)
		}
		return x
	}
	id := q.head[b]
	nd := &q.nodes[id]
	x := nd.timed
	q.head[b] = nd.next
	if nd.next < 0 {
		q.used[b>>6] &^= 1 << (b & 63)
	}
	nd.next = q.free
	q.free = id
	q.n--
	q.lo = x.t
	return x
}
