package perfetto

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Options tunes both exporters of this package.
type Options struct {
	// MaxSlices caps the region slices written; 0 means no cap. A warp
	// whose regions would go past the cap is written as one summary slice
	// (named "aggregated regions", with the count and cycle sums of its
	// regions as arguments) instead of one slice per region, so traces far
	// beyond what the Perfetto UI holds (~2 GiB of memory) stay loadable.
	MaxSlices int
	// Counters are model counters to show as counter tracks (under their SM,
	// or the kernel for SM −1). Each gets its value at the first and the
	// last timestamp of the trace.
	Counters []trace.Counter
	// NoArgs drops the per-slice arguments (cycles, region, instance,
	// probe = the begin probe id, end_probe, loc_file = the full .loc path,
	// ground truth): smaller files, same slices.
	NoArgs bool
	// BaseTime, when not zero, is the wall-clock time of kernel start for
	// traces whose timestamps count from kernel start (model runs: source
	// "model" or a known TotalCycles): every timestamp is shifted by its
	// Unix ns, so the trace shows wall-clock times. It is ignored for other
	// traces (their timestamps are the GPU's own). Only the protobuf
	// exporter takes it: Chrome JSON readers parse ts as a double of µs,
	// which cannot hold Unix-epoch ns exactly, so NewJSON's Begin refuses
	// it.
	BaseTime time.Time
}

// Track uuids: the top byte says what the track is.
const (
	uuidKernel  = 1
	uuidSM      = 2 << 56
	uuidCTA     = 3 << 56
	uuidWarp    = 4 << 56
	uuidCounter = 5 << 56
)

func warpUUID(seg uint32, lane int) uint64 { return uuidWarp | uint64(lane)<<40 | uint64(seg) }

// annotationNames are the interned debug annotation names (iid = index + 1).
func annotationNames() []string {
	return []string{"cycles", "region", "instance", "probe", "truth_cycles", "regions", "memory_regions", "memory_cycles", "end_probe", "loc_file", "bytes"}
}

const (
	annCycles = iota + 1
	annRegion
	annInstance
	annProbe
	annTruth
	annRegions
	annMemRegions
	annMemCycles
	annEndProbe
	annLocFile
	annBytes
)

// categoryNames are the interned categories (iid = index + 1).
func categoryNames() []string { return []string{"load", "user", "summary", "transfer"} }

const (
	catLoad = iota + 1
	catUser
	catSummary
)

// RegionName is the slice name of a region: its kind and space, and the
// CUDA source position from .loc when known (the file's base name; the
// full path is the slice's loc_file argument), else the PTX line.
func RegionName(ri *trace.RegionInfo) string {
	kind := "user region"
	if ri.Memory() {
		sp := ri.Space
		if sp == "" {
			sp = "memory"
		}
		kind = sp + " load"
	}
	if ri.LocFile != "" {
		return kind + " " + baseName(ri.LocFile) + ":" + strconv.Itoa(ri.LocLine)
	}
	return kind + " ptx:" + strconv.Itoa(ri.Line)
}

// baseName is the last element of a / or \\ separated path, whatever
// the host's separator.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	return p
}

// beginProbe is the probe argument of a region: its begin probe id (the
// same in every format).
func beginProbe(r *trace.Region) uint64 {
	if r.Info == nil {
		return 0
	}
	return uint64(r.Info.BeginProbe)
}

// timeline is what both exporters share: warp bookkeeping, lanes, the
// slice cap and aggregation.
type timeline struct {
	opt Options
	h   *trace.Header

	lay      layout
	haveWarp bool
	warp     trace.Warp
	agg      bool // current warp is summarized
	aggSum   summary
	slices   int64
	haveTs   bool
	minTs    uint64
	maxTs    uint64
	base     uint64 // ns added to every timestamp (Options.BaseTime)
	began    bool
	ended    bool
	emitFunc func(*laneEvent) error
}

// summary aggregates one warp's regions.
type summary struct {
	n, memN        int64
	cycles, memCyc uint64
	start, end     uint64
	started        bool
}

func (t *timeline) nsOf(ticks uint64, ns float64) uint64 {
	if t.h.HasNs() {
		if ns < 0 {
			return 0
		}
		return t.base + uint64(math.Round(ns))
	}
	return t.base + ticks
}

