package trace

import (
	"encoding/hex"
	"fmt"
	"io"
)

// Timer is the clock the probes read (the raw buffer header's timer field).
type Timer uint32

// Timers, with the codes of docs/buffer.md.
const (
	TimerClock       Timer = 0 // %clock: 32-bit per-SM cycle counter, wraps
	TimerClock64     Timer = 1 // %clock64: 64-bit per-SM cycle counter
	TimerGlobaltimer Timer = 2 // %globaltimer: global nanosecond clock
)

// String returns the manifest's name of the timer.
func (t Timer) String() string {
	switch t {
	case TimerClock:
		return "clock"
	case TimerClock64:
		return "clock64"
	case TimerGlobaltimer:
		return "globaltimer"
	}
	return fmt.Sprintf("timer(%d)", uint32(t))
}

// PerSM reports whether timestamps of the timer are only comparable within
// one SM (%clock, %clock64).
func (t Timer) PerSM() bool { return t != TimerGlobaltimer }

// RunMeta describes one run (one kernel launch) of an instrumented kernel.
// Every field is optional; zero means unknown. Nothing in it comes from the
// wall clock unless the caller puts it there, so bundles are reproducible.
type RunMeta struct {
	RunID   string    `json:"run_id,omitempty"`   // caller-chosen id (dataset partition "run=ID")
	Source  string    `json:"source,omitempty"`   // "model" or "gpu"
	Device  string    `json:"device,omitempty"`   // e.g. "model:gtx480", "NVIDIA H100 80GB HBM3"
	Arch    string    `json:"arch,omitempty"`     // e.g. "sm_80"
	ClockHz float64   `json:"clock_hz,omitempty"` // SM clock rate; 0 = unknown (durations stay in cycles)
	NumSMs  int       `json:"num_sms,omitempty"`
	Grid    [3]uint32 `json:"grid,omitempty"`  // nctaid.{x,y,z}
	Block   [3]uint32 `json:"block,omitempty"` // ntid.{x,y,z}
	// StartUnixNs is the wall-clock time of the launch in ns since the Unix
	// epoch, the anchor exporters with absolute timestamps (OTLP) use; 0 =
	// unknown.
	StartUnixNs int64 `json:"start_unix_ns,omitempty"`
	// TotalCycles is the kernel's duration in cycles when known (the model
	// knows it exactly); 0 = unknown.
	TotalCycles uint64 `json:"total_cycles,omitempty"`
	// Labels are free-form key/value pairs (sample name, viewpoint, block
	// shape, ...). encoding/json writes map keys sorted, so they stay
	// deterministic.
	Labels map[string]string `json:"labels,omitempty"`
	// Transfers are the launch's host↔device copies (transfer.go); empty
	// when the launch spec has none.
	Transfers []Transfer `json:"transfers,omitempty"`
}

// ProbeInfo is a probe of the decoded kernel, taken from the manifest.
type ProbeInfo struct {
	ID      uint32
	Begin   bool   // kind: true for "begin", false for "end"
	Region  int    // region id
	Closes  []int  // group_seq end probes: every region it may close (Region is the first)
	Mode    string // naive, fence, dummy
	Line    int    // line of the probed access/boundary in the input PTX
	Text    string // that line's instruction text
	OutLine int    // line in the instrumented PTX
	LocFile string // source position from the nearest .loc ("" if none)
	LocLine int
	LocCol  int
}

// RegionInfo is the static description of one probe region (one probed
// access for kind "load", one --region BEGIN:END for kind "user").
type RegionInfo struct {
	ID         int
	Kind       string // "load" (memory) or "user"
	Mode       string // mode of the begin probe: naive, fence, dummy
	Space      string // state space of the access ("" for user regions)
	BeginProbe uint32
	EndProbes  []uint32
	Line       int    // input-PTX line of the begin probe's access/boundary
	Text       string // its instruction text
	OutLine    int
	LocFile    string // source position ("" if none)
	LocLine    int
	LocCol     int
}

// Memory reports whether the region times a memory access (kind "load").
func (r *RegionInfo) Memory() bool { return r.Kind == "load" }

// Header is what is known about a trace before its regions are read: the
// raw buffer's header, the run metadata and the probe and region tables of
// the decoded kernel. Exporters get it once, before any region.
type Header struct {
	Kernel            string
	LayoutVersion     uint32
	Timer             Timer
	Segments          uint32 // warp segments in the buffer
	RecordsPerWarp    uint32
	WarpsPerCTA       uint32
	InstrumentationID [8]byte
	Meta              RunMeta
	// Probes of the kernel, ordered by id. Regions of the kernel, ordered by
	// id; Region.Info points into this slice.
	Probes  []ProbeInfo
	Regions []RegionInfo
	// ManifestJSON is the manifest as stored (for exporters that embed it,
	// e.g. Parquet key/value metadata); nil if unknown.
	ManifestJSON []byte
	// Activity is the model's recorded activity of the launch (the
	// bundle's ACTV chunk), for exporters that draw it; nil if none.
	Activity *Activity
}

