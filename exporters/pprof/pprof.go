package pprof

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/google/pprof/profile"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Sample types, in order (the index of each value in Sample.Value).
const (
	MemoryCycles = iota // cycles of load regions (timer units; ns for %globaltimer)
	OtherCycles         // cycles of user regions
	Regions             // region instances
	TruthCycles         // ground-truth latency (complete − issue) of probed loads
	numValues
)

// Options tunes the exporter.
type Options struct {
	// PTXFile is the file name of the mapping and of the locations of
	// regions without a .loc source position (their line is the PTX line);
	// default: the input PTX file the manifest names (its "input", as
	// given to instrument), so that `go tool pprof -list KERNEL
	// -source_path DIR` finds it; "<kernel>.ptx" when the trace has no
	// manifest or the manifest no input.
	PTXFile string
	// BySM adds an "sm" numeric label and keeps one sample per region and
	// SM instead of one per region.
	BySM bool
}

// InputFile is the input PTX file the trace's manifest names, or
// "<kernel>.ptx" when it names none.
func InputFile(h *trace.Header) string {
	var m struct {
		Input string `json:"input"`
	}
	if len(h.ManifestJSON) > 0 && json.Unmarshal(h.ManifestJSON, &m) == nil && m.Input != "" {
		return m.Input
	}
	return h.Kernel + ".ptx"
}

// Exporter builds a pprof profile (github.com/google/pprof/profile) from a
// trace: one location per probe region (at its PTX instruction, with the
// CUDA source line of its .loc), one sample per region (and SM with BySM)
// holding memory cycles, other cycles, instance count and ground-truth
// cycles. It keeps one accumulator per region (and SM), so memory does not
// grow with the number of instances. It implements exporters.Exporter.
type Exporter struct {
	w   io.Writer
	opt Options
	h   *trace.Header

	acc   map[accKey]*[numValues]int64
	began bool
	ended bool
	minS  uint64
	maxE  uint64
	seen  bool
}

type accKey struct {
	region int
	sm     int64 // −1 without BySM
}

// New returns an exporter that writes a gzipped profile.proto to w.
func New(w io.Writer, opt Options) *Exporter { return &Exporter{w: w, opt: opt} }

// Begin implements exporters.Exporter.
func (e *Exporter) Begin(h *trace.Header) error {
	if e.began {
		return errors.New("pprof: Begin called twice")
	}
	e.began = true
	e.h = h
	e.acc = map[accKey]*[numValues]int64{}
	return nil
}

// WriteRegions implements exporters.Exporter.
func (e *Exporter) WriteRegions(rs []trace.Region) error {
	if !e.began || e.ended {
		return errors.New("pprof: WriteRegions outside Begin/End")
	}
	for i := range rs {
		r := &rs[i]
		k := accKey{region: r.ID, sm: -1}
		if e.opt.BySM {
			k.sm = int64(r.SM)
		}
		a := e.acc[k]
		if a == nil {
			a = new([numValues]int64)
			e.acc[k] = a
		}
		c := int64(min(r.Cycles, math.MaxInt64))
		if r.Info != nil && r.Info.Memory() {
			a[MemoryCycles] += c
		} else {
			a[OtherCycles] += c
		}
		a[Regions]++
		if r.HasTruth && r.TruthComplete >= r.TruthIssue {
			a[TruthCycles] += int64(r.TruthComplete - r.TruthIssue)
		}
		if !e.seen {
			e.minS, e.maxE, e.seen = r.Start, r.End, true
		}
		e.minS, e.maxE = min(e.minS, r.Start), max(e.maxE, r.End)
	}
	return nil
}

