package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/ptxtrace/ptxtrace/manifest"
)

// Raw buffer layout version 1 (docs/buffer.md).
const (
	Magic              = manifest.Magic
	LayoutVersion      = 1
	HeaderBytes        = 64
	SegmentHeaderBytes = 32
	RecordBytes        = 16

	flagWritten = 1
)

// DecodeError is a fatal problem in a raw buffer. Segment and Record locate
// it (−1 when not applicable).
type DecodeError struct {
	Segment int64
	Record  int64
	Msg     string
}

func (e *DecodeError) Error() string {
	switch {
	case e.Segment < 0:
		return "trace: raw buffer: " + e.Msg
	case e.Record < 0:
		return fmt.Sprintf("trace: raw buffer: segment %d: %s", e.Segment, e.Msg)
	}
	return fmt.Sprintf("trace: raw buffer: segment %d record %d: %s", e.Segment, e.Record, e.Msg)
}

func headerErr(format string, args ...any) error {
	return &DecodeError{Segment: -1, Record: -1, Msg: fmt.Sprintf(format, args...)}
}

// Decoder decodes a raw buffer warp by warp through an io.ReaderAt, so only
// one warp's records are in memory at a time. It implements RegionSource.
type Decoder struct {
	r    io.ReaderAt
	h    Header
	next uint32 // next segment Next looks at

	segBytes int64
	// probe id → index into h.Probes; dense slice when ids are small.
	dense  []int32
	sparse map[uint32]int32
	// per probe: index of its region in h.Regions
	probeRegion []int32
	// groupSeq marks the probes of mode group_seq (run-time paired
	// cp.async, pairGroupSeq); closes is, per such end probe, the set of
	// region indexes it may close.
	groupSeq []bool
	phaseSeq []bool // probes of mode phase_seq (run-time paired TMA, pairer.phaseSeq)
	closes   map[int32]map[int32]bool

	truth TruthReader

	// reused per warp
	buf      []byte
	cur      WarpRegions
	pr       *pairer
	dropped  []uint32        // begin records of the last warp that gave no region
	touched  []int32         // regions with truth in this warp
	truthBy  [][]TruthAccess // per region index: truth of this warp, in order
	truthBuf []TruthAccess
}

type openInst struct {
	region   int32 // index into h.Regions
	rec      uint32
	start    uint64
	instance uint32
	depth    uint32
	tag      uint32 // group_seq begin: the copy's group; phase_seq: its barrier | expected parity
	dead     bool   // phase_seq: its warp skipped a phase of the barrier; never closed
}

// TruthReader gives the ground truth of one warp; the bundle provides one.
// Truth returns the accesses of segment seg in their original order,
// appending to dst.
type TruthReader interface {
	Truth(seg uint32, dst []TruthAccess) ([]TruthAccess, error)
}

// Options adjust decoding.
type Options struct {
	// Meta is the run metadata (clock rate for ns, grid for the segment
	// index check).
	Meta RunMeta
	// ManifestJSON is stored in Header.ManifestJSON (optional).
	ManifestJSON []byte
	// Truth supplies ground truth per warp (optional).
	Truth TruthReader
	// Activity is stored in Header.Activity (optional).
	Activity *Activity
}

// Decode decodes a whole raw buffer in memory. kernel names the launched
// kernel; "" picks the manifest's only kernel.
func Decode(raw []byte, m *manifest.Manifest, kernel string) (*Trace, error) {
	return DecodeOptions(raw, m, kernel, Options{})
}

// DecodeOptions is Decode with options.
func DecodeOptions(raw []byte, m *manifest.Manifest, kernel string, o Options) (*Trace, error) {
	d, err := NewDecoder(bytes.NewReader(raw), int64(len(raw)), m, kernel, o)
	if err != nil {
		return nil, err
	}
	return Collect(d)
}