// IDHex returns the instrumentation id as 16 hex digits.
func (h *Header) IDHex() string { return hex.EncodeToString(h.InstrumentationID[:]) }

// HasNs reports whether region times can be given in nanoseconds: the timer
// is %globaltimer, or the clock rate is known.
func (h *Header) HasNs() bool { return h.Timer == TimerGlobaltimer || h.Meta.ClockHz > 0 }

// Ns converts a timestamp or duration in timer units to nanoseconds; it
// returns 0 when HasNs is false.
func (h *Header) Ns(ticks uint64) float64 {
	switch {
	case h.Timer == TimerGlobaltimer:
		return float64(ticks)
	case h.Meta.ClockHz > 0:
		return float64(ticks) * 1e9 / h.Meta.ClockHz
	}
	return 0
}

// Region returns the region with the given id, or nil.
func (h *Header) Region(id int) *RegionInfo {
	// Regions is sorted by id: binary search.
	lo, hi := 0, len(h.Regions)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if h.Regions[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(h.Regions) && h.Regions[lo].ID == id {
		return &h.Regions[lo]
	}
	return nil
}

// Probe returns the probe with the given id, or nil.
func (h *Header) Probe(id uint32) *ProbeInfo {
	lo, hi := 0, len(h.Probes)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if h.Probes[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(h.Probes) && h.Probes[lo].ID == id {
		return &h.Probes[lo]
	}
	return nil
}

// Warp is one written warp segment of the raw buffer.
type Warp struct {
	Segment   uint32    // segment index = CTALinear×WarpsPerCTA + WarpInCTA
	CTA       [3]uint32 // ctaid.{x,y,z}
	WarpInCTA uint32
	SM        uint32 // %smid at exit
	HWWarp    uint32 // %warpid at exit
	Flags     uint32 // segment flags (bit 0 written, bit 1 staged in shared memory)
	Count     uint32 // records the warp tried to write
	Stored    uint32 // records present: min(Count, RecordsPerWarp)
	Lost      uint32 // Count − Stored (overflow)
}

// Staged reports whether the warp's records were staged in shared memory.
func (w *Warp) Staged() bool { return w.Flags&2 != 0 }

// Region is one instance of a probe region in one warp: the interval from a
// begin record to the end record that closed it.
//
// Start and End are timestamps in timer units. For %clock they are the
// 32-bit values extended to 64 bits so that they increase within the warp
// (the first record's value as is, then forward differences mod 2³²); for
// %clock64 and %globaltimer they are the raw values. Cycles = End − Start
// (for %clock that equals (end − begin) mod 2³² of the raw values).
// Timestamps of %clock/%clock64 are only comparable within one SM; compare
// regions of different warps only by duration.
type Region struct {
	Warp      uint32    // warp segment index (Warp.Segment)
	CTA       [3]uint32 // ctaid of the warp
	WarpInCTA uint32
	SM        uint32      // %smid of the warp
	Info      *RegionInfo // static description (points into Header.Regions)
	ID        int         // region id (= Info.ID)
	EndProbe  uint32      // the end probe that closed the instance
	Instance  uint32      // 0-based count of earlier instances of this region in the warp
	Depth     uint32      // number of regions of the warp open when this one began
	BeginRec  uint32      // record index of the begin record in the segment
	EndRec    uint32      // record index of the end record
	Start     uint64      // begin timestamp (timer units, see above)
	End       uint64      // end timestamp
	Cycles    uint64      // End − Start in timer units (ns for %globaltimer)
	// Nanosecond times, valid when Header.HasNs (else 0).
	StartNs, EndNs, DurNs float64
	// Ground truth from the model for the access this instance times (load
	// regions of runs with truth); valid when HasTruth.
	HasTruth      bool
	TruthIssue    uint64 // cycle the access issued
	TruthComplete uint64 // cycle it completed
	// TruthBegin and TruthEnd are the cycles the region's begin and end
	// timer reads issued (0 when unknown: bundles before minor version 1).
	TruthBegin, TruthEnd uint64
	// Group and Cover (mode group_seq, run-time paired cp.async): the
	// copy's group sequence number (its begin record's tag) and the number
	// of groups the closing wait completed (its end record's tag, > Group);
	// Mode phase_seq (run-time paired TMA): Group is the copy's mbarrier
	// shared address with the parity of the phase it was paired on in bit
	// 0, Cover the closing wait's (the same). 0 for other modes.
	Group, Cover uint32
}

// IssueKind classifies what the decoder reports instead of silently
// dropping records.
type IssueKind uint8

// Issue kinds.
const (
	IssueOverflow       IssueKind = iota + 1 // the warp lost Lost records (count > records per warp)
	IssueUnmatchedBegin                      // a begin never closed
	IssueUnmatchedEnd                        // an end without an open begin of its region
	IssueBackwards                           // %clock64/%globaltimer end before its begin: no region
)

func (k IssueKind) String() string {
	switch k {
	case IssueOverflow:
		return "overflow"
	case IssueUnmatchedBegin:
		return "unmatched-begin"
	case IssueUnmatchedEnd:
		return "unmatched-end"
	case IssueBackwards:
		return "backwards"
	}
	return fmt.Sprintf("issue(%d)", uint8(k))
}

// Issue is one anomaly found while decoding a warp.
type Issue struct {
	Kind    IssueKind
	Warp    uint32 // segment index
	Record  uint32 // record index (0 for overflow)
	Probe   uint32 // probe id of the record (0 for overflow)
	Region  int    // region id (0 for overflow)
	Lost    uint32 // overflow: records lost
	Message string // human-readable description
}

func (i Issue) String() string { return i.Message }

// TruthAccess is the model's ground truth for one probed memory access: the
// warp (segment index) that executed it, the begin probe of the load region
// around it, and the cycles it issued and completed (same per-SM clock as
// %clock64). The k-th TruthAccess of a (Warp, Probe) pair belongs to the
// k-th instance of that region in the warp.
type TruthAccess struct {
	Warp     uint32
	Probe    uint32
	Issue    uint64
	Complete uint64
	// Begin and End are the cycles the region's begin and end timer reads
	// issued (0: not known, e.g. a bundle of minor version 0). Issue −
	// Begin is the issue wait, End − Complete the post wait.
	Begin, End uint64
}

// Counter is one model counter: a name (e.g. "l1.hits"), the SM it counts
// (−1 for the whole GPU) and its value.
type Counter struct {
	Name  string  `json:"name"`
	SM    int32   `json:"sm"`
	Value float64 `json:"value"`
}

// WarpRegions is one warp's decoded content: its segment header, its
// regions in order of their begin records (which is time order within the
// warp) and what the decoder reported about it.
type WarpRegions struct {
	Warp    Warp
	Regions []Region
	Issues  []Issue
}

// RegionSource streams a trace warp by warp, in segment order. Next returns
// io.EOF after the last warp. The returned WarpRegions (and its slices) are
// valid only until the next call of Next: a source may reuse them.
type RegionSource interface {
	Header() *Header
	Next() (*WarpRegions, error)
}

// Trace is a whole decoded trace in memory. Use a RegionSource (Bundle.Regions
// or NewDecoder) for traces that may not fit.
type Trace struct {
	Header   Header
	Warps    []Warp   // written warps, in segment order
	Regions  []Region // all regions: by warp (segment order), then begin record
	Issues   []Issue  // by warp, then record
	Truth    []TruthAccess
	Counters []Counter
}

// Source returns a RegionSource over t (which must not change while it is
// used).
func (t *Trace) Source() RegionSource { return &traceSource{t: t} }

type traceSource struct {
	t       *Trace
	w, r, i int
	cur     WarpRegions
}

func (s *traceSource) Header() *Header { return &s.t.Header }

func (s *traceSource) Next() (*WarpRegions, error) {
	t := s.t
	if s.w >= len(t.Warps) {
		return nil, io.EOF
	}
	w := t.Warps[s.w]
	s.w++
	r0 := s.r
	for s.r < len(t.Regions) && t.Regions[s.r].Warp == w.Segment {
		s.r++
	}
	i0 := s.i
	for s.i < len(t.Issues) && t.Issues[s.i].Warp == w.Segment {
		s.i++
	}
	s.cur = WarpRegions{Warp: w, Regions: t.Regions[r0:s.r:s.r], Issues: t.Issues[i0:s.i:s.i]}
	return &s.cur, nil
}

// Collect reads a RegionSource to the end into a Trace (copying what the
// source may reuse).
func Collect(src RegionSource) (*Trace, error) {
	t := &Trace{Header: *src.Header()}
	for {
		wr, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		t.Warps = append(t.Warps, wr.Warp)
		t.Regions = append(t.Regions, wr.Regions...)
		t.Issues = append(t.Issues, wr.Issues...)
	}
	// Re-point Info into the copied header.
	for i := range t.Regions {
		t.Regions[i].Info = t.Header.Region(t.Regions[i].ID)
	}
	return t, nil
}
