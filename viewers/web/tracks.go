package web

import (
	"fmt"
	"math"

	"github.com/ptxtrace/ptxtrace/trace"
)

// TransferSpan is one host↔device copy of the launch (trace.Transfer)
// placed on the run's time axis.
type TransferSpan struct {
	Name    string `json:"name"` // trace.TransferName
	Buffer  string `json:"buffer"`
	Dir     string `json:"dir"`
	Method  string `json:"method"`
	Bytes   int64  `json:"bytes"`
	StartPs int64  `json:"start_ps"` // relative to the kernel's start, as stored
	EndPs   int64  `json:"end_ps"`
	// Start and End in timer units on the axis of the regions (cycles
	// since the kernel's start for %clock/%clock64 at the run's clock
	// rate, ns for %globaltimer), rounded to the nearest unit.
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// placeTransfers converts the header's transfers to the regions' axis.
// Transfer times are relative to the kernel's start (cycle 0 of the model,
// whose %clock64 and %globaltimer also count from the launch), so they can
// be placed only for model runs and only when timer units convert to time;
// otherwise the transfers are listed and note says why they are not drawn.
func placeTransfers(h *trace.Header) (spans []TransferSpan, note string) {
	m := &h.Meta
	if len(m.Transfers) == 0 {
		return nil, ""
	}
	var perPs float64 // timer units per ps
	switch {
	case m.Source != "model":
		note = fmt.Sprintf("%d transfer(s) not drawn: the run is not from the model, so the kernel's start on its timer is unknown", len(m.Transfers))
	case h.Timer == trace.TimerGlobaltimer:
		perPs = 1e-3
	case m.ClockHz > 0:
		perPs = m.ClockHz / 1e12
	default:
		note = fmt.Sprintf("%d transfer(s) not drawn: the clock rate is unknown, so cycles and ps share no axis", len(m.Transfers))
	}
	for i := range m.Transfers {
		t := &m.Transfers[i]
		s := TransferSpan{Name: trace.TransferName(t), Buffer: t.Buffer, Dir: t.Dir, Method: t.Method, Bytes: t.Bytes, StartPs: t.StartPs, EndPs: t.EndPs}
		if perPs > 0 {
			s.Start, s.End = int64(math.Round(float64(t.StartPs)*perPs)), int64(math.Round(float64(t.EndPs)*perPs))
		}
		spans = append(spans, s)
	}
	return spans, note
}

// Extent is the time range of everything the timeline draws: the regions'
// [T0, T1) widened by the placed transfers and the recorded activity's
// [0, cycles).
func (ix *Index) Extent() (int64, int64) {
	lo, hi := ix.T0, ix.T1
	if ix.act != nil {
		lo, hi = min(lo, 0), max(hi, ix.act.cycles)
	}
	if ix.TransferNote == "" {
		for _, t := range ix.Transfers {
			lo, hi = min(lo, t.Start), max(hi, t.End)
		}
	}
	return lo, hi
}
