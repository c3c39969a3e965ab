package clog2

import (
	"encoding/binary"
	"errors"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Host↔device transfers (trace.RunMeta.Transfers) get their own timeline
// — rank = the number of CTAs (one past the last CTA's rank), thread 0 —
// and two states, "h2d transfer" and "d2h transfer" (format
// TransferFormat: the size in bytes), which take state ids 0 and 1; the
// region states then start at id 2 (without transfers, at 0). Every
// event of the file is shifted by the same offset so that the first
// copy-in starts at time ≥ 0. Copy-ins are written before the first
// region event, copy-outs after the last; a time is never written below
// the previous one (the sub-ps rounding between the kernel's cycle clock
// and the transfers' ps can put a copy-out a hair before the last region
// end; it is then written at that end).

// TransferFormat is the cargo format of a transfer's final event.
const TransferFormat = "bytes=%l"

// xferPlan is the transfers of one export.
type xferPlan struct {
	tr     []trace.Transfer
	rank   uint32
	off    float64 // seconds added to every region event
	origin float64 // seconds of the kernel's cycle 0 (before off)
	cargo  [CargoSize]byte
}

// xferStates is how many state ids the transfers take (ids 0 and 1).
const xferStates = 2

// planTransfers lays out h's transfers for a file whose region times are
// (ticks − base) × spt. It returns nil when there are none.
func planTransfers(h *trace.Header, base uint64, spt float64) (*xferPlan, error) {
	if len(h.Meta.Transfers) == 0 {
		return nil, nil
	}
	if !h.HasNs() {
		return nil, errors.New("clog2: the launch has transfers but its timer has no ns conversion (clock rate unknown)")
	}
	ctas := h.Segments
	if h.WarpsPerCTA > 0 {
		ctas = (h.Segments + h.WarpsPerCTA - 1) / h.WarpsPerCTA
	}
	p := &xferPlan{tr: h.Meta.Transfers, rank: ctas, origin: -float64(base) * spt}
	for _, t := range p.tr {
		if s := p.origin + float64(t.StartPs)*1e-12; s < -p.off {
			p.off = -s
		}
	}
	return p, nil
}

// times is transfer i's start and end in file seconds.
func (p *xferPlan) times(i int) (float64, float64) {
	t := &p.tr[i]
	o := p.origin + p.off
	return o + float64(t.StartPs)*1e-12, o + float64(t.EndPs)*1e-12
}

// defs writes the two transfer STATEDEFs and the copy engine's COMMEVT.
func (p *xferPlan) defs(w *Writer, world UUID) error {
	for i, name := range []string{"h2d transfer", "d2h transfer"} {
		id := int32(i)
		if err := w.Write(&Record{
			Type: RecStateDef, StateID: KnownStateIDCount + id,
			StartEType: UserEventIDStart + 2*id, FinalEType: UserEventIDStart + 2*id + 1,
			Color: []string{"black", "DimGray"}[i], Name: name, Format: TransferFormat,
		}); err != nil {
			return err
		}
	}
	return w.Write(&Record{Type: RecCommEvt, IComm: 0, Rank: int32(p.rank), Thread: 0,
		EType: CommWorldCreate, CommIComm: 0, CommRank: int32(p.rank), WRank: int32(p.rank), GComm: world})
}

// sizeDefs adds defs' records to sz.
func (p *xferPlan) sizeDefs(sz *Sizer) {
	sz.AddN(RecStateDef, xferStates)
	sz.AddN(RecCommEvt, 1)
}

// sizeEvents adds write's records to sz, in write's order.
func (p *xferPlan) sizeEvents(sz *Sizer, ins bool) {
	for i := range p.tr {
		if (p.tr[i].Dir == "h2d") == ins {
			sz.Add(RecBareEvt)
			sz.Add(RecCargoEvt)
		}
	}
}

// write writes the copy-ins (ins) or the copy-outs, never before *last.
func (p *xferPlan) write(w *Writer, ins bool, last *float64) {
	for i := range p.tr {
		t := &p.tr[i]
		if (t.Dir == "h2d") != ins {
			continue
		}
		id := int32(0)
		if t.Dir == "d2h" {
			id = 1
		}
		s, e := p.times(i)
		s = max(s, *last)
		e = max(e, s)
		*last = e
		w.Bare(s, 0, int32(p.rank), 0, UserEventIDStart+2*id)
		clear(p.cargo[:])
		binary.BigEndian.PutUint64(p.cargo[0:], uint64(t.Bytes))
		w.Cargo(e, 0, int32(p.rank), 0, UserEventIDStart+2*id+1, &p.cargo)
	}
}