// NewDecoder validates the raw buffer's header against the manifest and
// returns a streaming decoder. size is the number of bytes readable from r.
func NewDecoder(r io.ReaderAt, size int64, m *manifest.Manifest, kernel string, o Options) (*Decoder, error) {
	if m == nil {
		return nil, errors.New("trace: no manifest")
	}
	k, err := pickKernel(m, kernel)
	if err != nil {
		return nil, err
	}
	var hb [HeaderBytes]byte
	if size < HeaderBytes {
		return nil, headerErr("%d bytes, shorter than the %d-byte header", size, HeaderBytes)
	}
	if _, err := r.ReadAt(hb[:], 0); err != nil {
		return nil, fmt.Errorf("trace: reading raw buffer header: %w", err)
	}
	mh, err := manifest.ParseHeader(hb[:])
	if err != nil {
		return nil, headerErr("%v", err)
	}
	ver := mh.LayoutVersion
	if ver != LayoutVersion {
		return nil, headerErr("layout version %d is not supported (this ptxtrace reads version %d)", ver, LayoutVersion)
	}
	hdrBytes, segBytes, rpw, recBytes := mh.HeaderBytes, mh.SegmentBytes, mh.RecordsPerWarp, mh.RecordBytes
	segments, timer, wpc := mh.Segments, mh.Timer, mh.WarpsPerCTA
	if hdrBytes != HeaderBytes || recBytes != RecordBytes {
		return nil, headerErr("header/record bytes %d/%d (want %d/%d)", hdrBytes, recBytes, HeaderBytes, RecordBytes)
	}
	if rpw == 0 || uint64(segBytes) != SegmentHeaderBytes+uint64(rpw)*RecordBytes {
		return nil, headerErr("segment bytes %d does not match %d records per warp", segBytes, rpw)
	}
	if timer > uint32(TimerGlobaltimer) {
		return nil, headerErr("unknown timer code %d", timer)
	}
	if wpc == 0 {
		return nil, headerErr("warps per CTA is 0")
	}
	if segments%wpc != 0 {
		return nil, headerErr("%d segments is not a multiple of %d warps per CTA", segments, wpc)
	}
	need := HeaderBytes + int64(segments)*int64(segBytes)
	if size < need {
		return nil, headerErr("truncated: %d bytes, the header announces %d segments × %d bytes = %d bytes", size, segments, segBytes, need)
	}
	id := mh.ID
	want, err := hex.DecodeString(m.InstrumentationID)
	if err != nil || len(want) != 8 {
		return nil, fmt.Errorf("trace: manifest instrumentation_id %q is not 16 hex digits", m.InstrumentationID)
	}
	if !bytes.Equal(id[:], want) {
		return nil, headerErr("instrumentation id %x does not match the manifest's %s (buffer from a different instrumented PTX?)", id, m.InstrumentationID)
	}
	if mc := manifest.TimerCode(m.Timer); mc >= 0 && uint32(mc) != timer {
		return nil, headerErr("timer code %d does not match the manifest's timer %q", timer, m.Timer)
	}
	if m.Buffer.RecordsPerWarp > 0 && uint32(m.Buffer.RecordsPerWarp) != rpw {
		return nil, headerErr("%d records per warp, the manifest says %d", rpw, m.Buffer.RecordsPerWarp)
	}
	if k.WarpsPerCTA > 0 && uint32(k.WarpsPerCTA) != wpc {
		return nil, headerErr("%d warps per CTA, the manifest's kernel %q has %d", wpc, k.Name, k.WarpsPerCTA)
	}

	d := &Decoder{r: r, segBytes: int64(segBytes), truth: o.Truth}
	d.h = Header{
		Kernel:            k.Name,
		LayoutVersion:     ver,
		Timer:             Timer(timer),
		Segments:          segments,
		RecordsPerWarp:    rpw,
		WarpsPerCTA:       wpc,
		InstrumentationID: id,
		Meta:              o.Meta,
		ManifestJSON:      o.ManifestJSON,
		Activity:          o.Activity,
	}
	d.h.Probes, d.h.Regions = tables(k)
	d.index()
	return d, nil
}

func pickKernel(m *manifest.Manifest, kernel string) (*manifest.Kernel, error) {
	if kernel == "" {
		if len(m.Kernels) != 1 {
			names := make([]string, len(m.Kernels))
			for i := range m.Kernels {
				names[i] = m.Kernels[i].Name
			}
			return nil, fmt.Errorf("trace: the manifest has %d kernels %q; name the launched one", len(m.Kernels), names)
		}
		return &m.Kernels[0], nil
	}
	k := m.Kernel(kernel)
	if k == nil {
		return nil, fmt.Errorf("trace: kernel %q is not in the manifest", kernel)
	}
	return k, nil
}

