package perfetto

import (
	"container/heap"

	"github.com/ptxtrace/ptxtrace/trace"
)

// laneEvent is one begin or end of a region on a lane of its warp.
type laneEvent struct {
	begin bool
	lane  int
	r     *trace.Region // valid only during the callback
	seq   int           // begin order of the region in the warp
}

// openRegion is a region whose end has not been emitted yet.
type openRegion struct {
	end  uint64
	seq  int
	lane int
	r    trace.Region // a copy: the input slice is only valid during the call
}

// pending is a min-heap of open regions by (end, −seq): at equal end times
// the region that began later (the inner one) ends first.
type pending []*openRegion

func (p pending) Len() int { return len(p) }
func (p pending) Less(i, j int) bool {
	if p[i].end != p[j].end {
		return p[i].end < p[j].end
	}
	return p[i].seq > p[j].seq
}
func (p pending) Swap(i, j int) { p[i], p[j] = p[j], p[i] }
func (p *pending) Push(x any)   { *p = append(*p, x.(*openRegion)) }
func (p *pending) Pop() any {
	old := *p
	x := old[len(old)-1]
	*p = old[:len(old)-1]
	return x
}

// layout turns one warp's regions (in begin order) into begin/end events
// in time order, with every region on a lane where it nests properly:
// lane 0 is the warp's own track; a region that overlaps an open region of
// lane 0 without nesting in it goes to the first lane where it nests (lanes
// 1, 2, … become extra tracks of the warp). Memory is bounded by the
// regions open at once.
type layout struct {
	heap  pending
	lanes [][]uint64 // per lane: stack of end times of open regions
	seq   int
	free  []*openRegion
	ev    laneEvent // reused for every callback
}

func (l *layout) reset() {
	for _, o := range l.heap {
		l.free = append(l.free, o)
	}
	l.heap = l.heap[:0]
	for i := range l.lanes {
		l.lanes[i] = l.lanes[i][:0]
	}
	l.lanes = l.lanes[:0]
	l.seq = 0
}

// add emits, through emit, the ends of open regions that end at or before
// r.Start, then r's begin.
func (l *layout) add(r *trace.Region, emit func(*laneEvent) error) error {
	if err := l.flushUntil(r.Start, true, emit); err != nil {
		return err
	}
	lane := -1
	for i, st := range l.lanes {
		if len(st) == 0 || r.End <= st[len(st)-1] {
			lane = i
			break
		}
	}
	if lane < 0 {
		lane = len(l.lanes)
		l.lanes = append(l.lanes, nil)
	}
	l.lanes[lane] = append(l.lanes[lane], r.End)
	var o *openRegion
	if n := len(l.free); n > 0 {
		o, l.free = l.free[n-1], l.free[:n-1]
	} else {
		o = new(openRegion)
	}
	*o = openRegion{end: r.End, seq: l.seq, lane: lane, r: *r}
	l.seq++
	heap.Push(&l.heap, o)
	l.ev = laneEvent{begin: true, lane: lane, r: r, seq: o.seq}
	return emit(&l.ev)
}

// flushUntil emits the ends of open regions ending at or before t (all of
// them when all is false).
func (l *layout) flushUntil(t uint64, bounded bool, emit func(*laneEvent) error) error {
	for len(l.heap) > 0 && (!bounded || l.heap[0].end <= t) {
		o := heap.Pop(&l.heap).(*openRegion)
		st := l.lanes[o.lane]
		l.lanes[o.lane] = st[:len(st)-1]
		l.ev = laneEvent{begin: false, lane: o.lane, r: &o.r, seq: o.seq}
		err := emit(&l.ev)
		l.free = append(l.free, o)
		if err != nil {
			return err
		}
	}
	return nil
}

// finish emits all remaining ends.
func (l *layout) finish(emit func(*laneEvent) error) error {
	return l.flushUntil(0, false, emit)
}
