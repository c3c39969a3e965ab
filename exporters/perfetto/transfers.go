package perfetto

import (
	"errors"
	"sort"
	"strconv"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Host↔device transfers (trace.RunMeta.Transfers) go on one top-level
// track, trace.TransferTrack ("copy engine"): protobuf slices on the
// kernel's packet sequence (uuidTransfer), Chrome JSON "X" events in
// process transferPid. Every timestamp of the launch is shifted by
// RunMeta.TransferShiftNs so that the first copy-in starts at the base.

const (
	uuidTransfer = 6 << 56
	transferPid  = gpuPid + 1
	catTransfer  = catSummary + 1 // categoryNames()[3]
)

// transferShift returns the ns to add to the base, or an error when the
// launch has transfers but its timestamps are not in ns (cycles at an
// unknown clock): they could not share a time axis.
func transferShift(h *trace.Header) (uint64, error) {
	if len(h.Meta.Transfers) == 0 {
		return 0, nil
	}
	if !h.HasNs() {
		return 0, errors.New("perfetto: the launch has transfers but its timer has no ns conversion (clock rate unknown)")
	}
	return h.Meta.TransferShiftNs(), nil
}

// transferTs is transfer i's start and end timestamp.
func (t *timeline) transferTs(i int) (uint64, uint64) {
	m := &t.h.Meta
	s, e := m.TransferNs(&m.Transfers[i])
	b := t.base - m.TransferShiftNs()
	return b + s, b + e
}

// timedEv is one event of the kernel's sequence, written by fn at ts.
type timedEv struct {
	ts uint64
	fn func() error
}

// writeTransfersAndCounters writes, on the kernel's sequence, the extra
// events (activity counters), the copy engine track, its slices and the
// counters at minTs and maxTs, all in time order (stable: extra events
// first at equal times, a slice ending where the next begins ends first).
func (e *Exporter) writeTransfersAndCounters(counters func(ts uint64) error, extra []timedEv) error {
	type ev = timedEv
	evs := extra
	if n := len(e.h.Meta.Transfers); n > 0 {
		if err := e.w.Track(&Track{UUID: uuidTransfer, Name: trace.TransferTrack, Description: "host↔device transfers of the launch (transfer model)", SiblingRank: -2}); err != nil {
			return err
		}
		for i := range e.h.Meta.Transfers {
			tr := &e.h.Meta.Transfers[i]
			s, en := e.transferTs(i)
			anns := []Annotation{{NameIID: annBytes, Kind: 'u', U: uint64(tr.Bytes)}}
			name := e.transferName + uint64(i)
			evs = append(evs, ev{s, func() error { return e.w.SliceBegin(s, uuidTransfer, name, catTransfer, anns) }},
				ev{en, func() error { return e.w.SliceEnd(en, uuidTransfer) }})
		}
	}
	for _, ts := range []uint64{e.minTs, e.maxTs} {
		evs = append(evs, ev{ts, func() error { return counters(ts) }})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].ts < evs[j].ts })
	for _, v := range evs {
		if err := v.fn(); err != nil {
			return err
		}
	}
	return nil
}

// writeTransfers writes the Chrome JSON process, thread and events of the
// transfers.
func (e *JSONExporter) writeTransfers() error {
	if len(e.h.Meta.Transfers) == 0 {
		return nil
	}
	if err := e.meta("process_name", transferPid, 0, false, "name", trace.TransferTrack, 0); err != nil {
		return err
	}
	if err := e.meta("thread_name", transferPid, 1, true, "name", trace.TransferTrack, 0); err != nil {
		return err
	}
	for i := range e.h.Meta.Transfers {
		tr := &e.h.Meta.Transfers[i]
		s, en := e.transferTs(i)
		b := e.event()
		b = append(b, `{"ph":"X","name":`...)
		b = appendJSONString(b, trace.TransferName(tr))
		b = append(b, `,"cat":"transfer","pid":`...)
		b = strconv.AppendUint(b, transferPid, 10)
		b = append(b, `,"tid":1,"ts":`...)
		b = appendMicros(b, s)
		b = append(b, `,"dur":`...)
		b = appendMicros(b, en-s)
		b = append(b, `,"args":{"bytes":`...)
		b = strconv.AppendInt(b, tr.Bytes, 10)
		b = append(b, `,"method":`...)
		b = appendJSONString(b, tr.Method)
		b = append(b, `,"dir":`...)
		b = appendJSONString(b, tr.Dir)
		b = append(b, "}}"...)
		if err := e.flush(b); err != nil {
			return err
		}
	}
	return nil
}