// tables builds the probe and region tables of kernel k, sorted by id.
func tables(k *manifest.Kernel) ([]ProbeInfo, []RegionInfo) {
	probes := make([]ProbeInfo, 0, len(k.Probes))
	byRegion := map[int]*RegionInfo{}
	var regions []RegionInfo
	for _, p := range k.Probes {
		probes = append(probes, ProbeInfo{
			ID: p.ID, Begin: p.Kind == manifest.KindBegin, Region: p.Region, Closes: p.Closes, Mode: p.Mode,
			Line: p.Line, Text: p.Text, OutLine: p.OutLine,
			LocFile: p.LocFile, LocLine: p.LocLine, LocCol: p.LocCol,
		})
		if byRegion[p.Region] == nil {
			regions = append(regions, RegionInfo{ID: p.Region, Kind: p.RegionKind})
			byRegion[p.Region] = &RegionInfo{} // placeholder; filled below
		}
	}
	sort.Slice(probes, func(i, j int) bool { return probes[i].ID < probes[j].ID })
	sort.Slice(regions, func(i, j int) bool { return regions[i].ID < regions[j].ID })
	idx := map[int]int{}
	for i := range regions {
		idx[regions[i].ID] = i
	}
	for _, p := range k.Probes {
		if p.Kind != manifest.KindBegin && len(p.Closes) > 0 {
			for _, rid := range p.Closes {
				if i, ok := idx[rid]; ok {
					regions[i].EndProbes = append(regions[i].EndProbes, p.ID)
				}
			}
			continue
		}
		r := &regions[idx[p.Region]]
		if p.Kind == manifest.KindBegin {
			r.BeginProbe = p.ID
			r.Mode, r.Space = p.Mode, p.Space
			r.Line, r.Text, r.OutLine = p.Line, p.Text, p.OutLine
			r.LocFile, r.LocLine, r.LocCol = p.LocFile, p.LocLine, p.LocCol
		} else {
			r.EndProbes = append(r.EndProbes, p.ID)
		}
	}
	for i := range regions {
		s := regions[i].EndProbes
		sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	}
	return probes, regions
}

const maxDense = 1 << 16

func (d *Decoder) index() {
	h := &d.h
	var maxID uint32
	for _, p := range h.Probes {
		maxID = max(maxID, p.ID)
	}
	if len(h.Probes) > 0 && maxID < maxDense {
		d.dense = make([]int32, maxID+1)
		for i := range d.dense {
			d.dense[i] = -1
		}
		for i, p := range h.Probes {
			d.dense[p.ID] = int32(i)
		}
	} else {
		d.sparse = make(map[uint32]int32, len(h.Probes))
		for i, p := range h.Probes {
			d.sparse[p.ID] = int32(i)
		}
	}
	d.probeRegion = make([]int32, len(h.Probes))
	d.groupSeq = make([]bool, len(h.Probes))
	d.phaseSeq = make([]bool, len(h.Probes))
	regionIndex := func(id int) int32 {
		lo := sort.Search(len(h.Regions), func(j int) bool { return h.Regions[j].ID >= id })
		if lo < len(h.Regions) && h.Regions[lo].ID == id {
			return int32(lo)
		}
		return -1
	}
	for i, p := range h.Probes {
		d.probeRegion[i] = regionIndex(p.Region)
		d.groupSeq[i] = p.Mode == manifest.ModeGroupSeq
		d.phaseSeq[i] = p.Mode == manifest.ModePhaseSeq
		if len(p.Closes) > 0 {
			if d.closes == nil {
				d.closes = map[int32]map[int32]bool{}
			}
			set := map[int32]bool{}
			for _, id := range p.Closes {
				set[regionIndex(id)] = true
			}
			d.closes[int32(i)] = set
		}
	}
	d.truthBy = make([][]TruthAccess, len(h.Regions))
}

