package trace

import (
	"fmt"
	"math"
	"time"
)

// Transfer is one host↔device copy of a launch, from the transfer model
// (model.TransferSpec, docs/transfer.md): copy-ins before the kernel,
// copy-outs after it, one after another on the host/copy-engine timeline.
// Times are picoseconds relative to the kernel's start (cycle 0), so
// copy-ins have negative times. A run bundle stores a launch's transfers
// in its META chunk (RunMeta.Transfers); bundles without them read as
// before.
type Transfer struct {
	Buffer  string `json:"buffer"`
	Dir     string `json:"dir"`    // "h2d" (before the kernel) or "d2h" (after)
	Method  string `json:"method"` // dma, iorw, hub, gpc1, gpc4
	Bytes   int64  `json:"bytes"`
	StartPs int64  `json:"start_ps"`
	EndPs   int64  `json:"end_ps"`
}

// TransferTrack is the name of the timeline track every exporter puts
// transfers on.
const TransferTrack = "copy engine"

// TransferShiftNs is how many ns exporters add to every timestamp of the
// launch (kernel regions included) so that its earliest copy-in starts at
// or after 0: ⌈−min(start, 0) / 1000⌉.
func (m *RunMeta) TransferShiftNs() uint64 {
	lo := int64(0)
	for _, t := range m.Transfers {
		lo = min(lo, t.StartPs)
	}
	return uint64((-lo + 999) / 1000)
}

// TransferNs is t's start and end in shifted ns (TransferShiftNs added),
// rounded down to the ns; both are ≥ 0.
func (m *RunMeta) TransferNs(t *Transfer) (start, end uint64) {
	sh := int64(m.TransferShiftNs()) * 1000
	return uint64((t.StartPs + sh) / 1000), uint64((t.EndPs + sh) / 1000)
}

// Duration is the launch's duration as the exporters show it: from the
// first copy-in to the end of the last copy-out or of the kernel
// (TotalCycles at ClockHz, shifted by TransferShiftNs), or 1 ns per cycle
// when the clock rate is unknown; 0 when TotalCycles is unknown. Exporters
// of a multi-launch model run start each launch when the previous one's
// Duration ends.
func (m *RunMeta) Duration() time.Duration {
	if m.ClockHz > 0 {
		d := time.Duration(m.TransferShiftNs()) + time.Duration(math.Round(float64(m.TotalCycles)*1e9/m.ClockHz))
		for i := range m.Transfers {
			_, end := m.TransferNs(&m.Transfers[i])
			d = max(d, time.Duration(end))
		}
		return d
	}
	return time.Duration(min(m.TotalCycles, math.MaxInt64))
}

// TransferName is the slice/span name exporters give t: "h2d a (iorw, 4096 B)".
func TransferName(t *Transfer) string {
	return fmt.Sprintf("%s %s (%s, %d B)", t.Dir, t.Buffer, t.Method, t.Bytes)
}

// CheckTransfers reports the first malformed transfer: an unknown
// direction, a negative size, an end before the start, or a copy-in that
// ends after the kernel starts (or a copy-out that starts before 0).
func (m *RunMeta) CheckTransfers() error {
	for i, t := range m.Transfers {
		switch {
		case t.Dir != "h2d" && t.Dir != "d2h":
			return fmt.Errorf("transfer %d: direction %q (want h2d or d2h)", i, t.Dir)
		case t.Bytes < 0 || t.EndPs < t.StartPs:
			return fmt.Errorf("transfer %d: %d bytes from %d to %d ps", i, t.Bytes, t.StartPs, t.EndPs)
		case t.Dir == "h2d" && t.EndPs > 0, t.Dir == "d2h" && t.StartPs < 0:
			return fmt.Errorf("transfer %d: %s %s overlaps the kernel", i, t.Dir, t.Buffer)
		}
	}
	return nil
}