// setBase sets the timestamp offset from Options.BaseTime.
func (t *timeline) setBase() error {
	m := &t.h.Meta
	if t.opt.BaseTime.IsZero() || (m.Source != "model" && m.TotalCycles == 0) {
		return nil
	}
	ns := t.opt.BaseTime.UnixNano()
	if ns < 0 {
		return fmt.Errorf("perfetto: base time %v is before the Unix epoch", t.opt.BaseTime)
	}
	t.base = uint64(ns)
	return nil
}

func (t *timeline) startTs(r *trace.Region) uint64 { return t.nsOf(r.Start, r.StartNs) }
func (t *timeline) endTs(r *trace.Region) uint64   { return t.nsOf(r.End, r.EndNs) }

func (t *timeline) see(ts uint64) {
	if !t.haveTs {
		t.minTs, t.maxTs, t.haveTs = ts, ts, true
		return
	}
	t.minTs = min(t.minTs, ts)
	t.maxTs = max(t.maxTs, ts)
}

// regions drives one WriteRegions call: it splits at warp changes, applies
// the cap, and feeds lanes or the summary.
func (t *timeline) regions(rs []trace.Region, startWarp func(*trace.Warp) error, finishWarp func() error) error {
	if !t.began || t.ended {
		return errors.New("perfetto: WriteRegions outside Begin/End")
	}
	for i := 0; i < len(rs); {
		r := &rs[i]
		if !t.haveWarp || r.Warp != t.warp.Segment {
			if err := finishWarp(); err != nil {
				return err
			}
			w := trace.Warp{Segment: r.Warp, CTA: r.CTA, WarpInCTA: r.WarpInCTA, SM: r.SM}
			if err := startWarp(&w); err != nil {
				return err
			}
		}
		// The run of regions of this warp in this call.
		j := i
		for j < len(rs) && rs[j].Warp == t.warp.Segment {
			j++
		}
		run := rs[i:j]
		if !t.agg && t.opt.MaxSlices > 0 && t.slices+int64(len(run)) > int64(t.opt.MaxSlices) {
			t.agg = true
		}
		for k := range run {
			r := &run[k]
			if r.End < r.Start {
				return fmt.Errorf("perfetto: region %d of warp %d ends before it starts", r.ID, r.Warp)
			}
			if t.agg {
				s := &t.aggSum
				st, en := t.startTs(r), t.endTs(r)
				if !s.started {
					s.start, s.end, s.started = st, en, true
				}
				s.start, s.end = min(s.start, st), max(s.end, en)
				s.n++
				s.cycles += r.Cycles
				if r.Info != nil && r.Info.Memory() {
					s.memN++
					s.memCyc += r.Cycles
				}
				continue
			}
			t.slices++
			if err := t.lay.add(r, t.emitFunc); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// Exporter writes Perfetto's native protobuf trace format. It implements
// exporters.Exporter and exporters.WarpWriter and streams: memory is
// bounded by the regions open at once in one warp plus one entry per SM and
// CTA seen.
type Exporter struct {
	timeline
	out      io.Writer
	w        *Writer
	smSeen   map[uint32]bool
	ctaSeen  map[uint32]bool
	lanes    int // lane tracks declared for the current warp
	nameBase map[int]uint64
	aggName  uint64
	anns     []Annotation
	names    []string // interned event names (iid = index + 1)
	seqOpen  bool     // the current warp's sequence has its interned data
	// transferName is the iid of the first transfer's name (transfers.go)
	transferName uint64
}

// Sequences: kernelSeq holds the interned data, the kernel track and the
// counters; warp segment s writes its tracks and slices on warpSeqBase + s,
// in time order (warps in segment order), so timestamps never decrease
// within a sequence.
const (
	kernelSeq   = 1
	warpSeqBase = 2
)

// New returns an exporter writing a .pftrace (protobuf) to w.
func New(w io.Writer, opt Options) *Exporter {
	e := &Exporter{out: w}
	e.opt = opt
	e.emitFunc = e.emit
	return e
}

// Begin implements exporters.Exporter: it writes the interned names and the
// kernel's root track.
func (e *Exporter) Begin(h *trace.Header) error {
	if e.began {
		return errors.New("perfetto: Begin called twice")
	}
	e.began = true
	e.h = h
	if err := e.setBase(); err != nil {
		return err
	}
	shift, err := transferShift(h)
	if err != nil {
		return err
	}
	e.base += shift
	e.w = NewWriter(e.out, 1)
	e.smSeen, e.ctaSeen = map[uint32]bool{}, map[uint32]bool{}
	e.nameBase = make(map[int]uint64, len(h.Regions))
	names := make([]string, 0, len(h.Regions)+1)
	for i := range h.Regions {
		names = append(names, RegionName(&h.Regions[i]))
		e.nameBase[h.Regions[i].ID] = uint64(i + 1)
	}
	names = append(names, "aggregated regions")
	e.aggName = uint64(len(names))
	e.transferName = uint64(len(names) + 1)
	for i := range h.Meta.Transfers {
		names = append(names, trace.TransferName(&h.Meta.Transfers[i]))
	}
	e.names = names
	if err := e.w.Interned(categoryNames(), names, annotationNames()); err != nil {
		return err
	}
	return e.w.Track(&Track{UUID: uuidKernel, Name: "kernel " + h.Kernel, Description: kernelDescription(h), Explicit: true})
}

func kernelDescription(h *trace.Header) string {
	unit := "cycles shown as ns (clock rate unknown)"
	switch {
	case h.Timer == trace.TimerGlobaltimer:
		unit = "%globaltimer ns"
	case h.Meta.ClockHz > 0:
		unit = fmt.Sprintf("cycles at %g Hz", h.Meta.ClockHz)
	}
	return fmt.Sprintf("ptxtrace: timer %s, %s; instrumentation %s", h.Timer, unit, h.IDHex())
}

// WriteWarp implements exporters.WarpWriter.
func (e *Exporter) WriteWarp(w *trace.Warp, _ []trace.Issue) error {
	if err := e.finishWarp(); err != nil {
		return err
	}
	return e.startWarp(w)
}

func (e *Exporter) startWarp(w *trace.Warp) error {
	e.warp, e.haveWarp = *w, true
	e.agg = false
	e.aggSum = summary{}
	e.lanes = 0
	e.seqOpen = false
	e.lay.reset()
	return nil
}

// declareLane starts the warp's packet sequence (first call of a warp)
// and declares SM, CTA and lane tracks up to lane.
func (e *Exporter) declareLane(lane int) error {
	w := &e.warp
	if !e.seqOpen {
		if w.Segment > math.MaxUint32-warpSeqBase {
			return fmt.Errorf("perfetto: warp segment %d has no packet sequence id", w.Segment)
		}
		e.w.SetSequence(warpSeqBase + w.Segment)
		if err := e.w.Interned(categoryNames(), e.names, annotationNames()); err != nil {
			return err
		}
		e.seqOpen = true
	}
	if !e.smSeen[w.SM] {
		e.smSeen[w.SM] = true
		if err := e.w.Track(&Track{UUID: uuidSM | uint64(w.SM), Parent: uuidKernel, Name: "SM " + strconv.Itoa(int(w.SM)), Explicit: true, SiblingRank: int32(min(w.SM, math.MaxInt32))}); err != nil {
			return err
		}
	}
	cta := e.ctaLinear(w)
	if !e.ctaSeen[cta] {
		e.ctaSeen[cta] = true
		if err := e.w.Track(&Track{UUID: uuidCTA | uint64(cta), Parent: uuidSM | uint64(w.SM),
			Name:     fmt.Sprintf("CTA (%d,%d,%d)", w.CTA[0], w.CTA[1], w.CTA[2]),
			Explicit: true, SiblingRank: int32(min(cta, math.MaxInt32))}); err != nil {
			return err
		}
	}
	for ; e.lanes <= lane; e.lanes++ {
		name := "warp " + strconv.Itoa(int(w.WarpInCTA))
		if e.lanes > 0 {
			name += " overlap " + strconv.Itoa(e.lanes)
		}
		if err := e.w.Track(&Track{UUID: warpUUID(w.Segment, e.lanes), Parent: uuidCTA | uint64(cta), Name: name,
			SiblingRank: int32(min(w.WarpInCTA, 1<<20))<<8 | int32(min(e.lanes, 255))}); err != nil {
			return err
		}
	}
	return nil
}

func (e *Exporter) ctaLinear(w *trace.Warp) uint32 {
	if e.h.WarpsPerCTA > 0 {
		return w.Segment / e.h.WarpsPerCTA
	}
	return w.Segment
}

func (e *Exporter) emit(ev *laneEvent) error {
	if ev.lane >= e.lanes {
		if err := e.declareLane(ev.lane); err != nil {
			return err
		}
	}
	track := warpUUID(e.warp.Segment, ev.lane)
	r := ev.r
	if !ev.begin {
		ts := e.endTs(r)
		e.see(ts)
		return e.w.SliceEnd(ts, track)
	}
	ts := e.startTs(r)
	e.see(ts)
	cat := uint64(catUser)
	if r.Info != nil && r.Info.Memory() {
		cat = catLoad
	}
	e.anns = e.anns[:0]
	if !e.opt.NoArgs {
		e.anns = append(e.anns,
			Annotation{NameIID: annCycles, Kind: 'u', U: r.Cycles},
			Annotation{NameIID: annRegion, Kind: 'i', I: int64(r.ID)},
			Annotation{NameIID: annInstance, Kind: 'u', U: uint64(r.Instance)},
			Annotation{NameIID: annProbe, Kind: 'u', U: beginProbe(r)},
			Annotation{NameIID: annEndProbe, Kind: 'u', U: uint64(r.EndProbe)})
		if r.Info != nil && r.Info.LocFile != "" {
			e.anns = append(e.anns, Annotation{NameIID: annLocFile, Kind: 's', S: r.Info.LocFile})
		}
		if r.HasTruth && r.TruthComplete >= r.TruthIssue {
			e.anns = append(e.anns, Annotation{NameIID: annTruth, Kind: 'u', U: r.TruthComplete - r.TruthIssue})
		}
	}
	name, ok := e.nameBase[r.ID]
	if !ok {
		return fmt.Errorf("perfetto: region id %d is not in the header", r.ID)
	}
	return e.w.SliceBegin(ts, track, name, cat, e.anns)
}

func (e *Exporter) finishWarp() error {
	if !e.haveWarp {
		return nil
	}
	e.haveWarp = false
	if err := e.lay.finish(e.emit); err != nil {
		return err
	}
	s := &e.aggSum
	if !e.agg || s.n == 0 {
		return nil
	}
	if err := e.declareLane(0); err != nil {
		return err
	}
	track := warpUUID(e.warp.Segment, 0)
	e.see(s.start)
	e.see(s.end)
	anns := []Annotation{
		{NameIID: annRegions, Kind: 'u', U: uint64(s.n)},
		{NameIID: annCycles, Kind: 'u', U: s.cycles},
		{NameIID: annMemRegions, Kind: 'u', U: uint64(s.memN)},
		{NameIID: annMemCycles, Kind: 'u', U: s.memCyc},
	}
	if err := e.w.SliceBegin(s.start, track, e.aggName, catSummary, anns); err != nil {
		return err
	}
	return e.w.SliceEnd(s.end, track)
}

// WriteRegions implements exporters.Exporter.
func (e *Exporter) WriteRegions(rs []trace.Region) error {
	return e.regions(rs, e.startWarp, e.finishWarp)
}

// End implements exporters.Exporter: it closes the last warp and writes the
// counter tracks.
func (e *Exporter) End() error {
	if !e.began || e.ended {
		return errors.New("perfetto: End without Begin, or twice")
	}
	if err := e.finishWarp(); err != nil {
		return err
	}
	e.ended = true
	e.w.SetSequence(kernelSeq)
	for i, c := range e.opt.Counters {
		parent := uint64(uuidKernel)
		if c.SM >= 0 {
			sm := uint32(c.SM)
			parent = uuidSM | uint64(sm)
			if !e.smSeen[sm] {
				e.smSeen[sm] = true
				if err := e.w.Track(&Track{UUID: parent, Parent: uuidKernel, Name: "SM " + strconv.Itoa(int(sm)), Explicit: true, SiblingRank: int32(min(sm, math.MaxInt32))}); err != nil {
					return err
				}
			}
		}
		u := uuidCounter | uint64(i)
		if err := e.w.Track(&Track{UUID: u, Parent: parent, Name: c.Name, Counter: true, SiblingRank: -1}); err != nil {
			return err
		}
	}
	act, err := e.activityEvents()
	if err != nil {
		return err
	}
	// Every counter at the first timestamp, then every one at the last,
	// the activity and the transfers: time order on the kernel's sequence.
	err = e.writeTransfersAndCounters(func(ts uint64) error {
		for i, c := range e.opt.Counters {
			if err := e.w.Counter(ts, uuidCounter|uint64(i), c.Value); err != nil {
				return err
			}
		}
		return nil
	}, act)
	if err != nil {
		return err
	}
	return e.w.Flush()
}