func (d *Decoder) probeIndex(id uint32) int32 {
	if d.dense != nil {
		if id < uint32(len(d.dense)) {
			return d.dense[id]
		}
		return -1
	}
	if i, ok := d.sparse[id]; ok {
		return i
	}
	return -1
}

// Header returns the trace header.
func (d *Decoder) Header() *Header { return &d.h }

// Reset makes Next start again at the first segment.
func (d *Decoder) Reset() { d.next = 0 }

// Next decodes the next written warp segment (segments without the written
// flag are skipped). It returns io.EOF after the last one. The result is
// reused by the following call.
func (d *Decoder) Next() (*WarpRegions, error) {
	for d.next < d.h.Segments {
		s := d.next
		d.next++
		ok, err := d.DecodeSegment(s, &d.cur)
		if err != nil {
			return nil, err
		}
		if ok {
			return &d.cur, nil
		}
	}
	return nil, io.EOF
}

// DecodeSegment decodes segment s into wr (reusing its slices). It returns
// false if the segment was not written.
func (d *Decoder) DecodeSegment(s uint32, wr *WarpRegions) (bool, error) {
	if s >= d.h.Segments {
		return false, fmt.Errorf("trace: segment %d out of range (%d segments)", s, d.h.Segments)
	}
	off := HeaderBytes + int64(s)*d.segBytes
	var sh [SegmentHeaderBytes]byte
	if _, err := d.r.ReadAt(sh[:], off); err != nil {
		return false, fmt.Errorf("trace: reading segment %d: %w", s, err)
	}
	le := binary.LittleEndian
	flags := le.Uint32(sh[28:])
	if flags&flagWritten == 0 {
		return false, nil
	}
	w := Warp{
		Segment:   s,
		Count:     le.Uint32(sh[0:]),
		CTA:       [3]uint32{le.Uint32(sh[4:]), le.Uint32(sh[8:]), le.Uint32(sh[12:])},
		WarpInCTA: le.Uint32(sh[16:]),
		SM:        le.Uint32(sh[20:]),
		HWWarp:    le.Uint32(sh[24:]),
		Flags:     flags,
	}
	if w.WarpInCTA != s%d.h.WarpsPerCTA {
		return false, &DecodeError{Segment: int64(s), Record: -1,
			Msg: fmt.Sprintf("warp in CTA %d does not match the segment index (want %d)", w.WarpInCTA, s%d.h.WarpsPerCTA)}
	}
	if g := d.h.Meta.Grid; g[0] > 0 && g[1] > 0 && g[2] > 0 {
		c := w.CTA
		if c[0] >= g[0] || c[1] >= g[1] || c[2] >= g[2] ||
			uint64(c[0])+uint64(g[0])*(uint64(c[1])+uint64(g[1])*uint64(c[2])) != uint64(s/d.h.WarpsPerCTA) {
			return false, &DecodeError{Segment: int64(s), Record: -1,
				Msg: fmt.Sprintf("ctaid (%d,%d,%d) does not match the segment index in grid (%d,%d,%d)", c[0], c[1], c[2], g[0], g[1], g[2])}
		}
	}
	w.Stored = min(w.Count, d.h.RecordsPerWarp)
	w.Lost = w.Count - w.Stored

	n := int(w.Stored) * RecordBytes
	if cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	recs := d.buf[:n]
	if n > 0 {
		if _, err := d.r.ReadAt(recs, off+SegmentHeaderBytes); err != nil {
			return false, fmt.Errorf("trace: reading segment %d records: %w", s, err)
		}
	}
	wr.Warp = w
	wr.Regions = wr.Regions[:0]
	wr.Issues = wr.Issues[:0]
	if err := d.loadTruth(s); err != nil {
		return false, err
	}
	err := d.pair(wr, recs)
	d.resetWarp()
	if err != nil {
		return false, err
	}
	if w.Lost > 0 {
		wr.Issues = append(wr.Issues, Issue{Kind: IssueOverflow, Warp: s, Lost: w.Lost,
			Message: fmt.Sprintf("warp segment %d overflowed: %d of %d records lost (records per warp %d)", s, w.Lost, w.Count, d.h.RecordsPerWarp)})
	}
	return true, nil
}

