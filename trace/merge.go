package trace

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"sort"

	"github.com/ptxtrace/ptxtrace/manifest"
)

// Event is one begin or end of a region instance in a time-ordered stream
// (MergeByTime). For a begin, Region has the warp identity, Info, ID,
// Instance, Depth, BeginRec and Start (plus StartNs); its end fields are
// zero. For an end, Region is complete, as the decoder gives it.
type Event struct {
	Begin  bool
	Time   uint64 // Region.Start for a begin, Region.End for an end
	Region Region
}

// mergeBlock is how many records a warp cursor reads at a time.
const mergeBlock = 64

// MergeByTime calls yield for the begin and end of every region instance the
// decoder produces, all warps merged in order of (Time, warp segment, record
// index). Only closed instances appear (the decoder's issues are not
// repeated). Memory is bounded by the number of warps, not the number of
// records: each warp is a cursor over its records (a k-way merge with a
// heap), read mergeBlock records at a time through the decoder's
// io.ReaderAt. %clock/%clock64 timestamps of different SMs are merged by
// value, which is only meaningful when the SM clocks are in step.
//
// It makes two passes: the first finds, per warp, the begin records that
// never form a region (unmatched or backwards) so that their begins are not
// emitted; the second merges. The *Event passed to yield is reused.
func MergeByTime(d *Decoder, yield func(ev *Event) error) error {
	var curs []*warpCursor
	d.Reset()
	for {
		wr, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if wr.Warp.Stored == 0 {
			continue
		}
		c := &warpCursor{warp: wr.Warp}
		if len(d.dropped) > 0 {
			c.skip = append([]uint32(nil), d.dropped...)
		}
		if len(wr.Regions) > 0 {
			curs = append(curs, c)
		}
	}
	d.Reset()
	h := make(cursorHeap, 0, len(curs))
	for _, c := range curs {
		c.p = newPairer(d)
		if ok, err := c.advance(d); err != nil {
			return err
		} else if ok {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	var ev Event
	for len(h) > 0 {
		c := h[0]
		ev = c.ev
		if err := yield(&ev); err != nil {
			return err
		}
		ok, err := c.advance(d)
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
			c.p, c.buf = nil, nil // free the cursor's memory
		}
	}
	return nil
}

// warpCursor walks one warp's records, producing its next event.
type warpCursor struct {
	warp  Warp
	skip  []uint32 // sorted begin records that form no region
	p     *pairer
	next  uint32 // next record index
	buf   []byte
	bufAt uint32 // record index of buf[0]
	ev    Event
	rec   uint32 // record of ev
	// the last end record's probe and sink (it may close several
	// group_seq instances, one event each)
	endID, endSink uint32
	truth          []TruthAccess
	trOK           bool
}

// advance moves to the cursor's next event; false at the end of the warp.
func (c *warpCursor) advance(d *Decoder) (bool, error) {
	h := &d.h
	w := &c.warp
	le := binary.LittleEndian
	if !c.trOK && d.truth != nil {
		t, err := d.truth.Truth(w.Segment, nil)
		if err != nil {
			return false, err
		}
		c.truth, c.trOK = t, true
	}
	if o, ok := c.p.more(); ok {
		// the last end record closed several group_seq instances
		c.ev = c.endEvent(d, o, c.endID, c.rec, c.ev.Time, c.endSink)
		return true, nil
	}
	for c.next < w.Stored {
		i := c.next
		if i < c.bufAt || i >= c.bufAt+uint32(len(c.buf)/RecordBytes) {
			n := min(mergeBlock, w.Stored-i)
			if cap(c.buf) < int(n)*RecordBytes {
				c.buf = make([]byte, mergeBlock*RecordBytes)
			}
			c.buf = c.buf[:n*RecordBytes]
			off := HeaderBytes + int64(w.Segment)*d.segBytes + SegmentHeaderBytes + int64(i)*RecordBytes
			if _, err := d.r.ReadAt(c.buf, off); err != nil {
				return false, fmt.Errorf("trace: reading segment %d records: %w", w.Segment, err)
			}
			c.bufAt = i
		}
		rec := c.buf[(i-c.bufAt)*RecordBytes:]
		c.next++
		id := le.Uint32(rec)
		sink := le.Uint32(rec[4:])
		k, o, ts, _, err := c.p.step(w.Segment, id, sink, le.Uint64(rec[8:]))
		if err != nil {
			return false, err
		}
		switch k {
		case stepBegin:
			if j := sort.Search(len(c.skip), func(j int) bool { return c.skip[j] >= i }); j < len(c.skip) && c.skip[j] == i {
				continue
			}
			info := &h.Regions[o.region]
			c.ev = Event{Begin: true, Time: ts, Region: Region{
				Warp: w.Segment, CTA: w.CTA, WarpInCTA: w.WarpInCTA, SM: w.SM, Info: info, ID: info.ID,
				Instance: o.instance, Depth: o.depth, BeginRec: i, Start: ts,
			}}
			if h.HasNs() {
				c.ev.Region.StartNs = h.Ns(ts)
			}
			c.rec = i
			return true, nil
		case stepEnd:
			c.endID, c.endSink, c.rec = id, sink, i
			for ts < o.start {
				// backwards: its begin was skipped too
				var ok bool
				if o, ok = c.p.more(); !ok {
					break
				}
			}
			if ts < o.start {
				continue
			}
			c.ev = c.endEvent(d, o, id, i, ts, sink)
			return true, nil
		}
	}
	return false, nil
}

// endEvent is the end event of instance o closed by record i (probe id,
// timestamp ts, sink word sink).
func (c *warpCursor) endEvent(d *Decoder, o openInst, id, i uint32, ts uint64, sink uint32) Event {
	h := &d.h
	w := &c.warp
	info := &h.Regions[o.region]
	r := Region{
		Warp: w.Segment, CTA: w.CTA, WarpInCTA: w.WarpInCTA, SM: w.SM, Info: info, ID: info.ID, EndProbe: id,
		Instance: o.instance, Depth: o.depth, BeginRec: o.rec, EndRec: i,
		Start: o.start, End: ts, Cycles: ts - o.start,
	}
	if info.Mode == manifest.ModeGroupSeq || info.Mode == manifest.ModePhaseSeq {
		r.Group, r.Cover = o.tag, sink
	}
	if h.HasNs() {
		r.StartNs, r.EndNs, r.DurNs = h.Ns(r.Start), h.Ns(r.End), h.Ns(r.Cycles)
	}
	if t, ok := c.truthFor(d, o.region, o.instance); ok {
		r.HasTruth, r.TruthIssue, r.TruthComplete = true, t.Issue, t.Complete
		r.TruthBegin, r.TruthEnd = t.Begin, t.End
	}
	return Event{Time: ts, Region: r}
}

// truthFor finds the k-th truth record of region index ri in the warp.
func (c *warpCursor) truthFor(d *Decoder, ri int32, k uint32) (TruthAccess, bool) {
	n := uint32(0)
	for _, t := range c.truth {
		if pi := d.probeIndex(t.Probe); pi >= 0 && d.probeRegion[pi] == ri && !(d.phaseSeq[pi] && t.Complete == t.Issue) {
			if n == k {
				return t, true
			}
			n++
		}
	}
	return TruthAccess{}, false
}

type cursorHeap []*warpCursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.ev.Time != b.ev.Time {
		return a.ev.Time < b.ev.Time
	}
	if a.warp.Segment != b.warp.Segment {
		return a.warp.Segment < b.warp.Segment
	}
	return a.rec < b.rec
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(*warpCursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