// Profile returns the profile built so far (End writes it).
func (e *Exporter) Profile() (*profile.Profile, error) {
	if !e.began {
		return nil, errors.New("pprof: Profile before Begin")
	}
	h := e.h
	unit := "cycles"
	if h.Timer == trace.TimerGlobaltimer {
		unit = "nanoseconds"
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "memory_cycles", Unit: unit},
			{Type: "other_cycles", Unit: unit},
			{Type: "regions", Unit: "count"},
			{Type: "truth_cycles", Unit: "cycles"},
		},
		DefaultSampleType: "memory_cycles",
		PeriodType:        &profile.ValueType{Type: "regions", Unit: "count"},
		Period:            1,
		TimeNanos:         h.Meta.StartUnixNs,
		Comments: []string{
			"ptxtrace kernel " + h.Kernel,
			"timer " + h.Timer.String() + ", instrumentation " + h.IDHex(),
		},
	}
	if h.Meta.Device != "" {
		p.Comments = append(p.Comments, "device "+h.Meta.Device)
	}
	total := h.Meta.TotalCycles
	if total == 0 && e.seen {
		total = e.maxE - e.minS
	}
	if h.HasNs() {
		p.DurationNanos = int64(math.Round(h.Ns(total)))
	}
	ptxFile := e.opt.PTXFile
	if ptxFile == "" {
		ptxFile = InputFile(h)
	}
	m := &profile.Mapping{ID: 1, Start: 0x10000, File: ptxFile, HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	p.Mapping = []*profile.Mapping{m}

	// One function per (kernel, source file); one location per region.
	funcs := map[string]*profile.Function{}
	fn := func(file string) *profile.Function {
		if f := funcs[file]; f != nil {
			return f
		}
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: h.Kernel, SystemName: h.Kernel, Filename: file}
		funcs[file] = f
		p.Function = append(p.Function, f)
		return f
	}
	locs := map[int]*profile.Location{}
	for i := range h.Regions {
		ri := &h.Regions[i]
		file, line := ri.LocFile, int64(ri.LocLine)
		if file == "" {
			file, line = ptxFile, int64(ri.Line)
		}
		l := &profile.Location{
			ID: uint64(len(p.Location) + 1), Mapping: m,
			Address: m.Start + uint64(i)*16,
			Line:    []profile.Line{{Function: fn(file), Line: line, Column: int64(ri.LocCol)}},
		}
		locs[ri.ID] = l
		p.Location = append(p.Location, l)
	}
	m.Limit = m.Start + uint64(len(h.Regions)+1)*16

	keys := make([]accKey, 0, len(e.acc))
	for k := range e.acc {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].region != keys[j].region {
			return keys[i].region < keys[j].region
		}
		return keys[i].sm < keys[j].sm
	})
	for _, k := range keys {
		ri := h.Region(k.region)
		l := locs[k.region]
		if ri == nil || l == nil {
			return nil, fmt.Errorf("pprof: region id %d is not in the header", k.region)
		}
		a := e.acc[k]
		s := &profile.Sample{
			Location: []*profile.Location{l},
			Value:    append([]int64(nil), a[:]...),
			Label: map[string][]string{
				"kind":        {ri.Kind},
				"mode":        {ri.Mode},
				"ptx":         {"line " + strconv.Itoa(ri.Line) + ": " + ri.Text},
				"state_space": {space(ri)},
				// Ids are string labels: pprof drops numeric labels of value 0.
				"region": {strconv.Itoa(ri.ID)},
			},
		}
		if k.sm >= 0 {
			s.Label["sm"] = []string{strconv.FormatInt(k.sm, 10)}
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof: %w", err)
	}
	return p, nil
}

func space(ri *trace.RegionInfo) string {
	if ri.Space != "" {
		return ri.Space
	}
	if ri.Memory() {
		return "unknown"
	}
	return "none"
}

// End implements exporters.Exporter: it writes the gzipped profile.
func (e *Exporter) End() error {
	if !e.began || e.ended {
		return errors.New("pprof: End without Begin, or twice")
	}
	e.ended = true
	p, err := e.Profile()
	if err != nil {
		return err
	}
	return p.Write(e.w)
}