func (d *Decoder) loadTruth(s uint32) error {
	if d.truth == nil {
		return nil
	}
	var err error
	d.truthBuf, err = d.truth.Truth(s, d.truthBuf[:0])
	if err != nil {
		return err
	}
	for _, t := range d.truthBuf {
		pi := d.probeIndex(t.Probe)
		if pi < 0 {
			continue // truth for a probe of another kernel: ignore
		}
		if d.phaseSeq[pi] && t.Complete == t.Issue {
			continue // a TMA copy predicated off: only the lanes that copy record its begin
		}
		ri := d.probeRegion[pi]
		if len(d.truthBy[ri]) == 0 {
			d.touched = append(d.touched, ri)
		}
		d.truthBy[ri] = append(d.truthBy[ri], t)
	}
	return nil
}

func (d *Decoder) resetWarp() {
	for _, ri := range d.touched {
		d.truthBy[ri] = d.truthBy[ri][:0]
	}
	d.touched = d.touched[:0]
}

// pairer is the incremental pairing state of one warp (docs/buffer.md,
// "Pairing"): fed records in order, it says which open or close a region
// instance. The decoder and MergeByTime share it so they pair identically.
type pairer struct {
	d         *Decoder
	clock32   bool
	n         int
	prevRaw   uint32
	ext       uint64
	stack     []openInst
	instances []uint32 // per region index
	touched   []int32
	// group_seq (run-time paired cp.async): the open instances in begin
	// order, and those the last end record closed beyond the one step
	// returned (drained with more).
	async   []openInst
	closing []openInst
	// phase_seq: per barrier address, 1 + the parity of the last phase the
	// warp observed complete on it (0: none yet)
	phaseLast map[uint32]uint8
}

type stepKind uint8

const (
	stepBegin stepKind = iota + 1
	stepEnd
	stepUnmatchedEnd
	stepNone // a group_seq or phase_seq end record that closes nothing
)

func newPairer(d *Decoder) *pairer {
	return &pairer{d: d, clock32: d.h.Timer == TimerClock, instances: make([]uint32, len(d.h.Regions))}
}

func (p *pairer) reset() {
	for _, ri := range p.touched {
		p.instances[ri] = 0
	}
	p.touched = p.touched[:0]
	p.stack = p.stack[:0]
	p.async = p.async[:0]
	p.closing = p.closing[:0]
	clear(p.phaseLast)
	p.n = 0
}

// more returns the next further instance the last group_seq end record
// closed (after the one step returned), in begin order.
func (p *pairer) more() (openInst, bool) {
	if len(p.closing) == 0 {
		return openInst{}, false
	}
	o := p.closing[0]
	p.closing = p.closing[1:]
	return o, true
}

// groupSeq pairs a record of a group_seq probe (docs/buffer.md, "Run-time
// pairing"): a begin opens an instance of group tag; an end with tag k
// closes, in begin order, every open instance of a region it may close
// whose group is below k.
func (p *pairer) groupSeq(pi, ri int32, i int, ts uint64, tag uint32) (stepKind, openInst) {
	if p.d.h.Probes[pi].Begin {
		if p.instances[ri] == 0 {
			p.touched = append(p.touched, ri)
		}
		o := openInst{region: ri, rec: uint32(i), start: ts, instance: p.instances[ri], depth: uint32(len(p.stack)), tag: tag}
		p.instances[ri]++
		p.async = append(p.async, o)
		return stepBegin, o
	}
	set := p.d.closes[pi]
	p.closing = p.closing[:0]
	keep := p.async[:0]
	for _, o := range p.async {
		if o.tag < tag && (set == nil && o.region == ri || set[o.region]) {
			p.closing = append(p.closing, o)
		} else {
			keep = append(keep, o)
		}
	}
	p.async = keep
	if len(p.closing) == 0 {
		return stepNone, openInst{}
	}
	o := p.closing[0]
	p.closing = p.closing[1:]
	return stepEnd, o
}

// phaseSeq pairs a record of a phase_seq probe (docs/buffer.md, "Run-time
// pairing"): a begin on barrier b opens an instance expecting the parity
// of the phase after the last one the warp observed complete on b (0
// before any); an end on b with parity q closes, in begin order, every
// open instance of a region it may close that expects q on b. An end that
// sees again the parity the warp last observed on b while instances
// expecting the other parity are open there (the warp skipped a phase:
// their phase is unknown) leaves them unmatched for good.
func (p *pairer) phaseSeq(pi, ri int32, i int, ts uint64, tag uint32) (stepKind, openInst) {
	if p.phaseLast == nil {
		p.phaseLast = map[uint32]uint8{}
	}
	bar := tag &^ 7
	last := p.phaseLast[bar]
	if p.d.h.Probes[pi].Begin {
		if p.instances[ri] == 0 {
			p.touched = append(p.touched, ri)
		}
		want := uint32(0)
		if last > 0 {
			want = uint32(last-1) ^ 1
		}
		o := openInst{region: ri, rec: uint32(i), start: ts, instance: p.instances[ri], depth: uint32(len(p.stack)), tag: bar | want}
		p.instances[ri]++
		p.async = append(p.async, o)
		return stepBegin, o
	}
	q := tag & 1
	set := p.d.closes[pi]
	p.closing = p.closing[:0]
	keep := p.async[:0]
	for _, o := range p.async {
		mine := !o.dead && o.tag&^7 == bar && (set == nil && o.region == ri || set[o.region])
		switch {
		case mine && o.tag&1 == q:
			p.closing = append(p.closing, o)
			continue
		case mine && last == uint8(q)+1:
			o.dead = true // a skipped phase
		}
		keep = append(keep, o)
	}
	p.async = keep
	p.phaseLast[bar] = uint8(q) + 1
	if len(p.closing) == 0 {
		return stepNone, openInst{}
	}
	o := p.closing[0]
	p.closing = p.closing[1:]
	return stepEnd, o
}

// step consumes the next record. For stepBegin o is the new instance; for
// stepEnd o is the instance it closes. ts is the (extended) timestamp; pi the
// probe's index. seg is for error messages.
func (p *pairer) step(seg uint32, id, sink uint32, ts uint64) (k stepKind, o openInst, ets uint64, pi int32, err error) {
	i := p.n
	p.n++
	if p.clock32 {
		raw := uint32(ts)
		if i == 0 {
			p.ext = uint64(raw)
		} else {
			p.ext += uint64(raw - p.prevRaw)
		}
		p.prevRaw = raw
		ts = p.ext
	}
	pi = p.d.probeIndex(id)
	if pi < 0 {
		return 0, o, ts, pi, &DecodeError{Segment: int64(seg), Record: int64(i),
			Msg: fmt.Sprintf("unknown probe id %d (not a probe of kernel %q in the manifest)", id, p.d.h.Kernel)}
	}
	ri := p.d.probeRegion[pi]
	if p.d.groupSeq[pi] {
		k, o = p.groupSeq(pi, ri, i, ts, sink)
		return k, o, ts, pi, nil
	}
	if p.d.phaseSeq[pi] {
		k, o = p.phaseSeq(pi, ri, i, ts, sink)
		return k, o, ts, pi, nil
	}
	if p.d.h.Probes[pi].Begin {
		if p.instances[ri] == 0 {
			p.touched = append(p.touched, ri)
		}
		o = openInst{region: ri, rec: uint32(i), start: ts, instance: p.instances[ri], depth: uint32(len(p.stack))}
		p.instances[ri]++
		p.stack = append(p.stack, o)
		return stepBegin, o, ts, pi, nil
	}
	j := len(p.stack) - 1
	for j >= 0 && p.stack[j].region != ri {
		j--
	}
	if j < 0 {
		return stepUnmatchedEnd, o, ts, pi, nil
	}
	o = p.stack[j]
	p.stack = append(p.stack[:j], p.stack[j+1:]...)
	return stepEnd, o, ts, pi, nil
}

// pair turns one warp's records into regions.
func (d *Decoder) pair(wr *WarpRegions, recs []byte) error {
	h := &d.h
	w := &wr.Warp
	le := binary.LittleEndian
	if d.pr == nil {
		d.pr = newPairer(d)
	}
	p := d.pr
	p.reset()
	d.dropped = d.dropped[:0]
	for i := 0; i < len(recs)/RecordBytes; i++ {
		rec := recs[i*RecordBytes : (i+1)*RecordBytes]
		id := le.Uint32(rec)
		k, o, ts, pi, err := p.step(w.Segment, id, le.Uint32(rec[4:]), le.Uint64(rec[8:]))
		if err != nil {
			return err
		}
		switch k {
		case stepBegin:
			// Reserve the region's slot now so regions stay in begin order.
			wr.Regions = append(wr.Regions, Region{Warp: ^uint32(0), BeginRec: uint32(i)})
			continue
		case stepUnmatchedEnd:
			pr := &h.Probes[pi]
			wr.Issues = append(wr.Issues, Issue{Kind: IssueUnmatchedEnd, Warp: w.Segment, Record: uint32(i), Probe: id, Region: pr.Region,
				Message: fmt.Sprintf("warp segment %d record %d: end probe %d of region %d without an open begin", w.Segment, i, id, pr.Region)})
			continue
		case stepNone:
			continue
		}
		for ok := true; ok; o, ok = p.more() {
			d.close(wr, o, i, id, ts, le.Uint32(rec[4:]))
		}
	}
	for _, o := range append(p.stack, p.async...) {
		info := &h.Regions[o.region]
		wr.Issues = append(wr.Issues, Issue{Kind: IssueUnmatchedBegin, Warp: w.Segment, Record: o.rec, Probe: info.BeginProbe, Region: info.ID,
			Message: fmt.Sprintf("warp segment %d record %d: begin of region %d never closed", w.Segment, o.rec, info.ID)})
	}
	// Drop the slots of instances that never closed (or closed backwards).
	out := wr.Regions[:0]
	for _, r := range wr.Regions {
		if r.Warp != ^uint32(0) {
			out = append(out, r)
		} else {
			d.dropped = append(d.dropped, r.BeginRec)
		}
	}
	wr.Regions = out
	if len(wr.Issues) > 1 {
		sort.SliceStable(wr.Issues, func(a, b int) bool { return wr.Issues[a].Record < wr.Issues[b].Record })
	}
	return nil
}

// close fills the reserved slot of instance o, closed by record i (probe
// id, timestamp ts, sink word sink).
func (d *Decoder) close(wr *WarpRegions, o openInst, i int, id uint32, ts uint64, sink uint32) {
	h := &d.h
	w := &wr.Warp
	slot := d.findSlot(wr.Regions, o.rec)
	info := &h.Regions[o.region]
	if ts < o.start {
		wr.Issues = append(wr.Issues, Issue{Kind: IssueBackwards, Warp: w.Segment, Record: uint32(i), Probe: id, Region: info.ID,
			Message: fmt.Sprintf("warp segment %d record %d: region %d ends at %d before it began at %d (record %d)", w.Segment, i, info.ID, ts, o.start, o.rec)})
		return // the slot stays a hole, removed below
	}
	r := Region{
		Warp: w.Segment, CTA: w.CTA, WarpInCTA: w.WarpInCTA, SM: w.SM,
		Info: info, ID: info.ID, EndProbe: id,
		Instance: o.instance, Depth: o.depth, BeginRec: o.rec, EndRec: uint32(i),
		Start: o.start, End: ts, Cycles: ts - o.start,
	}
	if info.Mode == manifest.ModeGroupSeq || info.Mode == manifest.ModePhaseSeq {
		r.Group, r.Cover = o.tag, sink
	}
	if h.HasNs() {
		r.StartNs, r.EndNs, r.DurNs = h.Ns(r.Start), h.Ns(r.End), h.Ns(r.Cycles)
	}
	if tb := d.truthBy[o.region]; int(o.instance) < len(tb) {
		t := &tb[o.instance]
		r.HasTruth, r.TruthIssue, r.TruthComplete = true, t.Issue, t.Complete
		r.TruthBegin, r.TruthEnd = t.Begin, t.End
	}
	wr.Regions[slot] = r
}

// findSlot finds the reserved slot of the instance begun at record rec:
// slots are in increasing BeginRec order, so binary search.
func (d *Decoder) findSlot(rs []Region, rec uint32) int {
	lo, hi := 0, len(rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rs[m].BeginRec < rec {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
